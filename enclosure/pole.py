"""The alarm pole: a 10 mm stick (print it, or drill a beech dowel) with a 6 x 3 mm magnet glued
flush into its foot. It stands in the bowl's shallow socket, over the reed switch."""
import math

from . import params as P
from .geom import cut_all, cyl, single_solid

MAGNET_POCKET_DIA = P.MAGNET_DIA + 2 * P.MAGNET_TOL
MAGNET_POCKET_H = P.MAGNET_H + 0.2     # glue room: the magnet sits 0.2 mm proud of nothing


def build():
    z0 = P.BOWL_FLOOR_TOP                  # foot on the socket's floor
    body = cyl(P.POLE_DIA / 2, z0, z0 + P.POLE_LEN)
    pocket = cyl(MAGNET_POCKET_DIA / 2, z0 - 1, z0 + MAGNET_POCKET_H)
    return single_solid(cut_all(body, [pocket]))


def expected_volume():
    return math.pi / 4 * (P.POLE_DIA ** 2 * P.POLE_LEN - MAGNET_POCKET_DIA ** 2 * MAGNET_POCKET_H)
