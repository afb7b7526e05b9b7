"""The lid (top deck): the bowl opening, 25 diffusing tile windows over the WS2812 pixels (23 path
tiles in a ring, the deck and the status pixel), the 6 button holes, a locating lip and 4 screws
into the base's bosses."""
import math

import cadquery as cq

from . import params as P
from .geom import cut_all, cyl, fuse_all, rounded_box, rounded_rect_area, single_solid

YC = P.BASE_Y0 + P.BASE_D / 2


def tile_angles():
    """Rotation (deg) of each LED's tile in strip order: path tiles face the bowl, deck/status square."""
    angs = [math.degrees(math.atan2(y, x)) for x, y in P.led_path_xy()]
    return angs + [0.0, 0.0]


def _lip_dims():
    w = P.BASE_W - 2 * P.WALL - 2 * P.LID_LIP_GAP
    d = P.BASE_D - 2 * P.WALL - 2 * P.LID_LIP_GAP
    r = P.BASE_CORNER_R - P.WALL - P.LID_LIP_GAP
    t = P.LID_LIP_T
    return (w, d, r), (w - 2 * t, d - 2 * t, r - t)


def seat_solid(x, y, angle, grow=0.0):
    """The square tile seat (or a tile, grow=-TILE_TOL) at (x, y) turned by angle."""
    s = P.TILE + 2 * P.TILE_TOL + 2 * grow
    z0 = P.LID_TOP - P.TILE_SEAT_DEPTH
    solid = cq.Solid.makeBox(s, s, P.TILE_SEAT_DEPTH + 1, cq.Vector(-s / 2, -s / 2, z0))
    return solid.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), angle).translate(cq.Vector(x, y, 0))


def light_hole_top():
    """The light hole stops LIGHT_MEMBRANE under the seat's floor: printed upside down, the floor
    is then a bridge anchored on every side, not lines ending at the hole's rim (bridges.py)."""
    return P.LID_TOP - P.TILE_SEAT_DEPTH - P.LIGHT_MEMBRANE


def holder_radii():
    r_in = P.LED_PCB_DIA / 2 + P.LED_TOL
    return r_in, r_in + P.LED_HOLDER_WALL


def build():
    plate = rounded_box(P.BASE_W, P.BASE_D, P.BASE_CORNER_R, P.LID_Z0, P.LID_TOP, 0, YC)
    (wo, do, ro), (wi, di, ri) = _lip_dims()
    lip = rounded_box(wo, do, ro, P.LID_Z0 - P.LID_LIP_H, P.LID_Z0, 0, YC).cut(
        rounded_box(wi, di, ri, P.LID_Z0 - P.LID_LIP_H - 1, P.LID_Z0 + 1, 0, YC))
    r_in, r_out = holder_radii()
    z_h = P.LID_Z0 - P.LED_HOLDER_H
    holders = [cyl(r_out, z_h, P.LID_Z0, x, y).cut(cyl(r_in, z_h - 1, P.LID_Z0, x, y))
               for x, y in P.led_xy()]
    body = fuse_all(plate, [lip] + holders)
    tools = [cyl(P.LID_OPENING_R, P.LID_Z0 - 1, P.LID_TOP + 1)]
    for (x, y), a in zip(P.led_xy(), tile_angles()):
        tools.append(seat_solid(x, y, a))
        tools.append(cyl(P.LIGHT_HOLE / 2, P.LID_Z0 - 1, light_hole_top(), x, y))
    for _name, (x, y) in P.button_xy():
        tools.append(cyl(P.BUTTON_DIA / 2 + P.BUTTON_TOL, P.LID_Z0 - 1, P.LID_TOP + 1, x, y))
    for x, y in P.boss_centres():
        tools.append(cyl(P.LID_SCREW_CLEAR / 2, P.LID_Z0 - 1, P.LID_TOP + 1, x, y))
    return single_solid(cut_all(body, tools))


def expected_volume():
    t = P.LID_T
    v = rounded_rect_area(P.BASE_W, P.BASE_D, P.BASE_CORNER_R) * t
    v -= math.pi * P.LID_OPENING_R ** 2 * t
    (wo, do, ro), (wi, di, ri) = _lip_dims()
    v += (rounded_rect_area(wo, do, ro) - rounded_rect_area(wi, di, ri)) * P.LID_LIP_H
    n = len(P.led_xy())
    seat = (P.TILE + 2 * P.TILE_TOL) ** 2 * P.TILE_SEAT_DEPTH
    light = math.pi * (P.LIGHT_HOLE / 2) ** 2 * (light_hole_top() - P.LID_Z0)
    r_in, r_out = holder_radii()
    holder = math.pi * (r_out ** 2 - r_in ** 2) * P.LED_HOLDER_H
    v += n * (holder - seat - light)
    v -= len(P.button_xy()) * math.pi * (P.BUTTON_DIA / 2 + P.BUTTON_TOL) ** 2 * t
    v -= len(P.boss_centres()) * math.pi * (P.LID_SCREW_CLEAR / 2) ** 2 * t
    return v
