"""firmware/HARDWARE.md against the firmware: its pin table is board.PINS exactly (the one pin
map), it names every firmware module, and its links lead to files that exist."""

import re
from pathlib import Path

from gulo import board

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
DOC = FIRMWARE / "HARDWARE.md"
ROW = re.compile(r"^\| *([A-Z0-9_]+) *\| *(\d+) *\|", re.M)


def pin_table(text):
    rows = ROW.findall(text)
    names = [name for name, _gpio in rows]
    assert len(names) == len(set(names)), f"a signal twice in the pin table: {names}"
    return {name: int(gpio) for name, gpio in rows}


def test_the_pin_table_is_the_board_file():
    assert pin_table(DOC.read_text()) == board.PINS


def test_a_changed_pin_would_be_caught():
    text = DOC.read_text().replace(f"| REED | {board.REED} |", "| REED | 13 |")
    assert pin_table(text) != board.PINS


def test_every_firmware_module_is_listed_and_every_link_exists():
    text = DOC.read_text()
    for src in sorted((FIRMWARE / "gulo").glob("*.py")):
        if src.stem != "__init__":
            assert f"`gulo/{src.name}`" in text, f"{src.name} missing from HARDWARE.md"
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert links
    for link in links:
        assert (FIRMWARE / link).exists(), link
