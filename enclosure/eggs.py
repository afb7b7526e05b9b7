"""Where 22 eggs go: a deterministic placement in layers, used by the tests (the bowl must hold
them) and by the renders. Eggs lie down (the stable pose) on a grid; each egg is checked through
its bounding box (31 x 24 x 24 mm), which is conservative: boxes apart => eggs apart."""
import itertools

from . import params as P

GAP = 0.5           # between neighbouring egg boxes
MARGIN = 0.5        # egg box to the bowl wall / the pole


def _box_ok(cx, cy, hx, hy, z0):
    """Box of half sizes hx, hy centred (cx, cy), from z0 up one egg: inside the cavity, off the pole."""
    r_wall = P.bowl_inner_r(z0) - MARGIN          # the cone is narrowest at the box's bottom
    for sx, sy in itertools.product((-1, 1), repeat=2):
        if (cx + sx * hx) ** 2 + (cy + sy * hy) ** 2 > r_wall ** 2:
            return False
    # Distance from the axis to the box (pole socket cup / pole keep-out).
    dx = max(abs(cx) - hx, 0.0)
    dy = max(abs(cy) - hy, 0.0)
    keep = P.SOCKET_OUTER / 2 + MARGIN
    return dx * dx + dy * dy >= keep * keep


def _overlap(a, b):
    return not (a[3] + GAP <= b[0] or b[3] + GAP <= a[0] or a[4] + GAP <= b[1] or b[4] + GAP <= a[1])


def _layer(z0, step=1.0):
    """Greedy fill of one layer: candidate boxes on a `step` grid in both orientations, the ones
    nearest the wall first (they constrain most), each kept if it overlaps nothing kept so far."""
    r = P.bowl_inner_r(z0)
    n = int(r // step) + 1
    cands = []
    for axis in ("x", "y"):
        hx, hy = (P.EGG_LEN / 2, P.EGG_DIA / 2) if axis == "x" else (P.EGG_DIA / 2, P.EGG_LEN / 2)
        for i in range(-n, n + 1):
            for j in range(-n, n + 1):
                cx, cy = i * step, j * step
                if _box_ok(cx, cy, hx, hy, z0):
                    cands.append((-(cx * cx + cy * cy), axis == "y", cx, cy, axis))
    cands.sort()
    kept, boxes = [], []
    for _key, _ay, cx, cy, axis in cands:
        egg = (cx, cy, z0, axis)
        b = box_of(egg)
        if not any(_overlap(b, o) for o in boxes):
            kept.append(egg)
            boxes.append(b)
    return kept


def placement(count=P.EGG_COUNT):
    """(x, y, z_bottom, axis) of `count` eggs, lowest layers first, or fewer if they do not fit."""
    eggs = []
    k = 0
    while len(eggs) < count:
        z0 = P.BOWL_FLOOR_TOP + k * (P.EGG_DIA + GAP)
        if z0 + P.EGG_DIA > P.BOWL_RIM_Z:       # every egg stays below the rim
            break
        eggs.extend(_layer(z0))
        k += 1
    return eggs[:count]


def box_of(egg):
    x, y, z0, axis = egg
    hx, hy = (P.EGG_LEN / 2, P.EGG_DIA / 2) if axis == "x" else (P.EGG_DIA / 2, P.EGG_LEN / 2)
    return (x - hx, y - hy, z0, x + hx, y + hy, z0 + P.EGG_DIA)
