"""The base: an open box carrying the load cell riser, the reed-switch tower under the pole, the
pockets of the ESP32-DevKitC (USB through the back wall) and the HX711, the lid's screw bosses,
zip-tie bridges and the sockets of the feet. The lid (lid.py) closes it."""
import math

from . import params as P
from . import stop
from .bowl import countersink
from .geom import box, cut_all, cyl, frustum_volume, fuse_all, rounded_box, rounded_rect_area, single_solid

YC = P.BASE_Y0 + P.BASE_D / 2     # centre of the footprint
Y_BACK_IN = P.BASE_Y0 + P.BASE_D - P.WALL


def riser_box():
    x0 = -P.CELL_L / 2
    return (x0, P.CELL_Y - P.CELL_W / 2, P.FLOOR, x0 + P.PAD_LEN, P.CELL_Y + P.CELL_W / 2,
            P.CELL_Z0)


def riser_screw_xs():
    x0 = -P.CELL_L / 2
    return (x0 + P.CELL_HOLE_END, x0 + P.CELL_HOLE_END + P.CELL_HOLE_PITCH)


def tower_box():
    return (-P.TOWER_L / 2, -P.TOWER_W / 2, P.FLOOR, P.TOWER_L / 2, P.TOWER_W / 2, P.REED_Z_TOP)


def reed_slot():
    """The tower's keyhole slot, open to -y and to the top: a half-round end on the pole's axis
    that locates the glass, and a straight run REED_BORE wide out through the tower's -y face.
    The reed goes in sideways (along +y) with both leads already bent towards -y: the upper
    lead's run lies in the slot under the tower's top, the lower one's on the floor of the slot,
    both leave through the -y face (components.reed_with_leads; the assembly test inserts it).
    (radius, boxes, cylinder) as (r, [(x0, y0, z0, x1, y1, z1)], (x, y, z0, z1))."""
    r = P.REED_BORE / 2
    z0, z1 = P.FLOOR, P.REED_Z_TOP
    return r, [(-r, -P.TOWER_W / 2, z0, r, 0.0, z1)], (0.0, 0.0, z0, z1)


def old_reed_bore_tools():
    """The tower as it was (a blind upright bore, a groove over the top, a closed tunnel at the
    floor): kept only as the assembly test's planted fault, where the bent reed cannot go in."""
    r = P.REED_BORE / 2
    a, w, d = r - 0.3, P.LEAD_GROOVE_W, P.LEAD_GROOVE_D
    top = (-P.TOWER_L / 2, -w / 2, P.REED_Z_TOP - d, -a, w / 2, P.REED_Z_TOP)
    bottom = (a, -w / 2, P.FLOOR, P.TOWER_L / 2, w / 2, P.FLOOR + d)
    return [cyl(r, P.FLOOR, P.REED_Z_TOP + 1), box(*top), box(*bottom)]


def stop_pads():
    """(x, y, z0, z1) of the printed pads under the four overload stops (stop.py)."""
    return [(x, y, P.FLOOR, stop.pad_top()) for x, y in P.stop_xys()]


def board_frame(bx, tol, z_top, open_back):
    """Boxes of the frame around a board envelope bx (xmin, ymin, _, xmax, ymax, _)."""
    x0, y0, _, x1, y1, _ = bx
    x0, y0, x1, y1 = x0 - tol, y0 - tol, x1 + tol, y1 + tol
    f = P.FRAME_WALL
    parts = [
        (x0 - f, y0 - f, P.FLOOR, x0, y1, z_top),
        (x1, y0 - f, P.FLOOR, x1 + f, y1, z_top),
        (x0, y0 - f, P.FLOOR, x1, y0, z_top),
    ]
    if not open_back:
        parts[0] = (x0 - f, y0 - f, P.FLOOR, x0, y1 + f, z_top)
        parts[1] = (x1, y0 - f, P.FLOOR, x1 + f, y1 + f, z_top)
        parts.append((x0, y1, P.FLOOR, x1, y1 + f, z_top))
    return parts


def esp_parts():
    """Boxes of the carrier's bed: two ribs under it and a frame on its three open sides (the back
    wall is the fourth); the frame is low on the -x side, at the carrier's top, so the harness
    leaves over it (test_enclosure_geometry: the wire way)."""
    x0, y0, z0, x1, y1, z1 = P.carrier_box()
    t, f = P.CARRIER_TOL, P.FRAME_WALL
    top = z1 + P.FRAME_ABOVE
    ribs = [(x0 + 3, y0 + 3, P.FLOOR, x0 + 3 + P.RAIL_W, y1 - 3, z0),
            (x1 - 3 - P.RAIL_W, y0 + 3, P.FLOOR, x1 - 3, y1 - 3, z0)]
    frame = [
        (x1 + t, y0 - t - f, P.FLOOR, x1 + t + f, Y_BACK_IN, top),          # +x
        (x0 - t, y0 - t - f, P.FLOOR, x1 + t, y0 - t, top),                 # front
        (x0 - t - f, y0 - t - f, P.FLOOR, x0 - t, Y_BACK_IN, z1),           # -x: low, the wire way
    ]
    return ribs + frame


def hx_parts():
    """Frame + rails of the HX711 pocket (board long axis x, headers at both short ends)."""
    bx = P.hx_box()
    z_pcb = P.FLOOR + P.HX_POST
    frame = board_frame(bx, P.HX_TOL, z_pcb + P.HX_PCB + P.FRAME_ABOVE, open_back=False)
    cy = (bx[1] + bx[4]) / 2
    rails = [(bx[0] + 5, cy + s * 5 - P.RAIL_W / 2, P.FLOOR, bx[3] - 5, cy + s * 5 + P.RAIL_W / 2,
              z_pcb) for s in (-1, 1)]
    return frame + rails


def usb_hole_box():
    bx = P.esp_box()
    cx = (bx[0] + bx[3]) / 2
    zc = P.FLOOR + P.ESP_POST + P.ESP_PCB + 1.5   # micro-USB socket centre above the PCB
    return (cx - P.USB_HOLE_W / 2, Y_BACK_IN - 1, zc - P.USB_HOLE_H / 2,
            cx + P.USB_HOLE_W / 2, P.BASE_Y0 + P.BASE_D + 1, zc + P.USB_HOLE_H / 2)


def tie_bridge_boxes(x, y):
    bx, by, bz = P.TIE_BRIDGE
    sx, sy, sz = P.TIE_SLOT
    block = (x - bx / 2, y - by / 2, P.FLOOR, x + bx / 2, y + by / 2, P.FLOOR + bz)
    slot = (x - sx / 2 - 1, y - sy / 2, P.FLOOR, x + sx / 2 + 1, y + sy / 2, P.FLOOR + sz)
    return block, slot


def build(tower="slot"):
    """The base; tower="bore" builds the old reed tower (the assembly test's planted fault)."""
    outer = rounded_box(P.BASE_W, P.BASE_D, P.BASE_CORNER_R, 0, P.BASE_H, 0, YC)
    inner = rounded_box(P.BASE_W - 2 * P.WALL, P.BASE_D - 2 * P.WALL, P.BASE_CORNER_R - P.WALL,
                        P.FLOOR, P.BASE_H + 1, 0, YC)
    shell = outer.cut(inner)
    adds = [box(*riser_box()), box(*tower_box())]
    adds += [cyl(P.STOP_PAD_DIA / 2, z0, z1, x, y) for x, y, z0, z1 in stop_pads()]
    adds += [cyl(P.BOSS_DIA / 2, P.FLOOR, P.BASE_H, x, y) for x, y in P.boss_centres()]
    adds += [cyl(P.FOOT_BOSS_DIA / 2, P.FLOOR, P.FLOOR + P.FOOT_BOSS_H, x, y)
             for x, y in P.foot_centres()]
    adds += [box(*b) for b in esp_parts() + hx_parts()]
    slots = []
    for x, y in P.TIE_BRIDGES_XY:
        block, slot = tie_bridge_boxes(x, y)
        adds.append(box(*block))
        slots.append(box(*slot))
    body = fuse_all(shell, adds)
    r, boxes, (cx, cy, z0, z1) = reed_slot()
    if tower == "bore":
        tools = old_reed_bore_tools()
    else:
        tools = [cyl(r, z0, z1 + 1, cx, cy)]
        tools += [box(b[0], b[1] - 1, b[2], b[3], b[4], b[5] + 1) for b in boxes]
    tools += [box(*usb_hole_box())] + slots
    for x in riser_screw_xs():
        tools.append(cyl(P.CELL_SCREW_CLEAR / 2, -1, P.CELL_Z0 + 1, x, P.CELL_Y))
        tools.append(countersink(x, P.CELL_Y, 0.0, up=False))
    tools += [cyl(P.BOSS_PILOT / 2, P.BASE_H - P.BOSS_DEPTH, P.BASE_H + 1, x, y)
              for x, y in P.boss_centres()]
    tools += [cyl(P.FOOT_PEG_DIA / 2 + P.FOOT_TOL, -1, P.FOOT_HOLE_DEPTH, x, y)
              for x, y in P.foot_centres()]
    return single_solid(cut_all(body, tools))


def _vol(b):
    return (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2])


def expected_volume():
    """Volume from the parameters: boxes, cylinders and rounded rectangles, no CAD kernel."""
    v = rounded_rect_area(P.BASE_W, P.BASE_D, P.BASE_CORNER_R) * P.BASE_H
    v -= rounded_rect_area(P.BASE_W - 2 * P.WALL, P.BASE_D - 2 * P.WALL,
                           P.BASE_CORNER_R - P.WALL) * (P.BASE_H - P.FLOOR)
    v += _vol(riser_box()) + _vol(tower_box())
    v += sum(math.pi / 4 * P.STOP_PAD_DIA ** 2 * (z1 - z0) for _x, _y, z0, z1 in stop_pads())
    r, boxes, (_cx, _cy, z0, z1) = reed_slot()
    v -= math.pi * r * r / 2 * (z1 - z0) + sum(_vol(b) for b in boxes)   # half-round end + run
    n_boss = len(P.boss_centres())
    v += n_boss * math.pi / 4 * (P.BOSS_DIA ** 2 * (P.BASE_H - P.FLOOR)
                                 - P.BOSS_PILOT ** 2 * P.BOSS_DEPTH)
    n_feet = len(P.foot_centres())
    v += n_feet * math.pi / 4 * P.FOOT_BOSS_DIA ** 2 * P.FOOT_BOSS_H
    v -= n_feet * math.pi * (P.FOOT_PEG_DIA / 2 + P.FOOT_TOL) ** 2 * P.FOOT_HOLE_DEPTH
    v += sum(_vol(b) for b in esp_parts() + hx_parts())
    for x, y in P.TIE_BRIDGES_XY:
        block, _slot = tie_bridge_boxes(x, y)
        v += _vol(block) - P.TIE_SLOT[0] * P.TIE_SLOT[1] * P.TIE_SLOT[2]
    # Riser screws: clearance hole through the riser, head counterbore through the floor.
    v -= 2 * (frustum_volume(P.CSK_DIA / 2, P.CELL_SCREW_CLEAR / 2, P.CSK_DEPTH)
              + math.pi / 4 * P.CELL_SCREW_CLEAR ** 2 * (P.FLOOR - P.CSK_DEPTH + P.CELL_RISER))
    # USB hole through the back wall only.
    u = usb_hole_box()
    v -= (u[3] - u[0]) * P.WALL * (u[5] - u[2])
    return v
