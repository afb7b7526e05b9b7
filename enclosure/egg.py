"""A weighted egg: printed at the box's egg size, with a ballast bore and its plug.

The egg stands on a flat (its lower tip cut EGG_FLAT off) with the bore up its long axis; brass
rod cut to length goes in, glued, and the printed plug closes the bore flush with the flat. Each
colour differs only in the ballast: ballast_mm(colour) gives the rod length for the nominal print,
but the print's own mass varies, so the guide weighs first (enclosure/ASSEMBLY.md, "Weighted
eggs"). Built in its own frame (flat on z = 0, on the axis); `plug` likewise.
"""
import math

import cadquery as cq

from gulo.weigher import DEFAULT_MASSES

from . import params as P
from .geom import cut_all, cyl, single_solid

A = P.EGG_DIA / 2          # equatorial semi-axis
C = P.EGG_LEN / 2          # polar semi-axis
ZC = C - P.EGG_FLAT        # the ellipsoid's centre above the flat
R_BORE = P.EGG_BORE / 2
R_PLUG = R_BORE + P.EGG_PLUG_FIT
TIP_CUT = 0.1


def radius_at(z):
    """The egg's radius at height z above the flat."""
    u = (z - ZC) / C
    return A * math.sqrt(max(0.0, 1 - u * u))


def bore_top():
    """Height of the bore's top face: EGG_TOP_WALL under the egg's surface above its rim."""
    return ZC + C * math.sqrt(1 - (R_BORE / A) ** 2) - P.EGG_TOP_WALL


def cavity_len():
    """Room for ballast: the bore above the plug."""
    return bore_top() - P.EGG_PLUG_H


def build(index=0):
    # A revolved half ellipse: exact, unlike a scaled sphere (a B-spline after the transform).
    half = (cq.Workplane("XZ").center(0, ZC)
            .ellipseArc(A, C, angle1=-90, angle2=90, startAtCurrent=False).close())
    ellipsoid = half.revolve(360, (0, -1, 0), (0, 1, 0)).val()
    below = cq.Solid.makeBox(4 * A, 4 * A, P.EGG_FLAT + 1, cq.Vector(-2 * A, -2 * A, -P.EGG_FLAT - 1))
    # The upper tip is shaved TIP_CUT (under one layer): the degenerate pole of a surface of
    # revolution tessellates with a hole, a 1.4 mm flat does not.
    above = cq.Solid.makeBox(4 * A, 4 * A, 1, cq.Vector(-2 * A, -2 * A, ZC + C - TIP_CUT))
    return single_solid(cut_all(ellipsoid, [below, above, cyl(R_BORE, -1, bore_top())]))


def build_plug(index=0):
    return cyl(R_PLUG, 0, P.EGG_PLUG_H)


def _cap_volume(h):
    """Volume of the ellipsoid's cap of height h (an ellipsoid is a scaled sphere)."""
    return math.pi * A * A / (C * C) * h * h * (3 * C - h) / 3


def expected_volume():
    return (4 / 3 * math.pi * A * A * C - _cap_volume(P.EGG_FLAT) - _cap_volume(TIP_CUT)
            - math.pi * R_BORE ** 2 * bore_top())


def plug_volume():
    return math.pi * R_PLUG ** 2 * P.EGG_PLUG_H


def body_g(fill=1.0):
    """Mass of the printed egg with its plug (no ballast) at `fill` of solid PLA."""
    return (expected_volume() + plug_volume()) / 1000 * P.PLA_DENSITY * fill


def rod_g_per_mm():
    return math.pi * (P.BALLAST_ROD_DIA / 2) ** 2 / 1000 * P.BRASS_DENSITY


def ballast_g(colour, fill=1.0):
    return DEFAULT_MASSES[colour] - body_g(fill)


def ballast_mm(colour, fill=1.0):
    """Length of 10 mm brass rod that brings an egg of `colour` to its mass."""
    return ballast_g(colour, fill) / rod_g_per_mm()


def table():
    """The guide's table (markdown): per colour, the ballast for the nominal print, and the
    range of rod lengths over the print's plausible mass (PRINT_FILL)."""
    from nest.cmd_calibrate import egg_tolerance_g

    lo, hi = P.PRINT_FILL
    rows = ["| colour | egg | ballast (nominal print) | 10 mm brass rod | over a print of "
            f"{lo:.0%}-{hi:.0%} of solid |", "|---|---:|---:|---:|---:|"]
    for c, m in DEFAULT_MASSES.items():
        rows.append(f"| {c} | {m:.0f} g ± {egg_tolerance_g(DEFAULT_MASSES):.1f} g | {ballast_g(c):.2f} g | "
                    f"{ballast_mm(c):.1f} mm | {ballast_mm(c, hi):.1f}-{ballast_mm(c, lo):.1f} mm |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(f"printed egg + plug {body_g():.2f} g (solid PLA), ballast bore {P.EGG_BORE} x "
          f"{cavity_len():.1f} mm, {rod_g_per_mm():.3f} g per mm of rod\n")
    print(table())
