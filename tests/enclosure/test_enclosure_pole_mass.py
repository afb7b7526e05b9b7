"""The pole's mass (enclosure/pole_mass.py): from the CAD volume, PLA 1.24 g/cm3 (Ingeo 4043D),
NdFeB 7.50-7.65 g/cm3, beech 0.65-0.75 g/cm3 and brass 8.44 g/cm3 (params.py names each source),
the brass rod that brings the pole to the weigher's POLE_G fits its bore for every plausible print
and dowel, and the pole then weighs POLE_G within the eggs' tolerance."""
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from enclosure import params as P  # noqa: E402
from enclosure import pole, pole_mass  # noqa: E402
from gulo.weigher import DEFAULT_MASSES, POLE_G  # noqa: E402
from nest.cmd_calibrate import egg_tolerance_g  # noqa: E402

pytestmark = pytest.mark.enclosure
TOL = egg_tolerance_g(DEFAULT_MASSES)


def test_magnet_mass_from_its_volume():
    assert pole_mass.magnet_g(7.5) == pytest.approx(math.pi * 9 * 20 * 7.5e-3, rel=1e-9)   # 4.24 g


def test_unballasted_pole_is_lighter_than_the_weigher_expects():
    """Why the ballast exists: no plausible pole reaches POLE_G on its own, and the lightest misses
    it by far more than the tolerance (the weigher would see every pole-out level shifted)."""
    for name, m, _rod in pole_mass.cases():
        assert m < POLE_G - TOL, f"{name}: {m:.1f} g"


@pytest.mark.parametrize("case", pole_mass.cases(), ids=lambda c: c[0])
def test_the_brass_fits_and_brings_the_pole_to_pole_g(case):
    name, m, rod = case
    assert rod > 0
    if name.startswith("printed"):
        assert rod <= pole_mass.room_mm(), f"{name}: {rod:.0f} mm of rod, the bore takes less"
    else:   # the dowel's bore is drilled to the rod: within a jobber drill's flute
        assert rod + P.POLE_PLUG_H <= pole_mass.DRILL_FLUTE_MM
    # Cut to the nearest 0.5 mm (a hacksaw and a file), the pole is within the tolerance.
    cut = round(rod * 2) / 2
    assert abs(m + cut * pole_mass.rod_g_per_mm() - POLE_G) <= TOL


def test_the_bore_keeps_its_walls():
    assert (P.POLE_DIA - P.POLE_BALLAST_BORE) / 2 >= P.MIN_WALL
    # It ends well above the magnet's cavity.
    assert P.POLE_LEN - P.POLE_BALLAST_LEN > P.MAGNET_CAPTURE + pole.MAGNET_POCKET_H + P.MIN_WALL


def test_the_fit_check_fails_with_aluminium_ballast(monkeypatch):
    """Planted fault: aluminium rod (2.70 g/cm3) cannot bring a light print to 25 g in the bore."""
    monkeypatch.setattr(P, "BRASS_DENSITY", 2.70)
    light = pole_mass.cases()[0]
    assert light[2] > pole_mass.room_mm()


def test_the_mass_check_fails_on_the_old_25_g_assumption():
    """Planted fault: a pole left without ballast (the old guide) is off by more than the tolerance."""
    _name, m, _rod = pole_mass.cases()[1]
    assert abs(m - POLE_G) > TOL


def test_the_guide_shows_the_current_table():
    guide = (ROOT / "enclosure" / "ASSEMBLY.md").read_text()
    assert "\n".join("    " + line for line in pole_mass.table().splitlines()) in guide, (
        "run .venv/bin/python -m enclosure.pole_mass and copy the table into ASSEMBLY.md step 11")
