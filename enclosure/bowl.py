"""The bowl (nest): a drafted shell with a shallow pole socket and a flat underside (it prints
without support), screwed through the spacer (spacer.py) onto the load cell's free end. It touches
nothing else (tested)."""
import math

import cadquery as cq

from . import params as P
from . import stop
from .geom import cut_all, cyl, frustum_volume, fuse_all, single_solid


def _profile():
    a = math.radians(P.BOWL_DRAFT_DEG)
    w = P.BOWL_WALL
    r_rim = P.BOWL_R_RIM
    # Rim face square to the wall (no knife edge at the outer rim).
    rim_out = (r_rim + w * math.cos(a), P.BOWL_RIM_Z - w * math.sin(a))
    return [
        (0.0, P.BOWL_Z0),
        (P.bowl_outer_r(P.BOWL_Z0), P.BOWL_Z0),
        rim_out,
        (r_rim, P.BOWL_RIM_Z),
        (P.BOWL_R_FLOOR, P.BOWL_FLOOR_TOP),
        (0.0, P.BOWL_FLOOR_TOP),
    ]


def screw_xs():
    """x of the two screws through the bowl floor and the spacer into the cell's free end."""
    x1 = P.CELL_L / 2
    return (x1 - P.CELL_HOLE_END, x1 - P.CELL_HOLE_END - P.CELL_HOLE_PITCH)


def countersink(x, y, z_face, up):
    """90 deg countersink cone for an M4 flat head, opening at the face z_face (facing up or down)."""
    r0, r1 = P.CSK_DIA / 2, P.CELL_SCREW_CLEAR / 2
    h = P.CSK_DEPTH
    if up:   # wide end at the top face, narrowing downwards; a 0.5 mm collar above the face
        cone = cq.Solid.makeCone(r1, r0, h, cq.Vector(x, y, z_face - h))
        return cone.fuse(cyl(r0, z_face, z_face + 0.5, x, y))
    cone = cq.Solid.makeCone(r0, r1, h, cq.Vector(x, y, z_face))
    return cone.fuse(cyl(r0, z_face - 0.5, z_face, x, y))


def build():
    shell = (cq.Workplane("XZ").polyline(_profile()).close()
             .revolve(360, (0, 0, 0), (0, 1, 0)).val())
    cup = cyl(P.SOCKET_OUTER / 2, P.BOWL_FLOOR_TOP, P.BOWL_FLOOR_TOP + P.SOCKET_DEPTH)
    # The overload stops' bosses under the floor; their pilots through floor and boss (stop.py).
    bosses = [cyl(P.STOP_BOSS_DIA / 2, stop.boss_bottom(), P.BOWL_Z0 + 0.01, x, y) for x, y in P.stop_xys()]
    body = fuse_all(shell, [cup] + bosses)
    tools = [cyl(P.SOCKET_BORE / 2, P.BOWL_FLOOR_TOP, P.BOWL_FLOOR_TOP + P.SOCKET_DEPTH + 1)]
    tools += [cyl(P.STOP_PILOT / 2, stop.boss_bottom() - 1, P.BOWL_FLOOR_TOP + 1, x, y)
              for x, y in P.stop_xys()]
    for x in screw_xs():
        tools.append(cyl(P.CELL_SCREW_CLEAR / 2, P.BOWL_Z0 - 1, P.BOWL_FLOOR_TOP + 1, x, P.CELL_Y))
        tools.append(countersink(x, P.CELL_Y, P.BOWL_FLOOR_TOP, up=True))
    return single_solid(cut_all(body, tools))


def expected_volume():
    """Volume from the parameters alone (Pappus / frustum formulas), for the tests."""
    a = math.radians(P.BOWL_DRAFT_DEG)
    w = P.BOWL_WALL
    outer = frustum_volume(P.bowl_outer_r(P.BOWL_Z0), P.bowl_outer_r(P.BOWL_RIM_Z),
                           P.BOWL_RIM_Z - P.BOWL_Z0)
    inner = frustum_volume(P.BOWL_R_FLOOR, P.BOWL_R_RIM, P.BOWL_DEPTH)
    # The square rim removes a thin ring of triangle section from the outer frustum:
    # legs w*cos(a) (radial, at z = rim) ... exactly: triangle between rim_in->rim_out chord and
    # the outer cone's top; Pappus with its centroid radius.
    r_out_top = P.bowl_outer_r(P.BOWL_RIM_Z)
    rim_out = (P.BOWL_R_RIM + w * math.cos(a), P.BOWL_RIM_Z - w * math.sin(a))
    tri = [(P.BOWL_R_RIM, P.BOWL_RIM_Z), (r_out_top, P.BOWL_RIM_Z), rim_out]
    area = 0.5 * abs((tri[1][0] - tri[0][0]) * (tri[2][1] - tri[0][1])
                     - (tri[2][0] - tri[0][0]) * (tri[1][1] - tri[0][1]))
    r_c = sum(p[0] for p in tri) / 3.0
    rim_cut = 2 * math.pi * r_c * area
    cup = math.pi / 4 * (P.SOCKET_OUTER ** 2 - P.SOCKET_BORE ** 2) * P.SOCKET_DEPTH
    holes = 2 * (frustum_volume(P.CSK_DIA / 2, P.CELL_SCREW_CLEAR / 2, P.CSK_DEPTH)
                 + math.pi / 4 * P.CELL_SCREW_CLEAR ** 2 * (P.BOWL_FLOOR - P.CSK_DEPTH))
    n = len(P.stop_xys())
    bosses = n * math.pi / 4 * P.STOP_BOSS_DIA ** 2 * P.STOP_BOSS_H
    pilots = n * math.pi / 4 * P.STOP_PILOT ** 2 * (P.STOP_BOSS_H + P.BOWL_FLOOR)
    return outer - inner - rim_cut + cup - holes + bosses - pilots


def cavity_volume():
    """Volume the eggs can use: the drafted cavity below the rim, minus the socket cup and pole."""
    inner = frustum_volume(P.BOWL_R_FLOOR, P.BOWL_R_RIM, P.BOWL_DEPTH)
    cup = math.pi / 4 * P.SOCKET_OUTER ** 2 * P.SOCKET_DEPTH
    pole = math.pi / 4 * P.POLE_DIA ** 2 * (P.BOWL_DEPTH - P.SOCKET_DEPTH)
    return inner - cup - pole
