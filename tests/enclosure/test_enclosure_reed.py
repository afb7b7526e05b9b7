"""The pole's reed switch, checked with a field simulation (enclosure/reed.py, magpylib).

Each check compares the magnetomotive force along the reed's glass (ampere-turns) with the reed's
rating converted for its glass length (Littelfuse AN102A / Dexter Magnetics' long-coil formula):
- seated anywhere in the socket's play and tilt: above 2 x the band's top pull-in (closes for sure);
- leaning from the socket on the rim (allowed by the rules): above the top pull-in (stays closed);
- lifted out of the nest, or fallen (foot on the bowl's wall or over the rim): below the lowest
  drop-out (open for sure).
The planted faults: the OLD arrangement (flat reed centred under the magnet) and the OLD magnet
(6 x 3 mm N35) fail the seated check; magpylib is checked against the closed-form on-axis field.
"""
import math
from pathlib import Path

import pytest

pytest.importorskip("magpylib")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import params as P  # noqa: E402
from enclosure import reed  # noqa: E402

pytestmark = pytest.mark.enclosure
BR_LO, BR_HI = P.MAGNET_BR_T


def test_magpylib_matches_the_closed_form_on_axis_field():
    """An independent model: on the axis of an axially magnetised cylinder (radius R, length L),
    at z from its face, B = Br/2 ((L + z)/sqrt(R^2 + (L + z)^2) - z/sqrt(R^2 + z^2)) (e.g. the
    formula in supermagnete's and K&J Magnetics' field calculators). Catches unit slips (mm/m)."""
    import numpy as np

    mag = reed.magnet((0, 0, 0), (0, 0, 1), BR_LO)
    s, b = reed.axial_field(mag)
    r, length = P.MAGNET_DIA / 2, P.MAGNET_H
    z = reed.REED_DEPTH + P.MAGNET_CAPTURE + s          # from the magnet's lower face
    closed = BR_LO / 2 * ((length + z) / np.sqrt(r * r + (length + z) ** 2) - z / np.sqrt(r * r + z * z))
    assert b == pytest.approx(closed, rel=1e-4)


@pytest.mark.parametrize("pose", reed.seated_poses(), ids=lambda p: f"foot{tuple(round(c, 2) for c in p[0])}")
def test_seated_pole_closes_the_reed(pose):
    at = reed.mmf(pose, BR_LO)
    assert at >= reed.pull_in_at(), f"{at:.1f} AT along the glass < {reed.pull_in_at():.1f} AT"


def test_pole_leaning_on_the_rim_keeps_it_closed():
    worst = min(reed.mmf(p, BR_LO) for p in reed.lean_poses())
    assert worst >= reed.hold_at(), f"{worst:.1f} AT < {reed.hold_at():.1f}: leaning would sound the alarm"
    assert 50 < reed.rim_tilt_deg() < 60      # 70 mm across, 47 mm up: the geometry is the bowl's


def test_pole_lifted_out_of_the_nest_opens_it():
    at = reed.mmf(reed.lifted(reed.LIFT_OUT), BR_HI)
    assert at <= reed.drop_out_at(), f"{at:.1f} AT > drop-out {reed.drop_out_at():.1f} AT"
    assert reed.opening_lift_mm() < reed.LIFT_OUT


def test_fallen_pole_opens_it():
    worst = max(reed.mmf(p, BR_HI) for p in reed.fallen_poses())
    assert worst <= reed.drop_out_at(), f"a fallen pole leaves {worst:.1f} AT on the reed"
    assert reed.opening_offset_mm() < P.BOWL_R_FLOOR


def test_a_pole_out_of_its_socket_tips_over_the_rim():
    """Why the fallen poses may start at the floor's edge: leaning on the rim, the pole's centre of
    mass lies beyond the rim contact, so once the foot is out of the socket nothing holds it."""
    cm, contact = reed.tips_over_the_rim()
    assert cm > contact, f"centre of mass {cm:.0f} mm, rim contact {contact:.0f} mm along the pole"


def test_old_flat_arrangement_never_closes():
    """Planted fault: the reed flat along x centred under the vertical magnet (the old design).
    Both blades see the same pole: the field along the reed changes sign at its middle and the
    mmf is near zero, far below pull-in, over the socket's whole play."""
    for pose in reed.seated_poses()[:9]:
        assert reed.mmf(pose, BR_HI, "flat") < reed.pull_in_at() / 4


def test_old_magnet_fails_the_seated_check(monkeypatch):
    """Planted fault: the old 6 x 3 mm N35 disc (Br 1.17 T, the grade's minimum), even upright."""
    monkeypatch.setattr(P, "MAGNET_H", 3.0)
    monkeypatch.setattr(reed, "MAGNET_OFFSET", P.MAGNET_CAPTURE + 1.5)
    assert reed.mmf(reed.seated(), 1.17) < reed.pull_in_at()


def test_where_it_breaks():
    """Sweep to the extremes: seated, the design still closes a reed whose band tops out 5 AT
    higher (the next band up); lifted out, it opens any reed whose drop-out is at least the one
    assumed (docs: the band limits, enclosure/ASSEMBLY.md)."""
    seated = min(reed.mmf(p, BR_LO) for p in reed.seated_poses())
    limit = seated / reed.ONE_POLE_FACTOR * reed.COIL_LEN[0] / P.REED_GLASS_LEN
    assert limit >= P.REED_PULL_IN_AT[1] + 5
    lifted = reed.mmf(reed.lifted(reed.LIFT_OUT), BR_HI) * reed.COIL_LEN[1] / P.REED_GLASS_LEN
    assert lifted <= P.REED_DROP_OUT_AT_MIN
    assert math.isfinite(limit) and lifted > 0
