"""Geometry tests of the printed nest (enclosure/): they build the real CAD parts and measure them.

What a broken design looks like, and the test that catches it:
- a boolean that silently removed or kept the wrong volume  -> volumes vs formulas from params
- a part that fell apart / is not printable as one piece     -> one valid solid, watertight STL
- a wall too thin to print                                   -> ray-cast wall thickness >= 1.6 mm
- the bowl resting on anything but the load cell             -> kernel distance queries >= 1 mm
- a pocket too tight or uselessly loose                      -> fit probes at the stated tolerance
- eggs that do not fit                                       -> placement of 22 ellipsoids + volume
Built parts are cached for the session; the whole file runs in well under a minute.
"""
import itertools
import math
from pathlib import Path

import pytest

cq = pytest.importorskip("cadquery")
pytest.importorskip("trimesh")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import base, bowl, components, egg, egg_plug, eggs, foot, lid, model, pole, spacer, tile  # noqa: E402
from enclosure import params as P  # noqa: E402
from enclosure.mesh import to_trimesh, wall_thickness_samples  # noqa: E402
from gulo import board  # noqa: E402
from gulo.weigher import DEFAULT_MASSES  # noqa: E402

pytestmark = pytest.mark.enclosure

PART_NAMES = list(model.PARTS)
EXPECTED = {"bowl": bowl.expected_volume, "base": base.expected_volume, "lid": lid.expected_volume,
            "pole": pole.expected_volume, "tile": tile.expected_volume,
            "foot": foot.expected_volume, "spacer": spacer.expected_volume,
            "egg": egg.expected_volume, "egg_plug": egg_plug.expected_volume}
# What rides on the load cell: all of it must hang from the cell alone.
FLOATING = ("bowl", "spacer", "pole")
# Closed cavities by design (a second shell): the pole's captured magnet.
CAVITIES = {"pole": pole.CAVITIES}
# Bought parts the bowl (with the pole and the eggs) must never touch. The cell is handled apart.
CLEARANCE = 1.0


@pytest.fixture(scope="session")
def parts():
    return model.build_all()


@pytest.fixture(scope="session")
def meshes(parts):
    return {name: to_trimesh(solid, 0.05, 0.1) for name, solid in parts.items()}


def _vol(shape):
    return shape.Volume() if shape is not None else 0.0


def _overlap(a, b):
    """Volume common to two shapes (0 when they only touch)."""
    return _vol(a.intersect(b))


def _crop(host, env, margin):
    """The host cut down to the envelope's neighbourhood: makes the fit probes fast."""
    bb = env.BoundingBox()
    g = margin
    cage = cq.Solid.makeBox(bb.xlen + 2 * g, bb.ylen + 2 * g, bb.zlen + 2 * g,
                            cq.Vector(bb.xmin - g, bb.ymin - g, bb.zmin - g))
    return host.intersect(cage)


# --- each part: one valid, watertight solid of the right volume -----------------------------------

def test_every_part_has_a_volume_formula():
    assert set(EXPECTED) == set(PART_NAMES)


@pytest.mark.parametrize("name", PART_NAMES)
def test_part_is_one_valid_solid(parts, name):
    solid = parts[name]
    assert solid.isValid(), f"{name}: OCC says the solid is invalid"
    assert len(solid.Solids()) == 1, f"{name}: {len(solid.Solids())} solids, expected one body"
    shells = 1 + CAVITIES.get(name, 0)
    assert len(solid.Shells()) == shells, f"{name}: {len(solid.Shells())} shells, expected {shells}"


@pytest.mark.parametrize("name", PART_NAMES)
def test_exported_stl_is_watertight(parts, name, tmp_path):
    trimesh = pytest.importorskip("trimesh")
    path = tmp_path / f"{name}.stl"
    cq.exporters.export(parts[name], str(path), tolerance=0.05, angularTolerance=0.1)
    mesh = trimesh.load(path)
    assert mesh.is_watertight, f"{name}.stl has holes"
    assert mesh.is_winding_consistent
    bodies = 1 + CAVITIES.get(name, 0)     # a closed cavity's skin counts as a body in trimesh
    assert mesh.body_count == bodies, f"{name}.stl has {mesh.body_count} separate bodies"
    assert mesh.volume == pytest.approx(parts[name].Volume(), rel=5e-3)


@pytest.mark.parametrize("name", PART_NAMES)
def test_volume_matches_formula(parts, name):
    """The kernel's volume against one computed from the parameters with plain formulas: a boolean
    that dropped a pocket, kept a tool or swallowed a rib changes it."""
    expected = EXPECTED[name]()
    assert parts[name].Volume() == pytest.approx(expected, rel=1e-6, abs=1e-3), (
        f"{name}: CAD {parts[name].Volume():.1f} mm3 vs formula {expected:.1f} mm3")


def _have_ray_engine():
    import importlib.util
    return any(importlib.util.find_spec(m) for m in ("embreex", "rtree"))


def _membrane_samples(pts):
    """Mask of the samples on the sacrificial layer over each light hole (both its faces)."""
    import numpy as np

    z0, z1 = lid.light_hole_top(), P.LID_TOP - P.TILE_SEAT_DEPTH
    on = (pts[:, 2] > z0 - 0.01) & (pts[:, 2] < z1 + 0.01)
    near = np.zeros(len(pts), bool)
    for x, y in P.led_xy():
        near |= np.hypot(pts[:, 0] - x, pts[:, 1] - y) < P.LIGHT_HOLE / 2 + 0.01
    return on & near


@pytest.mark.skipif(not _have_ray_engine(), reason="trimesh ray queries need embreex or rtree")
@pytest.mark.parametrize("name", PART_NAMES)
def test_min_wall_thickness(meshes, name):
    pts, thick = wall_thickness_samples(meshes[name])
    assert math.isfinite(thick.max()), f"{name}: a ray left the part without exiting it (open mesh?)"
    if name == "lid":   # the light holes' membranes are one layer by design (params.LIGHT_MEMBRANE)
        skin = _membrane_samples(pts)
        assert skin.any() and thick[skin] == pytest.approx(P.LIGHT_MEMBRANE, abs=0.02)
        pts, thick = pts[~skin], thick[~skin]
    i = int(thick.argmin())
    # 0.02 mm: the chord error of the tessellation (tolerance 0.05 on both faces of a wall).
    assert thick[i] >= P.MIN_WALL - 0.02, (
        f"{name}: wall {thick[i]:.2f} mm at {tuple(round(c, 1) for c in pts[i])} < {P.MIN_WALL}")


# --- the bowl floats on the load cell and on nothing else -----------------------------------------

@pytest.mark.parametrize("rider", FLOATING)
@pytest.mark.parametrize("fixed", ("base", "lid"))
def test_load_floats_clear_of_base_and_lid(parts, rider, fixed):
    d = parts[rider].distance(parts[fixed])
    assert d >= CLEARANCE, f"the {rider} is {d:.2f} mm from the {fixed} (need >= {CLEARANCE})"


def test_load_path_is_bowl_spacer_cell(parts):
    cell, flex = components.load_cell(), components.load_cell_flexure()
    bowl_, spacer_ = parts["bowl"], parts["spacer"]
    # bowl -> spacer -> cell's free end block: touching, not interpenetrating.
    assert bowl_.distance(spacer_) < 1e-6 and _overlap(bowl_, spacer_) < 1e-6
    assert spacer_.distance(cell) < 1e-6, "the spacer does not bear on the load cell"
    assert _overlap(spacer_, cell) < 1e-6, "the spacer intersects the load cell"
    # Nothing touches the flexure; the bowl itself clears the whole cell.
    for name in ("bowl", "spacer", "base"):
        d = parts[name].distance(flex)
        assert d >= CLEARANCE, f"the {name} is {d:.2f} mm from the cell's flexure"
    assert bowl_.distance(cell) >= CLEARANCE
    # The cell's free end (and so the bowl) hangs from the cell alone ...
    x1 = P.CELL_L / 2
    free_end = cq.Solid.makeBox(P.CELL_MOUNT_LEN, P.CELL_W, P.CELL_H,
                                cq.Vector(x1 - P.CELL_MOUNT_LEN, P.CELL_Y - P.CELL_W / 2, P.CELL_Z0))
    assert parts["base"].distance(free_end) >= CLEARANCE
    # ... and the fixed end sits on the riser.
    assert parts["base"].distance(cell) < 1e-6
    assert _overlap(parts["base"], cell) < 1e-6


def test_load_uses_at_most_half_the_cell(parts):
    """The dead load (bowl, spacer, pole: solid PLA, the magnet) plus the 22 weighted eggs at their
    class masses leaves the cell at least half its range for a child's hand pressing on them."""
    printed = sum(parts[n].Volume() for n in FLOATING) / 1000 * P.PLA_DENSITY
    magnet = math.pi / 4 * P.MAGNET_DIA ** 2 * P.MAGNET_H / 1000 * 7.5   # NdFeB ~7.5 g/cm3
    count = {"G": 5, "P": 2, "Y": 5, "R": 5, "B": 5}
    load = printed + magnet + sum(n * DEFAULT_MASSES[c] for c, n in count.items())
    assert sum(count.values()) == P.EGG_COUNT
    assert 300 < load <= P.CELL_CAPACITY_G / 2, f"{load:.0f} g on a {P.CELL_CAPACITY_G:.0f} g cell"


def test_clearance_check_can_fail(parts):
    """The distance query does see a bowl that sags onto the reed tower (guards the test above)."""
    sunk = parts["bowl"].translate(cq.Vector(0, 0, -(P.REED_GAP + 0.5)))
    assert sunk.distance(parts["base"]) < CLEARANCE


# --- bought parts fit their pockets ---------------------------------------------------------------

FITS = components.fits()


@pytest.mark.parametrize("label,host,env,tol,dirs", FITS, ids=[f[0] for f in FITS])
def test_component_fits_its_pocket(parts, label, host, env, tol, dirs):
    """No interference at its nominal place, and held: moved by its tolerance + 0.1 mm along each
    probe direction it hits the pocket wall, moved by tolerance - 0.05 mm it does not."""
    near = _crop(parts[host], env, tol + 3.0)
    assert _overlap(env, near) < 1e-4, f"{label} collides with the {host}"
    for dx, dy in dirs:
        loose = env.translate(cq.Vector(dx * (tol + 0.1), dy * (tol + 0.1), 0))
        assert _overlap(loose, near) > 1e-4, (
            f"{label}: more than {tol} mm of play towards ({dx:.2f}, {dy:.2f})")
        snug = env.translate(cq.Vector(dx * (tol - 0.05), dy * (tol - 0.05), 0))
        assert _overlap(snug, near) < 1e-4, (
            f"{label}: less than its {tol} mm clearance towards ({dx:.2f}, {dy:.2f})")


def test_bought_parts_collide_with_nothing(parts):
    """Every envelope against every printed part (not only its host): a button body through the
    base, the ESP32 into the bowl, ..."""
    envs = [(f[0], f[2]) for f in FITS if f[0] != "pole"]
    envs += [("load cell", components.load_cell()), ("ESP32-DevKitC", components.esp32()),
             ("harness plugs", components.harness())]
    for label, env in envs:
        bb = env.BoundingBox()
        for name in ("base", "lid", "bowl", "pole", "spacer"):
            pb = parts[name].BoundingBox()
            if bb.xmin > pb.xmax or pb.xmin > bb.xmax or bb.ymin > pb.ymax or pb.ymin > bb.ymax \
                    or bb.zmin > pb.zmax or pb.zmin > bb.zmax:
                continue
            assert _overlap(env, _crop(parts[name], env, 1.0)) < 1e-4, f"{label} hits the {name}"


def _wire_way():
    """The harness's housings and a channel of their height and width from them 30 mm on."""
    hx0, hy0, hz0, hx1, hy1, hz1 = P.harness_box()
    return cq.Solid.makeBox(hx1 - hx0 + 30.0, hy1 - hy0, hz1 - hz0, cq.Vector(hx0 - 30.0, hy0, hz0))


def test_the_harness_has_a_way_out(parts):
    """The wires leave the carrier: Dupont housings (2.54 x 2.54 x 14 mm + 5 mm for the bend) lie
    on the right-angle harness header at the carrier's -x edge, and a channel of their size runs
    from the header over the frame's low side out onto the open floor, under the bowl."""
    hx0, hy0, hz0, hx1, hy1, hz1 = P.harness_box()
    cx0, cy0, cz0, cx1, cy1, cz1 = P.carrier_box()
    assert cx0 < hx1 < P.esp_box()[0] and cy0 < hy0 and hy1 < cy1, "harness header off the carrier"
    assert hx1 - hx0 >= P.DUPONT[2] + P.WIRE_BEND and hz1 - hz0 >= P.DUPONT[0] and hz0 > cz1
    assert components.harness().distance(components.esp32()) > 0
    way = _wire_way()
    assert _overlap(way, parts["base"]) < 1e-6, "the wires' way out is blocked"
    assert way.distance(parts["bowl"]) >= CLEARANCE and _overlap(way, parts["lid"]) < 1e-6


def test_a_blocked_wire_way_is_caught(parts):
    """Planted fault: the frame's -x side as tall as the others (the old closed pocket)."""
    x0, y0, z0, x1, y1, z1 = P.carrier_box()
    wall = cq.Solid.makeBox(P.FRAME_WALL, y1 - y0, P.FRAME_ABOVE + P.CARRIER_PCB,
                            cq.Vector(x0 - P.CARRIER_TOL - P.FRAME_WALL, y0, z0))
    assert _overlap(_wire_way(), parts["base"].fuse(wall)) > 1.0


def test_usb_plug_reaches_the_devkit(parts):
    """A micro-USB plug's overmold (11 x 8 mm) passes through the back wall to the board's socket."""
    x0, y0, z0, x1, y1, z1 = P.esp_box()
    cx = (x0 + x1) / 2
    zc = P.FLOOR + P.ESP_POST + P.ESP_PCB + 1.5
    plug = cq.Solid.makeBox(11.0, 30.0, 8.0, cq.Vector(cx - 5.5, y1, zc - 4.0))
    assert _overlap(plug, parts["base"]) < 1e-6


def test_pole_fits_socket_and_can_fall(parts):
    assert P.SOCKET_BORE - P.POLE_DIA == pytest.approx(2 * P.SOCKET_TOL)
    # Seated: the foot rests on the socket floor.
    assert parts["pole"].distance(parts["bowl"]) < 1e-6
    assert _overlap(parts["pole"], parts["bowl"]) < 1e-6
    # Shallow enough to tip out (the game needs the pole to fall): depth <= half its diameter.
    assert P.SOCKET_DEPTH <= P.POLE_DIA / 2


def test_magnet_and_reed_share_the_poles_axis():
    """The arrangement the field simulation (test_enclosure_reed.py) assumes: the reed upright
    on the pole's axis, the magnet above it, the air gap and bowl floor between them."""
    mag, reed = components.magnet(), components.reed_switch()
    mc, rc = mag.Center(), reed.Center()
    assert math.hypot(mc.x - rc.x, mc.y - rc.y) < 1e-6
    bb = reed.BoundingBox()
    assert bb.zlen == pytest.approx(P.REED_GLASS_LEN) and bb.xlen == pytest.approx(P.REED_GLASS_DIA)
    gap = mag.BoundingBox().zmin - bb.zmax
    assert gap == pytest.approx(P.MAGNET_CAPTURE + P.BOWL_FLOOR + P.REED_GAP + P.REED_LEAD_BEND)
    assert mag.distance(reed) == pytest.approx(gap)


def test_magnet_is_captured(parts):
    """No face of the magnet is open to the outside: the pole's material surrounds it."""
    mag = components.magnet()
    assert _overlap(mag, parts["pole"]) < 1e-6
    hull = cq.Solid.makeCylinder(P.POLE_DIA / 2, P.POLE_LEN, cq.Vector(0, 0, P.BOWL_FLOOR_TOP))
    assert mag.distance(parts["pole"]) < 1e-6 and _overlap(mag, hull) == pytest.approx(mag.Volume())
    # The wall under it, all round it:
    assert mag.BoundingBox().zmin - P.BOWL_FLOOR_TOP >= P.MIN_WALL - 1e-9
    assert (P.POLE_DIA - pole.MAGNET_POCKET_DIA) / 2 >= P.MIN_WALL


# --- the nest holds the game ----------------------------------------------------------------------

def _inside_cavity(bx):
    x0, y0, z0, x1, y1, z1 = bx
    r_wall = P.bowl_inner_r(z0)     # the cavity widens upwards: its narrowest is at the box bottom
    corners_ok = all(math.hypot(x, y) <= r_wall for x, y in itertools.product((x0, x1), (y0, y1)))
    return corners_ok and z0 >= P.BOWL_FLOOR_TOP - 1e-9 and z1 <= P.BOWL_RIM_Z


def test_bowl_holds_22_eggs_by_placement(parts):
    placed = eggs.placement()
    assert len(placed) == P.EGG_COUNT == 22
    boxes = [eggs.box_of(e) for e in placed]
    for b in boxes:                          # re-checked here, independently of eggs.py's own test
        assert _inside_cavity(b), f"egg box {b} pokes out of the bowl"
        dx = max(abs((b[0] + b[3]) / 2) - (b[3] - b[0]) / 2, 0)
        dy = max(abs((b[1] + b[4]) / 2) - (b[4] - b[1]) / 2, 0)
        assert math.hypot(dx, dy) >= P.SOCKET_OUTER / 2, "egg on the pole's socket"
    for a, b in itertools.combinations(boxes, 2):
        apart = a[3] <= b[0] or b[3] <= a[0] or a[4] <= b[1] or b[4] <= a[1] or a[5] <= b[2] \
            or b[5] <= a[2]
        assert apart, f"eggs overlap: {a} {b}"
    # And with the kernel: the real ellipsoids against the bowl and the pole.
    solids = [components.egg(x, y, z, axis) for x, y, z, axis in placed]
    clutch = cq.Compound.makeCompound(solids)
    assert _overlap(clutch, parts["bowl"]) < 1e-3
    assert _overlap(clutch, parts["pole"]) < 1e-3
    egg_v = 4 / 3 * math.pi * (P.EGG_DIA / 2) ** 2 * (P.EGG_LEN / 2)
    assert clutch.Volume() == pytest.approx(22 * egg_v, rel=2e-3)


def test_bowl_volume_leaves_room_to_rummage():
    """Volume argument: random loose packing of egg shapes fills ~60 %; at <= 45 % the 22 eggs lie
    loose below the rim with room for a child's fingers."""
    egg_v = 4 / 3 * math.pi * (P.EGG_DIA / 2) ** 2 * (P.EGG_LEN / 2)
    fill = P.EGG_COUNT * egg_v / bowl.cavity_volume()
    assert 0.2 < fill <= 0.45, f"eggs fill {fill:.0%} of the bowl"


def test_bowl_checks_can_fail():
    """A box through the wall is refused by the same check the placement test uses."""
    z = P.BOWL_FLOOR_TOP
    r = P.bowl_inner_r(z)
    assert not _inside_cavity((r - 10, -5, z, r + 1, 5, z + P.EGG_DIA))


# --- the enclosure matches the firmware's board file ---------------------------------------------

def test_led_windows_match_board():
    assert len(P.led_path_xy()) == board.LED_PATH_COUNT
    assert len(P.led_xy()) == board.LED_COUNT
    assert board.LED_DECK == board.LED_PATH_COUNT and board.LED_STATUS == board.LED_DECK + 1


def test_every_button_has_a_hole():
    in_board = {n for n in board.PINS if n.startswith("BUTTON_")}
    in_lid = {n for n, _xy in P.button_xy()}
    assert in_lid == in_board


@pytest.mark.parametrize("name", PART_NAMES)
def test_part_fits_the_print_bed(parts, name):
    build = pytest.importorskip("enclosure.build")
    bb = build.exact_bbox(build.print_pose(name, parts[name]))
    size = sorted([bb.xlen, bb.ylen])
    bed = sorted(P.PRINT_BED[:2])
    assert size[0] <= bed[0] and size[1] <= bed[1] and bb.zlen <= P.PRINT_BED[2], (
        f"{name} is {bb.xlen:.0f} x {bb.ylen:.0f} x {bb.zlen:.0f} mm in print pose")
    assert bb.zmin == pytest.approx(0, abs=1e-6)


# --- the overload stops ----------------------------------------------------------------------------

def test_overload_stops_clear_the_base_by_their_gap_and_sit_under_the_bowl(parts):
    """Each stop's screw tip is STOP_GAP over its pad (kernel distance), more than the cell's
    deflection at its rated load for the most compliant flexure plausible (stop.py), and the
    screws stand in the bowl's floor. Reaching and setting them: test_enclosure_assembly.py."""
    from enclosure import stop

    for screw in components.stop_screws():
        gap = screw.distance(parts["base"])
        assert gap == pytest.approx(P.STOP_GAP, abs=1e-6)
        bb = screw.BoundingBox()
        core = cq.Solid.makeCylinder(P.STOP_PILOT / 2 - 0.01, bb.zlen,
                                     cq.Vector(bb.center.x, bb.center.y, bb.zmin))
        assert _overlap(core, parts["bowl"]) < 1e-4, "no pilot hole for the stop screw"
    assert P.STOP_GAP > stop.worst_deflection_mm()
    for x, y in P.stop_xys():
        assert math.hypot(x, y) + P.STOP_BOSS_DIA / 2 < P.BOWL_R_FLOOR, "a stop is not under the bowl"
