"""The wiring diagram (enclosure/wiring.yml, WireViz) against the firmware's pin map (board.py).

The YAML is read back as plain data (not through the generator), so a hand edit, a stale file or a
generator bug all show up as a pin that disagrees with board.PINS."""
import copy
import re
import shutil
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import wiring  # noqa: E402
from gulo import board  # noqa: E402

# Signal name -> (connector, pin) at the far end of its wire.
FAR_END = {
    "REED": ("REED", "SW"),
    "HX711_SCK": ("HX711", "SCK"),
    "HX711_DOUT": ("HX711", "DT"),
    "LEDS": ("LEDS", "DIN"),
    "BUZZER": ("BUZZER", "IN"),
}
FAR_END.update({n: (n, "SIG") for n in board.PINS if n.startswith("BUTTON_")})
NO_WIRE = {"ONBOARD_LED"}        # on the DevKitC itself
LABEL = re.compile(r"^GPIO(\d+) ([A-Z0-9_]+)$")


def check_harness(doc):
    """Every disagreement between a WireViz harness dict and board.PINS, as readable strings."""
    problems = []
    esp = doc["connectors"]["ESP32"]
    pins, labels = esp["pins"], esp["pinlabels"]
    gpio_of = {}
    for pin, label in zip(pins, labels):
        if isinstance(pin, str):
            continue                                   # 3V3, 5V, GND
        m = LABEL.match(label)
        if not m:
            problems.append(f"ESP32 pin {pin}: label {label!r} is not 'GPIOn NAME'")
            continue
        n, name = int(m.group(1)), m.group(2)
        if n != pin:
            problems.append(f"ESP32 pin {pin} labelled GPIO{n}")
        if name not in board.PINS:
            problems.append(f"{name} (GPIO{pin}) is not in board.PINS")
        elif board.PINS[name] != pin:
            problems.append(f"{name}: diagram GPIO{pin}, board.py GPIO{board.PINS[name]}")
        gpio_of[name] = pin
    for name in board.PINS:
        if name not in gpio_of:
            problems.append(f"{name} (GPIO{board.PINS[name]}) missing from the diagram")
    # Follow every wire: ESP32 pin -> cable -> far-end pin.
    wired = {}
    for conn in doc["connections"]:
        ends = [next(iter(d.items())) for d in conn]
        (a, a_pins), (_cable, _wires), (b, b_pins) = ends
        if a != "ESP32":
            continue
        for pa, pb in zip(a_pins, b_pins):
            if not isinstance(pa, str):
                wired[(b, pb)] = pa
    for name, far in FAR_END.items():
        if far not in wired:
            problems.append(f"{name}: no wire to {far[0]}:{far[1]}")
        elif wired[far] != board.PINS[name]:
            problems.append(f"{name}: wire to {far[0]}:{far[1]} leaves GPIO{wired[far]}, "
                            f"board.py says GPIO{board.PINS[name]}")
    for name in NO_WIRE:
        if board.PINS[name] in wired.values():
            problems.append(f"{name} is on the board, yet a wire leaves GPIO{board.PINS[name]}")
    return problems


@pytest.fixture(scope="module")
def harness():
    return yaml.safe_load(wiring.YAML_PATH.read_text())


def test_committed_yaml_is_generated_from_board():
    assert wiring.YAML_PATH.read_text() == wiring.dump(), (
        "enclosure/wiring.yml is stale: run .venv/bin/python -m enclosure.wiring")


def test_every_pin_matches_board(harness):
    assert check_harness(harness) == []


def test_every_board_pin_appears(harness):
    esp = harness["connectors"]["ESP32"]
    gpios = {p for p in esp["pins"] if not isinstance(p, str)}
    assert gpios == set(board.PINS.values())
    # ... and the far-end map above covers every pin of board.PINS (so nothing goes unchecked).
    assert set(FAR_END) | NO_WIRE == set(board.PINS)


def test_checker_catches_a_wrong_pin(harness):
    bad = copy.deepcopy(harness)
    conn = next(c for c in bad["connections"] if "REED" in c[2])
    conn[0]["ESP32"][0] = board.PINS["BUZZER"]          # reed wired to the buzzer's GPIO
    assert any("REED" in p for p in check_harness(bad))
    bad = copy.deepcopy(harness)
    i = bad["connectors"]["ESP32"]["pins"].index(board.PINS["LEDS"])
    bad["connectors"]["ESP32"]["pinlabels"][i] = "GPIO17 LEDS"
    assert check_harness(bad)


def test_no_gpio_used_twice():
    assert len(set(board.PINS.values())) == len(board.PINS)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")
def test_rendered_diagram_shows_board_pins(tmp_path):
    """Render with WireViz; the SVG text carries every 'GPIOn NAME' label of board.py."""
    pytest.importorskip("wireviz")
    wiring.render(tmp_path)
    svg = (tmp_path / "wiring.svg").read_text()
    assert (tmp_path / "wiring.png").stat().st_size > 10_000
    for name, n in board.PINS.items():
        assert f"GPIO{n} {name}" in svg, f"GPIO{n} {name} not in the rendered diagram"
