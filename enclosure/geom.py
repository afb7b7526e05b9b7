"""Small CadQuery helpers and the matching analytic areas/volumes (used by the tests)."""
import math

import cadquery as cq


def box(x0, y0, z0, x1, y1, z1):
    """Axis-aligned box between two corners, as a Solid."""
    return cq.Solid.makeBox(x1 - x0, y1 - y0, z1 - z0, cq.Vector(x0, y0, z0))


def cyl(r, z0, z1, x=0.0, y=0.0):
    """Vertical cylinder of radius r from z0 to z1 centred on (x, y)."""
    return cq.Solid.makeCylinder(r, z1 - z0, cq.Vector(x, y, z0))


def rounded_box(w, d, r, z0, z1, cx=0.0, cy=0.0):
    """Box w x d (centred on cx, cy) with vertical edges rounded to r."""
    wp = cq.Workplane("XY").workplane(offset=z0).center(cx, cy).rect(w, d).extrude(z1 - z0)
    return wp.edges("|Z").fillet(r).val()


def rounded_rect_area(w, d, r):
    return w * d - (4 - math.pi) * r * r


def frustum_volume(r0, r1, h):
    return math.pi * h / 3.0 * (r0 * r0 + r0 * r1 + r1 * r1)


def fuse_all(base, others):
    """base fused with every solid in others, as one clean Shape."""
    if not others:
        return base
    return base.fuse(*others).clean()


def cut_all(base, tools):
    if not tools:
        return base
    return base.cut(*tools).clean()


def single_solid(shape):
    """The one Solid in shape (raises if the boolean left several or none)."""
    solids = shape.Solids()
    if len(solids) != 1:
        raise ValueError(f"expected one solid, got {len(solids)}")
    return solids[0]
