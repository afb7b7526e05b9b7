"""The base cut in four for a 220 x 220 mm bed (enclosure/split.py): each piece fits the bed, the
pieces rebuild the whole base, the dowel pins key them, the bolts and pins have material round
them, and the joints stay clear of everything in the box.

Figures: the bed 220 x 220 mm (Creality Ender-3 spec sheet) less a 5 mm margin a side (ASSUMED,
params.SPLIT_BED_MARGIN); MIN_WALL 1.6 mm (4 perimeters of a 0.4 mm nozzle, params.py)."""
from pathlib import Path

import pytest

cq = pytest.importorskip("cadquery")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import base, build, components, split  # noqa: E402
from enclosure import params as P  # noqa: E402

pytestmark = pytest.mark.enclosure


@pytest.fixture(scope="module")
def whole():
    return split.jointed_base()


@pytest.fixture(scope="module")
def pieces(whole):
    return split.pieces(whole)


def _footprint(solid):
    bb = build.exact_bbox(build.print_pose("base", solid))
    return bb.xlen, bb.ylen, bb.zlen


def test_each_piece_fits_a_220_bed(pieces):
    for i, piece in enumerate(pieces, 1):
        assert piece.isValid() and len(piece.Solids()) == 1, f"piece {i} is not one valid solid"
        w, d, h = _footprint(piece)
        assert split.fits_bed(w, d), f"piece {i} is {w:.0f} x {d:.0f} mm"
        assert h <= 250.0     # Ender-3 build height


def test_the_bed_check_fails_on_the_whole_base_and_on_any_halving():
    """Planted faults: the one-piece base, and either cut in two, do not fit: a half keeps one full
    side of the 240 x 250 mm footprint."""
    assert not split.fits_bed(P.BASE_W, P.BASE_D)
    assert not split.fits_bed(P.BASE_W / 2, P.BASE_D)
    assert not split.fits_bed(P.BASE_W, P.BASE_D / 2)


def test_the_pieces_rebuild_the_whole_base(whole, pieces):
    """Their volumes add up to the jointed base; the jointed base is the one-piece base plus the
    joints' blocks (less their holes) computed from the parameters; nothing of the one-piece base
    is missing from the pieces and no two pieces overlap."""
    assert sum(p.Volume() for p in pieces) == pytest.approx(whole.Volume(), rel=1e-7)
    assert whole.Volume() == pytest.approx(base.expected_volume() + split.joint_volume(), rel=1e-6)
    assert base.build().cut(*pieces).Volume() < 1e-3
    # ... a check that sees a missing piece (planted fault: piece 4 left out):
    assert base.build().cut(*pieces[:3]).Volume() > 1e4
    for a in range(4):
        for b in range(a + 1, 4):
            common = pieces[a].intersect(pieces[b])
            assert common.Volume() < 1e-6, f"pieces {a + 1} and {b + 1} overlap"


def _pieces_of(seam, c):
    """The indexes (0-3) of the two pieces a joint joins."""
    o = split.block(seam, c).Center()
    if seam == "x":
        side = 0 if o.y < P.SPLIT_SEAM_Y else 2
        return side, side + 1
    side = 0 if o.x < P.SPLIT_SEAM_X else 1
    return side, side + 2


def _engaged(pieces, seam, c):
    """The pin sits in both pieces without interference, and moved 0.2 mm along the seam or up it
    hits both: it keys them."""
    p = split.pin(seam, c)
    pair = [pieces[i] for i in _pieces_of(seam, c)]
    _o, _n, t = split._frame(seam, c)
    if any(p.intersect(piece).Volume() > 1e-4 for piece in pair):
        return False
    for shift in (cq.Vector(*t) * 0.2, cq.Vector(0, 0, 0.2), cq.Vector(*t) * -0.2):
        moved = p.translate(shift)
        if not all(moved.intersect(piece).Volume() > 1e-4 for piece in pair):
            return False
    return True


@pytest.mark.parametrize("joint", split.joints(), ids=lambda j: f"{j[0]}{j[1]:.0f}")
def test_the_pin_keys_the_pieces(pieces, joint):
    assert _engaged(pieces, *joint)
    assert P.JOINT_PIN_LEN / 2 <= P.JOINT_PIN_DEPTH, "the pin bottoms out before the seam closes"


def test_the_key_check_fails_with_a_bore_on_one_side_only():
    """Planted fault: the pin's bore drilled too deep on one side, leaving the other empty."""
    j = split.joints()[0]
    broken = split.pieces(split.jointed_base(pin_depth=-P.JOINT_PIN_DEPTH + 0.01))
    assert not _engaged(broken, *j)


def _walled(whole, axis, r, depth_extra=0.0):
    """Whether a tube of MIN_WALL round the hole (radius r along axis) lies inside the part."""
    start, d, length = axis
    ring = cq.Solid.makeCylinder(r + P.MIN_WALL, length + 2 * depth_extra, start - d * depth_extra, d)
    hole = cq.Solid.makeCylinder(r, length + 2 * depth_extra, start - d * depth_extra, d)
    tube = ring.cut(hole)
    return tube.cut(whole).Volume() < 1e-3


@pytest.mark.parametrize("joint", split.joints(), ids=lambda j: f"{j[0]}{j[1]:.0f}")
def test_bolts_and_pins_have_material_round_them(whole, joint):
    """MIN_WALL of material all round the bolt's hole and the pin's bore, and behind the bore's
    bottom (the tube is extended by MIN_WALL past both ends of the bore)."""
    assert _walled(whole, split.bolt_axis(*joint), P.JOINT_BOLT_CLEAR / 2)
    assert _walled(whole, split.pin_axis(*joint), P.JOINT_PIN_BORE / 2, depth_extra=P.MIN_WALL)


def test_the_wall_check_fails_on_a_low_block(monkeypatch):
    """Planted fault: a block only 8 mm tall leaves 0.95 mm over the bolt's hole."""
    monkeypatch.setattr(P, "JOINT_H", 8.0)
    j = split.joints()[0]
    assert not _walled(split.jointed_base(), split.bolt_axis(*j), P.JOINT_BOLT_CLEAR / 2)


def test_joints_clear_everything_in_the_box():
    """No block touches a bought part, the wire way, or the bowl and its load path."""
    envs = [components.harness(), components.load_cell(), components.esp32(), components.carrier(),
            components.hx711(), components.stop_screw(), components.reed_with_leads()]
    hx0, hy0, hz0, hx1, hy1, hz1 = P.harness_box()
    envs.append(cq.Solid.makeBox(hx1 - hx0 + 30.0, hy1 - hy0, hz1 - hz0, cq.Vector(hx0 - 30.0, hy0, hz0)))
    for j in split.joints():
        blk = split.block(*j)
        for env in envs:
            assert env.distance(blk) >= 1.0, f"joint {j} is {env.distance(blk):.2f} mm from a part"
        assert P.FLOOR + P.JOINT_H < P.BOWL_Z0 - 1.0


# --- the lid in four ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def the_lid():
    from enclosure import lid

    return lid.build()


@pytest.fixture(scope="module")
def lid_pieces(the_lid):
    return split.lid_pieces(the_lid)


def test_each_lid_piece_fits_a_220_bed_and_keeps_a_screw(lid_pieces):
    for i, piece in enumerate(lid_pieces, 1):
        assert piece.isValid() and len(piece.Solids()) == 1, f"lid piece {i} is not one solid"
        bb = build.exact_bbox(build.print_pose("lid", piece))
        assert split.fits_bed(bb.xlen, bb.ylen), f"lid piece {i} is {bb.xlen:.0f} x {bb.ylen:.0f} mm"
        # Each quarter is screwed to the base at its own corner.
        q = split.lid_quadrant(i)
        screws = [xy for xy in P.boss_centres() if q.isInside(cq.Vector(xy[0], xy[1], P.LID_Z0 + 1))]
        assert len(screws) == 1, f"lid piece {i} has {len(screws)} corner screws"


def test_the_lid_pieces_rebuild_the_lid(the_lid, lid_pieces):
    """Nothing of the lid is lost but the dovetails' clearance, and no two pieces overlap."""
    gaps = 0.0
    for seam, c, sign, _giver, taker in split.lid_dovetails():
        slot = split._dovetail_solid(seam, c, sign, P.DOVETAIL_GAP).intersect(split.lid_quadrant(taker))
        gaps += slot.Volume() - split._dovetail_solid(seam, c, sign).Volume()
    assert the_lid.Volume() - sum(p.Volume() for p in lid_pieces) == pytest.approx(gaps, rel=1e-6)
    assert the_lid.cut(*lid_pieces).Volume() == pytest.approx(gaps, rel=1e-6)
    for a in range(4):
        for b in range(a + 1, 4):
            assert lid_pieces[a].intersect(lid_pieces[b]).Volume() < 1e-6


def test_the_dovetails_sit_on_plate_with_material_round_them(the_lid):
    """Each tab replaces solid plate (no tile seat, button or screw under it), and MIN_WALL of
    plate surrounds each slot in the receiving piece."""
    for seam, c, sign, _giver, taker in split.lid_dovetails():
        tab = split._dovetail_solid(seam, c, sign)
        assert the_lid.intersect(tab).Volume() == pytest.approx(tab.Volume(), rel=1e-6)
        ring = split._dovetail_solid(seam, c, sign, P.DOVETAIL_GAP + P.MIN_WALL).intersect(
            split.lid_quadrant(taker))
        assert ring.cut(the_lid).Volume() < 1e-3, f"dovetail at {seam} {c}: thin plate round its slot"


def _interlocked(pieces, w_tip=None):
    """Pulled 1 mm apart across the seam, each giver's tab hits its taker (a dovetail holds)."""
    for seam, _c, sign, giver, taker in split.lid_dovetails():
        away = cq.Vector(-sign, 0, 0) if seam == "x" else cq.Vector(0, -sign, 0)
        if pieces[giver - 1].translate(away).intersect(pieces[taker - 1]).Volume() < 1.0:
            return False
    return True


def test_the_dovetails_hold_the_lid_together(lid_pieces):
    assert _interlocked(lid_pieces)


def test_the_dovetail_check_fails_on_straight_tabs(the_lid):
    """Planted fault: tabs as wide at the tip as at the root pull straight out."""
    assert not _interlocked(split.lid_pieces(the_lid, w_tip=P.DOVETAIL[0]))
