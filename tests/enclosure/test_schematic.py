"""The schematic (enclosure/schematic.py) and the carrier's layout (enclosure/perfboard.py)
against the one pin map and the parts' rules; every rule with a planted fault beside it."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("cadquery")      # enclosure.params pulls no CAD, but the package's tests do

from enclosure import perfboard, schematic  # noqa: E402
from gulo import board  # noqa: E402

pytestmark = pytest.mark.enclosure
NETS = schematic.netlist()


def _net_of(part, pin, nets=NETS):
    found = [n for n, members in nets.items() if (part, pin) in members]
    assert len(found) == 1, f"{part}.{pin} on {found}"
    return found[0]


def test_every_pin_of_the_pin_map_is_wired_to_its_part():
    for name, gpio in board.PINS.items():
        net = _net_of("U1", f"GPIO{gpio}")
        assert net == schematic.gpio_net(name)
        assert len(NETS[net]) >= 2, f"{name} drives nothing"
    assert not {6, 7, 8, 9, 10, 11, 12} & set(board.PINS.values()), "flash pins / GPIO12 strap"


def test_a_moved_pin_is_caught(monkeypatch):
    monkeypatch.setitem(board.PINS, "REED", 13)
    nets = schematic.netlist()
    assert _net_of("U1", "GPIO13", nets) == "GPIO13 REED" and ("U1", "GPIO27") not in sum(nets.values(), [])


def test_level_shifter_is_always_enabled_and_pulled_down_at_its_input():
    assert _net_of("U2", "OE") == "GND", "74AHCT1G125's OE is active low: tie it to GND"
    leds = schematic.gpio_net("LEDS")
    assert _net_of("U2", "A") == leds
    pulldown = [p for p, _pin in NETS[leds] if p.startswith("R")]
    assert pulldown and all(_net_of(r, "2") == "GND" for r in pulldown)
    assert _net_of("U2", "VCC") == "+5V" and _net_of("C1", "1") == "+5V" and _net_of("C1", "2") == "GND"
    assert _net_of("R3", "2") == _net_of("LED1", "DIN"), "the data resistor in series at pixel 1"


def test_buzzer_driver_has_base_resistor_and_pull_down():
    base = _net_of("Q1", "B")
    assert _net_of("R4", "1") == schematic.gpio_net("BUZZER") and _net_of("R4", "2") == base
    assert _net_of("R5", "1") == base and _net_of("R5", "2") == "GND"
    assert _net_of("Q1", "E") == "GND" and _net_of("BZ1", "2") == _net_of("Q1", "C")
    assert "DNP" in schematic.PARTS["D1"][0], "the flyback diode is for a magnetic buzzer only"


def test_reed_pull_up_and_buttons_to_ground():
    reed = schematic.gpio_net("REED")
    assert _net_of("R1", "2") == reed and _net_of("R1", "1") == "+3V3" and _net_of("SW1", "2") == "GND"
    for i, name in enumerate(schematic.BUTTONS):
        assert _net_of(f"SW{i + 2}", "1") == schematic.gpio_net(name) and _net_of(f"SW{i + 2}", "2") == "GND"


def test_capacitance_on_vbus_within_the_usb_inrush_limit():
    """USB 2.0 section 7.2.4.1: at most 10 uF across VBUS at attach. C2 + 25 x 100 nF."""
    assert schematic.added_vbus_uf() <= schematic.USB_MAX_UF
    assert schematic.added_vbus_uf(1000.0) > schematic.USB_MAX_UF    # planted: the old 1000 uF


def test_carrier_layout_fits_and_carries_every_net_that_leaves_it():
    c0, c1 = perfboard.carrier_cols()
    r0, r1 = perfboard.carrier_rows()
    taken = {}
    for ref in perfboard.LAYOUT:
        for c, r in perfboard.cells(ref):
            assert c0 <= c <= c1 and r0 <= r <= r1, f"{ref} off the carrier at ({c}, {r})"
            assert (c, r) not in taken, f"{ref} on top of {taken[(c, r)]}"
            taken[(c, r)] = ref
        if ref not in ("J1", "J2"):
            assert not perfboard.cells(ref) & perfboard.esp_cells(), f"{ref} under the DevKitC"
    assert perfboard.LAYOUT["J3"][0] == c0, "the harness header sits at the carrier's -x edge"
    parts_of = {n: {p for p, _ in members} for n, members in NETS.items()}
    leaving = {n for n, ps in parts_of.items() if ps & perfboard.ON_CARRIER and ps - perfboard.ON_CARRIER}
    assert leaving <= set(perfboard.HARNESS), f"no harness pin for {leaving - set(perfboard.HARNESS)}"
    assert len(perfboard.HARNESS) <= perfboard.LAYOUT["J3"][3]


def test_layout_check_catches_a_part_under_the_devkit(monkeypatch):
    monkeypatch.setitem(perfboard.LAYOUT, "C1", (3, 5, 2, 1))
    assert perfboard.cells("C1") & perfboard.esp_cells()


def test_schematic_and_layout_render(tmp_path):
    pytest.importorskip("schemdraw")
    schematic.draw(tmp_path / "s.png")
    perfboard.draw(tmp_path / "p.png")
    assert (tmp_path / "s.png").stat().st_size > 20_000 and (tmp_path / "p.png").stat().st_size > 10_000
