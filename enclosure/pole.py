"""The alarm pole: a 10 mm stick (print it, or drill a beech dowel) with a 6 x 20 mm magnet
captured in its foot: in the printed pole a closed cavity (pause the print once the cavity is
complete, drop the magnet in, resume), in a dowel a 6.3 mm hole closed by a glued 6 mm beech plug.
It stands in the bowl's shallow socket, on the axis of the upright reed switch. A bore in its top
takes the brass rod that brings it to the weigher's POLE_G (pole_mass.py)."""
import math

from . import params as P
from .geom import cut_all, cyl, single_solid

MAGNET_POCKET_DIA = P.MAGNET_DIA + 2 * P.MAGNET_TOL
MAGNET_POCKET_H = P.MAGNET_H + 0.2     # room over the magnet: it drops in during the print pause
CAVITIES = 1                           # the closed magnet cavity: the solid has 2 shells


def magnet_z0():
    """Underside of the magnet in the seated pole (it rests on the cavity's floor)."""
    return P.BOWL_FLOOR_TOP + P.MAGNET_CAPTURE


def pause_z():
    """Print height (the pole stands on its foot) of the pause: the top of the magnet's cavity.
    The magnet drops in through the open cavity and lies wholly under the next layer, which
    bridges the 6.3 mm hole (tests/enclosure/test_enclosure_assembly.py)."""
    return P.MAGNET_CAPTURE + MAGNET_POCKET_H


def print_pose(solid, standing=True):
    """A solid of the pole's assembly frame moved to its print pose: standing on its foot (the
    magnet's cavity then opens upwards until the pause); standing=False lays it on its side
    (the old pose, in which no pause height lets the magnet in and under the next layer)."""
    import cadquery as cq

    if standing:
        return solid.translate(cq.Vector(0, 0, -P.BOWL_FLOOR_TOP))
    turned = solid.translate(cq.Vector(0, 0, -P.BOWL_FLOOR_TOP)).rotate(
        cq.Vector(0, 0, 0), cq.Vector(0, 1, 0), 90)
    return turned.translate(cq.Vector(0, 0, P.POLE_DIA / 2))


def build():
    z0 = P.BOWL_FLOOR_TOP                  # foot on the socket's floor
    top = z0 + P.POLE_LEN
    body = cyl(P.POLE_DIA / 2, z0, top)
    pocket = cyl(MAGNET_POCKET_DIA / 2, magnet_z0(), magnet_z0() + MAGNET_POCKET_H)
    ballast = cyl(P.POLE_BALLAST_BORE / 2, top - P.POLE_BALLAST_LEN, top + 1)   # pole_mass.py
    return single_solid(cut_all(body, [pocket, ballast]))


def expected_volume():
    return math.pi / 4 * (P.POLE_DIA ** 2 * P.POLE_LEN - MAGNET_POCKET_DIA ** 2 * MAGNET_POCKET_H
                          - P.POLE_BALLAST_BORE ** 2 * P.POLE_BALLAST_LEN)
