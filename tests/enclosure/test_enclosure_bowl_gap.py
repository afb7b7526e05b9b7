"""The gap round the bowl: nothing may carry load past the load cell, now or with a crumb in it.

- The floating parts (bowl, spacer, pole) keep CLEARANCE (1 mm) from the base and the lid over the
  bowl's whole travel: at rest, and resting on the overload stop (STOP_GAP = 0.5 mm lower; the
  cell itself deflects far less at its rated load: enclosure/stop.py, from the TAL220's 1 mV/V).
- The rim gap (lid opening / bowl wall) is narrowest at the lid's top face and widens downwards
  (the bowl's 8 deg draft): a crumb small enough to enter cannot wedge, it falls through.
- Below the gap, every fixed thing a falling crumb can land on (the base, the boards, the harness)
  is farther from the bowl than the crumb that got in: it cannot touch both.
Each check has its planted fault: a bowl that sags onto the tower, a bowl drafted the wrong way,
a shelf under the gap."""
import math
from pathlib import Path

import pytest

cq = pytest.importorskip("cadquery")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import components, model, stop  # noqa: E402
from enclosure import params as P  # noqa: E402
from enclosure.geom import cyl  # noqa: E402

pytestmark = pytest.mark.enclosure
CLEARANCE = 1.0
FLOATING = ("bowl", "spacer", "pole")
TRAVEL = (0.0, P.STOP_GAP)      # the bowl at rest, and down on the overload stop


@pytest.fixture(scope="module")
def parts():
    return {n: model.build_part(n) for n in ("base", "lid", "bowl", "spacer", "pole")}


def _lowered(shape, d):
    return shape.translate(cq.Vector(0, 0, -d))


def _min_clearance(parts, d):
    return min(_lowered(parts[f], d).distance(parts[x]) for f in FLOATING for x in ("base", "lid"))


@pytest.mark.parametrize("d", TRAVEL)
def test_floating_parts_stay_clear_over_the_whole_travel(parts, d):
    assert stop.worst_deflection_mm() < P.STOP_GAP, "the cell deflects past the stop in play"
    c = _min_clearance(parts, d)
    assert c >= CLEARANCE, f"{c:.2f} mm between the bowl's parts and base/lid, {d} mm down"


def test_travel_check_fails_on_a_sagging_bowl(parts):
    """Planted fault: a bowl 2 mm lower than the tower allows (the old 0 mm reed gap)."""
    assert _min_clearance(parts, P.REED_GAP) < CLEARANCE


def _ring(z, h=0.05):
    """A thin slice of the lid's opening face at height z (what a crumb could lean on)."""
    r = P.LID_OPENING_R
    return cyl(r + 1.0, z, z + h).cut(cyl(r, z - 1, z + h + 1))


def rim_gaps(bowl_solid, d):
    """Distance from the bowl (d mm down) to the lid's opening face, top to bottom of the lid."""
    b = _lowered(bowl_solid, d)
    zs = [P.LID_TOP - 0.05 - i * (P.LID_T - 0.1) / 8 for i in range(9)]
    return [b.distance(_ring(z)) for z in zs]


def _widens_downwards(gaps):
    return all(lo >= hi - 1e-6 for hi, lo in zip(gaps, gaps[1:]))


@pytest.mark.parametrize("d", TRAVEL)
def test_rim_gap_widens_downwards(parts, d):
    gaps = rim_gaps(parts["bowl"], d)
    assert _widens_downwards(gaps), [round(g, 3) for g in gaps]
    # The narrowest, at the top: the design's 3 mm less what the drafted wall gains going down.
    top = P.LID_OPENING_GAP - d * math.tan(math.radians(P.BOWL_DRAFT_DEG))
    assert gaps[0] == pytest.approx(top * math.cos(math.radians(P.BOWL_DRAFT_DEG)), abs=0.03)
    assert gaps[0] >= 2 * CLEARANCE


def test_gap_check_fails_on_a_wall_leaning_in():
    """Planted fault: a bowl wall leaning in by the same 8 deg (wider below the lid's top face):
    the gap narrows downwards, a wedge."""
    t = math.tan(math.radians(P.BOWL_DRAFT_DEG))
    z0, z1 = P.LID_Z0 - 10.0, P.LID_TOP + 5.0
    r_top = P.bowl_outer_r(P.LID_TOP)
    wall = cq.Solid.makeCone(r_top + (P.LID_TOP - z0) * t, r_top - (z1 - P.LID_TOP) * t, z1 - z0,
                             cq.Vector(0, 0, z0))
    assert not _widens_downwards(rim_gaps(wall, 0.0))


def _fall_column():
    """Where crumbs that pass the rim gap fall: under the gap, down to the floor."""
    r_in = P.bowl_outer_r(P.LID_TOP)
    return cyl(P.LID_OPENING_R, 0.0, P.LID_Z0).cut(cyl(r_in, -1.0, P.LID_Z0 + 1))


def _landing_clearance(parts, fixed):
    """Least distance from the lowered bowl to what of each fixed thing lies under the gap."""
    col = _fall_column()
    b = _lowered(parts["bowl"], P.STOP_GAP)
    out = {}
    for name, solid in fixed.items():
        under = solid.intersect(col)
        if under.Volume() > 1e-6:
            out[name] = b.distance(under)
    return out


def _fixed(parts):
    return {"base": parts["base"], "carrier": components.carrier(), "ESP32": components.esp32(),
            "HX711": components.hx711(), "harness": components.harness()}


def test_what_crumbs_land_on_is_farther_from_the_bowl_than_a_crumb(parts):
    crumb = P.LID_OPENING_GAP      # the largest crumb that passes the gap
    landing = _landing_clearance(parts, _fixed(parts))
    assert "base" in landing, "the fall column misses the floor"
    for name, d in landing.items():
        assert d > crumb, f"a {crumb} mm crumb on the {name} ({d:.1f} mm from the bowl) touches both"


def test_landing_check_fails_on_a_shelf_under_the_gap(parts):
    """Planted fault: a ledge fixed 2 mm under the lid, reaching 2 mm from the bowl."""
    z = P.LID_Z0 - 4.0
    shelf = cyl(P.LID_OPENING_R + 5, z, z + 2).cut(cyl(P.bowl_outer_r(z) + 2.0, z - 1, z + 3))
    fixed = _fixed(parts) | {"shelf": shelf}
    landing = _landing_clearance(parts, fixed)
    assert landing["shelf"] <= P.LID_OPENING_GAP
