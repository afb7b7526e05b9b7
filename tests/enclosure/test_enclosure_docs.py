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


# What ASSEMBLY.md may ask a maker to use, each as the words it is named by there and in BOM.md.
CONSUMABLES = ("epoxy", "beech dowel", "hot glue", "heat-shrink", "brass washer", "CA glue",
               "thread-locker", "zip tie", "brass rod", "feeler gauge", "hex key", "solder", "Dupont",
               "dowel pin", "M3 x 25", "M4 x 12", "M4 x 16", "M3 x 10", "set screw", "magnet",
               "perfboard", "kitchen scale", "pocket scale", "wire", "filament", "heat-shrink")


def consumables_missing(assembly, bom):
    return [c for c in CONSUMABLES if c.lower() in assembly.lower() and c.lower() not in bom.lower()]


def test_every_consumable_the_guide_uses_is_on_the_bom():
    named = [c for c in CONSUMABLES if c.lower() in ASSEMBLY.lower()]
    assert len(named) >= 15, f"the vocabulary no longer matches the guide: {named}"
    assert consumables_missing(ASSEMBLY, BOM) == []


def test_a_consumable_missing_from_the_bom_is_caught():
    assert consumables_missing(ASSEMBLY, BOM.replace("epoxy", "glue")) == ["epoxy"]
