"""The enclosure's documents agree with the model, the pin map and the power budget."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from enclosure import params as P  # noqa: E402
from enclosure import power  # noqa: E402
from gulo import board  # noqa: E402

BOM = (ROOT / "enclosure" / "BOM.md").read_text()
ASSEMBLY = (ROOT / "enclosure" / "ASSEMBLY.md").read_text()


def _qty(item):
    """Quantity column of the BOM row whose item column is `item`."""
    for line in BOM.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1] == item:
            return cells[2]
        if len(cells) >= 2 and cells[0] == item:
            return cells[1]
    raise AssertionError(f"no BOM row for {item!r}")


def test_power_budget_fits_usb():
    _rows, total = power.budget()
    assert total <= power.USB_BUDGET_MA
    assert power.LED_BRIGHTNESS_CAP <= power.max_cap()
    # ... and the budget does react to the cap (full brightness would not fit).
    assert power.budget(255)[1] > power.USB_BUDGET_MA


def test_bom_power_table_is_current():
    m = re.search(r"<!-- power-table:start -->\n(.*?)\n<!-- power-table:end -->", BOM, re.S)
    assert m, "power table markers missing in BOM.md"
    assert m.group(1).strip() == power.table().strip(), "run .venv/bin/python -m enclosure.power"


def test_bom_states_the_cap():
    assert f"LED_BRIGHTNESS_CAP = {power.LED_BRIGHTNESS_CAP}" in BOM
    assert f"`LED_BRIGHTNESS_CAP` = {power.LED_BRIGHTNESS_CAP}" in ASSEMBLY


def test_bom_quantities_match_model_and_board():
    assert int(_qty("LED pixels")) == board.LED_COUNT == len(P.led_xy())
    assert int(_qty("tile")) == len(P.led_xy())
    assert int(_qty("push buttons")) == len(P.button_xy())
    assert int(_qty("foot")) == len(P.foot_centres())


def test_assembly_guide_shows_the_renders():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", ASSEMBLY)
    names = {Path(i).name for i in images}
    assert {"assembly.png", "exploded.png", "section.png", "wiring.png"} <= names
    for rel in images:
        path = (ROOT / "enclosure" / rel).resolve()
        assert path.is_file(), f"ASSEMBLY.md shows {rel}, which does not exist"
        assert path.stat().st_size < 300_000, f"{rel} is too big for the repository"
