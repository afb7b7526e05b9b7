"""What the pole weighs, and the brass that brings it to the weigher's POLE_G.

The weigher (gulo.weigher, owned by the firmware) assumes a 25 g pole: when the pole is out of
the bowl it adds POLE_G back to the nest's level, so a pole that is off by e grams shifts every
level by e while it lies outside. The printed pole (PLA, CAD volume) with its NdFeB magnet weighs
less; so does a beech dowel. A 6 mm brass rod in the bore at the pole's top, cut to length after
weighing the pole, makes up the difference.

    .venv/bin/python -m enclosure.pole_mass      # the table in ASSEMBLY.md
"""
import math

from gulo.weigher import POLE_G

from . import params as P
from . import pole

# A 6.3 mm jobber drill (DIN 338) has 63 mm of flute: the deepest bore a maker drills in a dowel.
DRILL_FLUTE_MM = 63.0


def magnet_g(density=P.NDFEB_DENSITY[0]):
    return math.pi / 4 * P.MAGNET_DIA ** 2 * P.MAGNET_H / 1000 * density


def plug_volume():
    return math.pi / 4 * P.POLE_BALLAST_BORE ** 2 * P.POLE_PLUG_H


def body_g(density, fill=1.0):
    """The stick (CAD volume: magnet cavity and ballast bore empty) and its plug."""
    return (pole.expected_volume() + plug_volume()) / 1000 * density * fill


def rod_g_per_mm():
    return math.pi / 4 * P.POLE_BALLAST_DIA ** 2 / 1000 * P.BRASS_DENSITY


def ballast_mm(unballasted_g, target=POLE_G):
    """Brass rod to cut for a pole (magnet and plug in) that weighs unballasted_g."""
    return (target - unballasted_g) / rod_g_per_mm()


def room_mm():
    """Rod the bore takes under the plug."""
    return P.POLE_BALLAST_LEN - P.POLE_PLUG_H


def cases():
    """(name, unballasted g, rod mm) at the extremes: PLA printed 85-100 % of solid
    (params.PRINT_FILL), a beech dowel of the lightest and heaviest beech; the magnet at the
    density that makes the case most extreme."""
    lo, hi = P.PRINT_FILL
    out = []
    for name, density, fill, mag in (
            ("printed PLA, light print", P.PLA_DENSITY, lo, P.NDFEB_DENSITY[0]),
            ("printed PLA, solid", P.PLA_DENSITY, hi, P.NDFEB_DENSITY[1]),
            ("beech dowel, light beech", P.BEECH_DENSITY[0], 1.0, P.NDFEB_DENSITY[0]),
            ("beech dowel, heavy beech", P.BEECH_DENSITY[1], 1.0, P.NDFEB_DENSITY[1])):
        m = body_g(density, fill) + magnet_g(mag)
        out.append((name, m, ballast_mm(m)))
    return out


def table():
    rows = ["| pole | without brass | 6 mm brass rod to cut |", "|---|---:|---:|"]
    rows += [f"| {n} | {m:.1f} g | {b:.0f} mm |" for n, m, b in cases()]
    return "\n".join(rows)


if __name__ == "__main__":
    print(f"POLE_G = {POLE_G} g; magnet {magnet_g():.2f}-{magnet_g(P.NDFEB_DENSITY[1]):.2f} g; "
          f"brass {rod_g_per_mm():.4f} g/mm; bore takes {room_mm():.0f} mm")
    print(table())
