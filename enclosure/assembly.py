"""Assembly paths: every bought part and lead moved along the way a maker puts it in, checked
for interference at every step (tests/enclosure/test_enclosure_assembly.py).

- the reed switch, its leads bent as wire (components.reed_with_leads), slides into the tower's
  slot along +y;
- the magnet drops into the pole's cavity at the print's pause (pole.pause_z), lies wholly under
  the next layer, and the next layers close over it;
- a straight hex key reaches each overload stop's screw from above with the bowl on, and a feeler
  gauge's blade reaches the gap under it from beside the bowl with the lid off.

Each check returns a list of what went wrong (empty: the step can be done), so a test can show a
planted fault (the old tower, the old pause, the old stop) failing it.
"""
import cadquery as cq

from . import params as P
from . import pole, stop
from .geom import box, cyl

STEP = 0.5      # mm between sampled positions: under the 0.6 mm lead and every wall (>= 1.6 mm)
TOUCH = 1e-4    # mm3 of common volume that counts as interference (a touch is not)


def overlap(a, b):
    common = a.intersect(b)
    return common.Volume() if common is not None else 0.0


def first_hit(moving, obstacles, direction, length, step=STEP):
    """Move `moving` to its place along `direction` (a unit (x, y, z)) from `length` mm before it:
    None if it meets nothing, else (the distance still to go, the obstacle's name)."""
    n = max(1, int(round(length / step)))
    dx, dy, dz = direction
    for i in range(n, -1, -1):
        t = length * i / n
        at = moving.translate(cq.Vector(-dx * t, -dy * t, -dz * t))
        for name, solid in obstacles.items():
            if overlap(at, solid) > TOUCH:
                return round(t, 2), name
    return None


def _near(solid, x0, y0, z0, x1, y1, z1):
    return solid.intersect(box(x0, y0, z0, x1, y1, z1))


# -- the reed switch --------------------------------------------------------------------------------

REED_PATH = (0.0, 1.0, 0.0)       # sideways into the slot, from the tower's open -y face
REED_PATH_LEN = 20.0


def reed_problems(base_solid, reed, direction=REED_PATH, length=REED_PATH_LEN):
    """What stops the bent reed going into the tower along `direction`."""
    # the tower and the floor round it: nothing else of the base comes near the reed's way
    tower = _near(base_solid, -P.TOWER_L / 2 - 1, -P.TOWER_W / 2 - 1, P.FLOOR - 0.5,
                  P.TOWER_L / 2 + 1, P.TOWER_W / 2 + 1, P.BOWL_Z0)
    hit = first_hit(reed, {"base": tower}, direction, length)
    return [] if hit is None else [f"the reed meets the {hit[1]} {hit[0]} mm before its place"]


# -- the magnet into the printed pole -----------------------------------------------------------------

def magnet_problems(pole_print, magnet_print, z_pause, layer=0.2, drop=30.0):
    """The print paused at z_pause (print frame): can the magnet drop straight down into the part
    printed so far, lie wholly under the next layer, and is it then closed in?"""
    out = []
    bb = pole_print.BoundingBox()
    below = box(bb.xmin - 1, bb.ymin - 1, bb.zmin - 1, bb.xmax + 1, bb.ymax + 1, z_pause)
    printed = pole_print.intersect(below)
    hit = first_hit(magnet_print, {"pole printed up to the pause": printed}, (0, 0, -1), drop)
    if hit is not None:
        out.append(f"dropped in at z {z_pause:g}, the magnet meets the {hit[1]} {hit[0]} mm above its place")
    top = magnet_print.BoundingBox().zmax
    if top > z_pause + 1e-6:
        out.append(f"the magnet stands {top - z_pause:.2f} mm above the pause layer: the nozzle hits it")
    mb = magnet_print.BoundingBox()
    lid = pole_print.intersect(box(mb.xmin, mb.ymin, z_pause, mb.xmax, mb.ymax, z_pause + layer))
    if lid is None or lid.Volume() < (mb.xlen * mb.ylen * layer) * 0.99:
        out.append(f"the layer over z {z_pause:g} does not close over the magnet")
    return out


def pole_pause_problems(standing=True, z_pause=None):
    """The pole as printed (pole.print_pose) with its magnet, paused at z_pause (default: the
    design's pole.pause_z())."""
    from . import components

    solid = pole.print_pose(pole.build(), standing)
    magnet = pole.print_pose(components.magnet(), standing)
    return magnet_problems(solid, magnet, pole.pause_z() if z_pause is None else z_pause)


# -- the overload stops --------------------------------------------------------------------------------

def key_column(x, y, z_socket, reach=P.LID_TOP + 60.0):
    """A straight hex key (and the room round it) standing in a screw's socket at (x, y, z_socket)."""
    return cyl(P.STOP_KEY_R, z_socket + 0.01, reach, x, y)


def key_problems(parts, xys, z_socket):
    """Which stop screws a straight key cannot reach from above with the bowl, lid and pole on."""
    out = []
    for x, y in xys:
        col = key_column(x, y, z_socket)
        for name in ("bowl", "lid", "pole", "base"):
            if overlap(col, parts[name]) > TOUCH:
                out.append(f"the key to the stop at ({x:.0f}, {y:.0f}) meets the {name}")
    return out


def feeler_blade(x, y, width=6.0, thick=0.05, reach=45.0):
    """A feeler gauge's blade lying on the pad under a stop, reaching radially out past the bowl."""
    import math

    a = math.degrees(math.atan2(y, x))
    blade = box(-1.0, -width / 2, 0.0, reach, width / 2, thick)
    blade = blade.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), a)
    return blade.translate(cq.Vector(x, y, stop.pad_top() + 0.01))


def feeler_problems(parts, extra=()):
    """Which stops' gaps a feeler blade cannot reach from beside the bowl (lid off)."""
    from . import components

    obstacles = {"base": parts["base"], "bowl": parts["bowl"], "spacer": parts["spacer"],
                 "load cell": components.load_cell()}
    obstacles.update(extra)
    out = []
    for x, y in P.stop_xys():
        blade = feeler_blade(x, y)
        for name, solid in obstacles.items():
            if overlap(blade, solid) > TOUCH:
                out.append(f"the feeler blade to the stop at ({x:.0f}, {y:.0f}) meets the {name}")
    return out


def old_stop():
    """The old single stop: a set screw in a post at (CELL_L / 2 + 10, CELL_Y), its socket 1 mm
    under the bowl's underside (the planted fault of the key check)."""
    return (P.CELL_L / 2 + 10.0, P.CELL_Y), P.BOWL_Z0 - 0.5
