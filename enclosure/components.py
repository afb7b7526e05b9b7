"""Envelopes of the bought parts, in assembly position, and the list of fits the tests check.

An envelope is the space a part needs (a board with its pins, a switch with its body): a pocket
fits when the envelope does not intersect its host and, moved sideways by its stated tolerance
plus a little, it hits the pocket wall (so the pocket really holds it, and not 5 mm loosely).
"""
import math

import cadquery as cq

from . import lid, pole
from . import params as P
from .geom import box, cyl


def _union(solids):
    return cq.Compound.makeCompound(solids)


def esp32():
    x0, y0, z0, x1, y1, z1 = P.esp_box()
    z_pcb = P.FLOOR + P.ESP_POST
    parts = [box(x0, y0, z_pcb, x1, y1, z1)]      # PCB, module, USB socket (whole footprint)
    for xa in (x0, x1 - P.PIN_ROW_W):             # header rows under the long edges
        parts.append(box(xa, y0 + 5.0, z0, xa + P.PIN_ROW_W, y1 - 1.0, z_pcb))
    sx, sy, sz = P.ESP_USB_SOCKET                  # the USB socket overhanging the back edge
    cx, top = (x0 + x1) / 2, z_pcb + P.ESP_PCB
    parts.append(box(cx - sx / 2, y1, top, cx + sx / 2, y1 + sy, top + sz))
    return _union(parts)


def carrier():
    """The carrier perfboard with the DevKitC's two female header strips on it."""
    x0, y0, z0, x1, y1, z1 = P.carrier_box()
    ex0, ey0, _ez0, ex1, ey1, _ = P.esp_box()
    z_pcb = P.FLOOR + P.ESP_POST                  # the headers reach up to the DevKitC's underside
    parts = [box(x0, y0, z0, x1, y1, z1)]
    for xa in (ex0, ex1 - P.PIN_ROW_W):
        parts.append(box(xa, ey0 + 5.0, z1, xa + P.PIN_ROW_W, ey1 - 1.0, z_pcb))
    return _union(parts)


def harness():
    return box(*P.harness_box())


def hx711():
    x0, y0, z0, x1, y1, z1 = P.hx_box()
    z_pcb = P.FLOOR + P.HX_POST
    parts = [box(x0, y0, z_pcb, x1, y1, z1)]
    for xa in (x0, x1 - 3.0):                     # solder joints of the end headers
        parts.append(box(xa, y0, z0, xa + 3.0, y1, z_pcb))
    return _union(parts)


def load_cell():
    return box(-P.CELL_L / 2, P.CELL_Y - P.CELL_W / 2, P.CELL_Z0,
               P.CELL_L / 2, P.CELL_Y + P.CELL_W / 2, P.CELL_TOP)


def load_cell_flexure():
    """The cell minus its two end blocks: the part that must touch nothing."""
    x = P.CELL_L / 2 - P.CELL_MOUNT_LEN
    return box(-x, P.CELL_Y - P.CELL_W / 2, P.CELL_Z0, x, P.CELL_Y + P.CELL_W / 2, P.CELL_TOP)


def reed_switch():
    """The glass body standing in the tower's slot, on the pole's axis."""
    return cyl(P.REED_GLASS_DIA / 2, P.REED_GLASS_BOTTOM, P.REED_GLASS_TOP)


def _bent_lead(z_end, up):
    """One lead as bent wire: straight on from the glass's end (up or down) for
    REED_LEAD_MIN_BEND, a quarter turn of inner radius REED_LEAD_BEND_R towards -y, then straight
    along -y for the rest of its REED_LEAD_LEN. Solids (straight part, bend, run)."""
    d, rb = P.REED_LEAD_DIA, P.REED_LEAD_BEND_R
    rc = rb + d / 2                                   # the bend's centreline radius
    s = 1 if up else -1
    z_bend = z_end + s * P.REED_LEAD_MIN_BEND        # the bending point
    straight = cyl(d / 2, min(z_end, z_bend), max(z_end, z_bend))
    # Quarter torus in the y-z plane: centre at (y = -rc, z = z_bend), from +z/-z round to -y.
    ring = cq.Solid.makeTorus(rc, d / 2, cq.Vector(0, -rc, z_bend), cq.Vector(1, 0, 0))
    quad = box(-d, -rc, min(z_bend, z_bend + s * (rc + d)), d, d, max(z_bend, z_bend + s * (rc + d)))
    bend = ring.intersect(quad)
    run_len = P.REED_LEAD_LEN - P.REED_LEAD_MIN_BEND - math.pi / 2 * rc
    z_run = z_bend + s * rc
    run = cq.Solid.makeCylinder(d / 2, run_len, cq.Vector(0, -rc, z_run), cq.Vector(0, -1, 0))
    return [straight, bend, run]


def reed_with_leads():
    """The reed as it goes in: the glass and both leads bent towards -y (the tower's open side)."""
    parts = [reed_switch()]
    parts += _bent_lead(P.REED_GLASS_TOP, up=True) + _bent_lead(P.REED_GLASS_BOTTOM, up=False)
    return _union(parts)


def stop_screws():
    """The four overload stops' M4 set screws in their bosses, tips STOP_GAP over their pads."""
    from . import stop

    return [cyl(P.STOP_SCREW / 2, stop.screw_tip(), stop.screw_top(), x, y) for x, y in P.stop_xys()]


def stop_screw():
    return _union(stop_screws())


def magnet():
    z0 = pole.magnet_z0()
    return cyl(P.MAGNET_DIA / 2, z0, z0 + P.MAGNET_H)


def led_pixel(i):
    x, y = P.led_xy()[i]
    return cyl(P.LED_PCB_DIA / 2, P.LID_Z0 - P.LED_PCB_H, P.LID_Z0, x, y)


def button(name):
    x, y = dict(P.button_xy())[name]
    return cyl(P.BUTTON_DIA / 2, P.LID_TOP - P.BUTTON_BODY_DEPTH, P.LID_TOP, x, y)


def foot_peg(i):
    x, y = P.foot_centres()[i]
    return cyl(P.FOOT_PEG_DIA / 2, 0, P.FOOT_PEG_H, x, y)


def egg(x, y, z, axis):
    """An egg lying with its long axis along 'x' or 'y', lowest point at z."""
    a, c = P.EGG_DIA / 2, P.EGG_LEN / 2
    s = cq.Solid.makeSphere(1.0, angleDegrees1=-90, angleDegrees2=90)
    scale = {"x": (c, a, a), "y": (a, c, a)}[axis]
    m = cq.Matrix([[scale[0], 0, 0, x], [0, scale[1], 0, y], [0, 0, scale[2], z + a]])
    return s.transformGeometry(m)


def fits():
    """(label, host part name, envelope, tolerance, probe directions) of every bought part.

    The probe directions are unit vectors in the xy plane along which the pocket holds the part.
    """
    out = [
        ("carrier perfboard", "base", carrier(), P.CARRIER_TOL, [(1, 0), (-1, 0), (0, -1)]),
        ("HX711", "base", hx711(), P.HX_TOL, [(1, 0), (-1, 0), (0, 1), (0, -1)]),
        # the slot is open to -y (the reed goes in that way; hot glue holds it)
        ("reed switch", "base", reed_switch(), P.REED_TOL, [(1, 0), (-1, 0), (0, 1)]),
        ("magnet", "pole", magnet(), P.MAGNET_TOL, [(1, 0), (-1, 0), (0, 1), (0, -1)]),
        ("pole", "bowl", pole.build(), P.SOCKET_TOL, [(1, 0), (-1, 0), (0, 1), (0, -1)]),
    ]
    for i in range(len(P.led_xy())):
        out.append((f"LED pixel {i}", "lid", led_pixel(i), P.LED_TOL, [(1, 0), (0, -1)]))
    angs = lid.tile_angles()
    for i in range(len(P.led_xy())):
        a = math.radians(angs[i])
        d = [(math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))]
        out.append((f"tile {i}", "lid", _tile(i), P.TILE_TOL, d))
    for name, _xy in P.button_xy():
        out.append((name, "lid", button(name), P.BUTTON_TOL, [(1, 0), (0, 1)]))
    for i in range(len(P.foot_centres())):
        out.append((f"foot peg {i}", "base", foot_peg(i), P.FOOT_TOL, [(1, 0), (0, -1)]))
    return out


def _tile(i):
    from . import tile
    return tile.build(i)

