"""A diffusing tile: a 2 mm square of natural (translucent) PETG/PLA pressed into each lid window.
Built in place for LED `index` (strip order)."""
import cadquery as cq

from . import params as P
from .lid import tile_angles


def build(index=0):
    x, y = P.led_xy()[index]
    a = tile_angles()[index]
    s = P.TILE
    solid = cq.Solid.makeBox(s, s, P.TILE_T, cq.Vector(-s / 2, -s / 2, P.LID_TOP - P.TILE_T))
    return solid.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), a).translate(cq.Vector(x, y, 0))


def expected_volume():
    return P.TILE * P.TILE * P.TILE_T
