"""One wiring truth: enclosure/circuit.py describes the circuit once; the harness diagram
(wiring.py / wiring.yml), the carrier's layout and wires (perfboard.py), the schematic's netlist
and BOM.md's electronics rows are generated from it, and each is checked back against it and
against firmware/gulo/board.py's PINS here. Every check has a planted fault beside it."""
import copy
import re
from pathlib import Path

import pytest

pytest.importorskip("cadquery")      # the enclosure package's tests run with its CAD installed

from enclosure import circuit, perfboard, schematic, wiring  # noqa: E402
from gulo import board  # noqa: E402

pytestmark = pytest.mark.enclosure
ROOT = Path(__file__).resolve().parents[2]
BOM = (ROOT / "enclosure" / "BOM.md").read_text()


def _net_of(part, pin, nets):
    found = [n for n, members in nets.items() if (part, pin) in members]
    return found[0] if len(found) == 1 else f"{part}.{pin} on {found}"


# -- the pin map ------------------------------------------------------------------------------------

def pin_map_problems(nets):
    out = []
    holes = circuit.devkit_holes()
    for name, gpio in board.PINS.items():
        net = circuit.gpio_net(name)
        if ("U1", f"GPIO{gpio}") not in nets.get(net, []):
            out.append(f"{name}: GPIO{gpio} not on its net")
        if f"GPIO{gpio}" not in holes:
            out.append(f"{name}: GPIO{gpio} is not on the DevKitC's headers")
        off = [p for p, _ in nets.get(net, []) if p not in ("U1", "J3") and circuit.place(p) != "carrier"]
        on_j3 = [pin for p, pin in nets.get(net, []) if p == "J3"]
        if bool(off) != (len(on_j3) == 1):
            out.append(f"{name}: drives {off or 'only carrier parts'} but has J3 pins {on_j3}")
    return out


def test_every_pin_of_the_pin_map_reaches_its_part_through_j3_or_on_the_carrier():
    assert pin_map_problems(circuit.nets()) == []
    nets = circuit.nets()
    led = nets[circuit.gpio_net("ONBOARD_LED")]
    assert not any(p == "J3" for p, _ in led), "GPIO2's LED is on the carrier"
    assert not any(p == "J3" for p, _ in nets[circuit.gpio_net("BUZZER")]), "the piezo is on the carrier"
    assert _net_of("R1", "2", nets) == circuit.gpio_net("REED") and circuit.place("R1") == "carrier"
    assert _net_of("U3", "VDD", nets) == "+3V3", "SEN-13879's VDD tied to 3V3"


def test_a_gpio_off_the_devkit_headers_is_caught(monkeypatch):
    monkeypatch.setitem(board.PINS, "REED", 20)          # no GPIO20 on an ESP32-WROOM's headers
    assert any("GPIO20" in p for p in pin_map_problems(circuit.nets()))


# -- the harness diagram ---------------------------------------------------------------------------------

def harness_problems(doc, nets):
    """Follow every wire of the WireViz harness back to the circuit."""
    out = []
    j3 = doc["connectors"]["J3"]
    want = [n or "spare" for n in circuit.j3_pins()]
    if j3["pinlabels"] != want:
        out.append(f"J3's labels {j3['pinlabels']} are not the circuit's {want}")
    back = {v: k for k, v in wiring.PIXEL_PIN.items()}
    seen = set()
    for a, _cable, b in doc["connections"]:
        if "J3" not in a:
            continue
        (far, (far_pin,)), = b.items()
        k = a["J3"][0]
        part, pin = back.get(far_pin, (far, str(far_pin))) if far == "PIXEL1" else (far, str(far_pin))
        seen.add(k)
        if _net_of(part, pin, nets) != want[k - 1]:
            out.append(f"J3.{k} ({want[k - 1]}) is wired to {part}.{pin} on {_net_of(part, pin, nets)}")
    missing = [k for k, n in enumerate(want, 1) if n != "spare" and k not in seen]
    if missing:
        out.append(f"J3 pins {missing} have no wire")
    grounds = sum(1 for n in want if n == "GND")
    # one return per device at the far end (the first pixel with R3 is one; the buttons share one)
    buttons = {f"SW{i + 2}" for i in range(len(circuit.BUTTONS))}
    devices = {"buttons" if p in buttons else wiring._far(p, pin)[0] for _, p, pin, _ in circuit.harness()}
    if grounds != len(devices):
        out.append(f"J3 has {grounds} GND pins for {len(devices)} ground returns")
    return out


def test_the_committed_yaml_is_generated_from_the_circuit():
    assert wiring.YAML_PATH.read_text() == wiring.dump(), "run .venv/bin/python -m enclosure.wiring"


def test_the_harness_diagram_is_the_circuit():
    assert harness_problems(wiring.describe(), circuit.nets()) == []
    doc = wiring.describe()
    assert "jumper VCC to VDD" in doc["connectors"]["U3"]["notes"]
    assert "BUZZER" not in str(doc["connections"]) and "SW1" in doc["connectors"]
    assert doc["connectors"]["SW1"]["pins"] == [1, 2], "the reed has two wires: its pull-up is on the carrier"


def test_a_miswired_harness_is_caught():
    doc = copy.deepcopy(wiring.describe())
    reed = next(c for c in doc["connections"] if "SW1" in c[2] and c[2]["SW1"] == [1])
    reed[2] = {"SW2": [1]}                                     # the reed's wire to a button
    assert any("J3" in p for p in harness_problems(doc, circuit.nets()))
    doc = copy.deepcopy(wiring.describe())
    doc["connectors"]["J3"]["pinlabels"][0] = "GND"
    assert harness_problems(doc, circuit.nets())


def test_a_moved_gpio_leaves_the_committed_diagram_stale(monkeypatch):
    monkeypatch.setitem(board.PINS, "REED", 13)
    assert wiring.YAML_PATH.read_text() != wiring.dump()


def test_rendered_diagram_names_every_harness_net(tmp_path):
    pytest.importorskip("wireviz")
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot not installed")
    wiring.render(tmp_path)
    svg = (tmp_path / "wiring.svg").read_text()
    for net in circuit.j3_pins():
        if net and net.startswith("GPIO"):
            assert net in svg, f"{net} not in the rendered diagram"


# -- the carrier -------------------------------------------------------------------------------------

def carrier_problems(wires, nets, holes):
    """The carrier's wires join exactly the circuit's nets: each net's carrier pins connected,
    no two nets joined, every carrier pin in a hole."""
    parent = {}

    def find(h):
        parent.setdefault(h, h)
        while parent[h] != h:
            h = parent[h]
        return h

    for _net, a, b in wires:
        parent[find(a)] = find(b)
    out = []
    group_net = {}
    for net, members in nets.items():
        pts = []
        for part, pin in members:
            if part == "U1":
                h = perfboard._u1_hole(pin, holes)
            elif part in perfboard.LAYOUT:
                h = holes.get((part, pin))
                if h is None:
                    out.append(f"{part}.{pin} ({net}) has no hole on the carrier")
                    continue
            else:
                continue
            pts.append(h)
        roots = {find(h) for h in pts}
        if len(roots) > 1:
            out.append(f"{net}: its carrier pins are not all joined")
        for r in roots:
            if group_net.setdefault(r, net) != net:
                out.append(f"{net} is joined to {group_net[r]}")
    return out


def test_the_carrier_wires_join_exactly_the_circuits_nets():
    assert carrier_problems(perfboard.wires(), circuit.nets(), perfboard.pin_holes()) == []
    assert perfboard.HARNESS == [n or "spare" for n in circuit.j3_pins()]
    holes = perfboard.pin_holes()
    assert len(set(holes.values())) == len(holes), "two pins in one hole"


def test_a_missing_or_crossed_carrier_wire_is_caught():
    wires = perfboard.wires()
    reed = next(w for w in wires if w[0] == circuit.gpio_net("REED"))
    assert carrier_problems([w for w in wires if w != reed], circuit.nets(), perfboard.pin_holes())
    holes = perfboard.pin_holes()
    crossed = wires + [("oops", holes[("R1", "2")], holes[("R4", "1")])]
    assert any("joined to" in p for p in carrier_problems(crossed, circuit.nets(), holes))


def test_the_schematic_draws_the_circuit():
    assert schematic.netlist() == circuit.nets()
    assert {r: v[0] for r, v in schematic.PARTS.items()} == {r: v[0] for r, v in circuit.PARTS.items()}
    import inspect

    src = inspect.getsource(schematic.draw)
    assert "Tristate(outputnot=False" in src, "U2 is a buffer: no inverter bubble on its output"


# -- the bill of materials ---------------------------------------------------------------------------

def bom_problems(text):
    m = re.search(r"<!-- circuit-bom:start -->\n(.*?)<!-- circuit-bom:end -->", text, re.S)
    if not m:
        return ["no circuit-bom markers in BOM.md"]
    out = []
    if m.group(1) != circuit.bom_table():
        out.append("BOM.md's electronics table is not circuit.bom_table(): regenerate it")
    listed = {r.strip() for line in m.group(1).splitlines()[2:] for r in line.split("|")[1].split(",")}
    missing = set(circuit.PARTS) - listed
    if missing:
        out.append(f"parts with no BOM row: {sorted(missing)}")
    return out


def test_every_part_has_its_bom_row():
    assert bom_problems(BOM) == []
    for refs, _item, spec, _pack, _eur in circuit.BOM:
        assert spec and not spec.isspace(), refs


def test_a_stale_bom_is_caught():
    stale = BOM.replace("SN74AHCT125N", "74AHCT1G125")
    assert bom_problems(stale)
    row = next(line for line in BOM.splitlines() if line.startswith("| Q1 |"))
    assert any("Q1" in p for p in bom_problems(BOM.replace(row + "\n", "")))
