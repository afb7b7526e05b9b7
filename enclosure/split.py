"""Base and lid cut in four for a 220 x 220 mm bed. The base: joint blocks on the floor straddle
the two seams, each with an M3 bolt across the seam and a 4 mm dowel pin that keys the pieces in
line. The lid: a dovetail through the plate at each seam.

The one-piece parts (base.py, lid.py) stay as they are; this module adds the joints and cuts
them along params.SPLIT_SEAM_* (base) and LID_SEAM_* (lid). Pieces are numbered 1 front-left,
2 front-right, 3 back-left, 4 back-right (seen from above, front = buttons).
"""
import math

import cadquery as cq

from . import base
from . import params as P
from .geom import box, cut_all, fuse_all, single_solid

_IN_X = P.BASE_W / 2 - P.WALL                 # inner face of the side walls
_IN_Y0 = P.BASE_Y0 + P.WALL                   # inner face of the front wall
_END = P.JOINT_LEN / 2


def joints():
    """(seam, centre along the seam) of every joint: seam "x" is the plane x = SPLIT_SEAM_X (the
    centre is a y), seam "y" the plane y = SPLIT_SEAM_Y (the centre is an x). Placed against the
    walls and between the floor's features; none on the x seam's back half, where the harness's
    wire way crosses it (test_enclosure_geometry's wire-way test) and the lid's lip holds it."""
    return [("x", _IN_Y0 + _END), ("x", -65.0), ("x", 40.0),
            ("y", -_IN_X + _END), ("y", -55.0), ("y", 60.0), ("y", _IN_X - _END)]


def _frame(seam, c):
    """(origin on the seam, normal across it, direction along it) of a joint, all (x, y, z)."""
    if seam == "x":
        return (P.SPLIT_SEAM_X, c, P.JOINT_HOLE_Z), (1, 0, 0), (0, 1, 0)
    return (c, P.SPLIT_SEAM_Y, P.JOINT_HOLE_Z), (0, 1, 0), (1, 0, 0)


def _at(o, n, t, across, along):
    return cq.Vector(o[0] + n[0] * across + t[0] * along, o[1] + n[1] * across + t[1] * along, o[2])


def block(seam, c):
    o, n, t = _frame(seam, c)
    a, b = _at(o, n, t, -P.JOINT_HALF, -_END), _at(o, n, t, P.JOINT_HALF, _END)
    return box(min(a.x, b.x), min(a.y, b.y), P.FLOOR, max(a.x, b.x), max(a.y, b.y), P.FLOOR + P.JOINT_H)


def bolt_axis(seam, c):
    """(start, direction, length) of the bolt's clearance hole: through the whole block."""
    o, n, t = _frame(seam, c)
    return _at(o, n, t, -P.JOINT_HALF, -P.JOINT_SPACING / 2), cq.Vector(*n), 2 * P.JOINT_HALF


def pin_axis(seam, c):
    """(start, direction, length) of the pin's bore: JOINT_PIN_DEPTH into each piece."""
    o, n, t = _frame(seam, c)
    return _at(o, n, t, -P.JOINT_PIN_DEPTH, P.JOINT_SPACING / 2), cq.Vector(*n), 2 * P.JOINT_PIN_DEPTH


def _rod(r, axis, grow=0.0):
    start, d, length = axis
    return cq.Solid.makeCylinder(r, length + 2 * grow, start - d * grow, d)


def pin(seam, c):
    """The dowel pin in place, centred on the seam."""
    start, d, length = pin_axis(seam, c)
    mid = start + d * (length / 2)
    return cq.Solid.makeCylinder(P.JOINT_PIN_DIA / 2, P.JOINT_PIN_LEN, mid - d * (P.JOINT_PIN_LEN / 2), d)


def holes(pin_depth=P.JOINT_PIN_DEPTH):
    out = []
    for j in joints():
        out.append(_rod(P.JOINT_BOLT_CLEAR / 2, bolt_axis(*j), grow=1.0))
        start, d, _length = pin_axis(*j)
        shift = P.JOINT_PIN_DEPTH - pin_depth
        out.append(cq.Solid.makeCylinder(P.JOINT_PIN_BORE / 2, P.JOINT_PIN_DEPTH + pin_depth,
                                         start + d * shift, d))
    return out


def jointed_base(pin_depth=P.JOINT_PIN_DEPTH):
    """The one-piece base with the joint blocks and their holes (what the pieces are cut from)."""
    body = fuse_all(base.build(), [block(*j) for j in joints()])
    return single_solid(cut_all(body, holes(pin_depth)))


def quadrant(i, seam_x=None, seam_y=None):
    """Box of piece i (1 front-left, 2 front-right, 3 back-left, 4 back-right) beyond the part,
    cut at the base's seams unless others are given."""
    sx = P.SPLIT_SEAM_X if seam_x is None else seam_x
    sy = P.SPLIT_SEAM_Y if seam_y is None else seam_y
    big = 1000.0
    x0, x1 = (-big, sx) if i in (1, 3) else (sx, big)
    y0, y1 = (-big, sy) if i in (1, 2) else (sy, big)
    return box(x0, y0, -big, x1, y1, big)


def pieces(whole=None):
    """The four pieces, each one solid, in assembly position."""
    whole = whole if whole is not None else jointed_base()
    return [single_solid(whole.intersect(quadrant(i))) for i in (1, 2, 3, 4)]


def joint_volume():
    """Volume the joints add to the base, from the parameters (blocks minus bolt holes and bores)."""
    blk = P.JOINT_LEN * 2 * P.JOINT_HALF * P.JOINT_H
    bolt = math.pi / 4 * P.JOINT_BOLT_CLEAR ** 2 * 2 * P.JOINT_HALF
    bore = math.pi / 4 * P.JOINT_PIN_BORE ** 2 * 2 * P.JOINT_PIN_DEPTH
    return len(joints()) * (blk - bolt - bore)


def fits_bed(w, d, bed=P.SPLIT_BED, margin=P.SPLIT_BED_MARGIN):
    """Whether a w x d footprint fits the bed (either way round) with the margin on every side."""
    a, b = sorted((w, d)), sorted(bed)
    return a[0] <= b[0] - 2 * margin and a[1] <= b[1] - 2 * margin


# --- the lid ---------------------------------------------------------------------------------------

def lid_dovetails():
    """(seam, centre along the seam, direction into the receiving piece, giver, taker) of each
    dovetail; pieces numbered as for the base (1 front-left ... 4 back-right), seams LID_SEAM_*.
    Each sits on plate material clear of tile seats, buttons and screws (tested)."""
    return [("x", 106.0, +1, 3, 4), ("x", -94.0, +1, 1, 2),
            ("y", -108.0, -1, 3, 1), ("y", 108.0, -1, 4, 2)]


def _dovetail_solid(seam, c, sign, grow=0.0, w_tip=None):
    w0, w1, d = P.DOVETAIL
    w1 = w1 if w_tip is None else w_tip
    pts = [(-grow, -(w0 / 2 + grow)), (d + grow, -(w1 / 2 + grow)), (d + grow, w1 / 2 + grow),
           (-grow, w0 / 2 + grow)]
    if seam == "x":
        xy = [(P.LID_SEAM_X + sign * u, c + v) for u, v in pts]
    else:
        xy = [(c + v, P.LID_SEAM_Y + sign * u) for u, v in pts]
    wire = cq.Workplane("XY").workplane(offset=P.LID_Z0).polyline(xy).close()
    return wire.extrude(P.LID_T).val()


def lid_quadrant(i):
    return quadrant(i, P.LID_SEAM_X, P.LID_SEAM_Y)


def lid_pieces(whole=None, w_tip=None):
    """The lid's four pieces in assembly position: each quarter with its dovetails (given) and
    their slots (taken), grown by DOVETAIL_GAP."""
    from . import lid

    whole = whole if whole is not None else lid.build()
    out = []
    for i in (1, 2, 3, 4):
        piece = whole.intersect(lid_quadrant(i))
        tabs = [_dovetail_solid(s, c, sg, w_tip=w_tip)
                for s, c, sg, giver, _t in lid_dovetails() if giver == i]
        slots = [_dovetail_solid(s, c, sg, P.DOVETAIL_GAP, w_tip=w_tip)
                 for s, c, sg, _g, taker in lid_dovetails() if taker == i]
        out.append(single_solid(cut_all(fuse_all(piece, tabs), slots)))
    return out
