"""Build the nest: every printed part as STL and STEP, PNG previews and the wiring diagram.

    .venv/bin/python enclosure/build.py            # everything into enclosure/out/
    .venv/bin/python enclosure/build.py --docs     # ... and refresh the small previews in docs/enclosure/

STL/STEP are exported in print orientation (flat face on the bed); enclosure/out/assembly.step holds
every part in its assembled position.
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import cadquery as cq  # noqa: E402
import numpy as np  # noqa: E402
import trimesh  # noqa: E402

from enclosure import components, eggs, foot, model, perfboard, reed, render, schematic, split, tile, wiring  # noqa: E402
from enclosure import params as P  # noqa: E402
from enclosure.mesh import to_trimesh  # noqa: E402

OUT = ROOT / "enclosure" / "out"
DOCS = ROOT / "docs" / "enclosure"

COLOURS = {
    "base": (0.55, 0.58, 0.62), "lid": (0.93, 0.91, 0.86), "bowl": (0.80, 0.62, 0.38),
    "pole": (0.72, 0.52, 0.30), "spacer": (0.85, 0.30, 0.20), "tile": (1.0, 1.0, 0.92),
    "foot": (0.15, 0.15, 0.15), "egg": (0.2, 0.65, 0.25), "egg_plug": (0.2, 0.65, 0.25),
    "cell": (0.78, 0.80, 0.84), "esp32": (0.10, 0.20, 0.45), "hx711": (0.10, 0.45, 0.20),
}
EGG_COLOURS = [(0.2, 0.65, 0.25)] * 5 + [(0.95, 0.85, 0.15)] * 5 + [(0.85, 0.15, 0.15)] * 5 \
    + [(0.15, 0.35, 0.85)] * 5 + [(0.55, 0.25, 0.65)] * 2


class Progress:
    def __init__(self, total):
        self.total, self.n, self.t0 = total, 0, time.monotonic()

    def step(self, what):
        self.n += 1
        print(f"[{self.n:2d}/{self.total} {time.monotonic() - self.t0:5.1f}s] {what}", flush=True)


def exact_bbox(shape):
    """Bounding box from the exact geometry: Shape.BoundingBox() uses a cached triangulation when
    the shape was meshed before, which is off by the chord error."""
    from OCP.Bnd import Bnd_Box
    from OCP.BRepBndLib import BRepBndLib

    box = Bnd_Box()
    BRepBndLib.AddOptimal_s(shape.wrapped, box, False, False)
    return cq.BoundBox(box)


def print_pose(name, solid):
    """The part turned and moved for printing: lowest face on z = 0."""
    if name == "lid":
        solid = solid.rotate(cq.Vector(0, 0, 0), cq.Vector(1, 0, 0), 180)
    elif name == "pole":
        from . import pole
        solid = pole.print_pose(solid)   # standing: the magnet goes in at the pause (pole.pause_z)
    bb = exact_bbox(solid)
    return solid.translate(cq.Vector(-(bb.xmin + bb.xmax) / 2, -(bb.ymin + bb.ymax) / 2, -bb.zmin))


def egg_meshes():
    out = []
    for (x, y, z0, axis), rgb in zip(eggs.placement(), EGG_COLOURS):
        m = trimesh.creation.icosphere(subdivisions=2)
        a, c = P.EGG_DIA / 2, P.EGG_LEN / 2
        m.apply_scale((c, a, a) if axis == "x" else (a, c, a))
        m.apply_translation((x, y, z0 + a))
        out.append((m, rgb))
    return out


def scene(parts, coarse=0.4, lift=None):
    """[(mesh, rgb)] of the assembly; lift = {"lid": dz, "bowl": dz} for an exploded view."""
    lift = lift or {}
    items = []

    def add(shape, rgb, dz=0.0):
        m = to_trimesh(shape, coarse, 0.4)
        # Long sliver triangles sort badly in matplotlib's painter's algorithm: cut them up.
        v, f = trimesh.remesh.subdivide_to_size(m.vertices, m.faces, max_edge=12.0)
        m = trimesh.Trimesh(v, f, process=False)
        if dz:
            m.apply_translation((0, 0, dz))
        items.append((m, rgb))

    add(parts["base"], COLOURS["base"])
    add(parts["lid"], COLOURS["lid"], lift.get("lid", 0))
    add(parts["bowl"], COLOURS["bowl"], lift.get("bowl", 0))
    add(parts["pole"], COLOURS["pole"], lift.get("bowl", 0))
    add(parts["spacer"], COLOURS["spacer"], lift.get("bowl", 0) / 2)
    for i in range(len(P.led_xy())):
        add(tile.build(i), COLOURS["tile"], lift.get("lid", 0))
    for i in range(len(P.foot_centres())):
        add(foot.build(i), COLOURS["foot"])
    add(components.load_cell(), COLOURS["cell"])
    add(components.esp32(), COLOURS["esp32"])
    add(components.hx711(), COLOURS["hx711"])
    for m, rgb in egg_meshes():
        m = m.copy()
        m.apply_translation((0, 0, lift.get("bowl", 0)))
        items.append((m, rgb))
    return items


def section_items(parts):
    items = [(name, parts[name], COLOURS[name]) for name in ("base", "lid", "bowl", "pole", "spacer")]
    items.append(("load cell", components.load_cell(), COLOURS["cell"]))
    items.append(("reed switch", components.reed_switch(), (0.3, 0.3, 0.3)))
    items.append(("magnet", components.magnet(), (0.6, 0.1, 0.6)))
    items.append(("ESP32", components.esp32(), COLOURS["esp32"]))
    return items


def shrink_png(src, dst, width):
    from PIL import Image

    img = Image.open(src).convert("RGB")
    if img.width > width:
        img = img.resize((width, round(img.height * width / img.width)), Image.LANCZOS)
    img.quantize(colors=256).save(dst, optimize=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Export the nest's parts, renders and wiring.")
    ap.add_argument("--docs", action="store_true", help="also refresh docs/enclosure/*.png")
    ap.add_argument("--no-render", action="store_true", help="skip the PNG previews")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    names = list(model.PARTS)
    prog = Progress(len(names) * 2 + 1 + (1 if P.SPLIT_PARTS else 0) + (0 if args.no_render else 6)
                    + (1 if args.docs else 0))
    parts = {}
    for name in names:
        prog.step(f"build {name}")
        parts[name] = model.build_part(name)
    for name in names:
        prog.step(f"export {name}.stl / {name}.step ({parts[name].Volume() / 1000:.0f} cm3)")
        pose = print_pose(name, parts[name])
        cq.exporters.export(pose, str(OUT / (name + ".stl")), tolerance=0.05, angularTolerance=0.1)
        cq.exporters.export(pose, str(OUT / (name + ".step")))
    if P.SPLIT_PARTS:
        prog.step("export base_split_1..4, lid_split_1..4 (in four for a 220 x 220 mm bed)")
        for name, pieces in (("base", split.pieces()), ("lid", split.lid_pieces(parts["lid"]))):
            for i, piece in enumerate(pieces, 1):
                pose = print_pose(name, piece)
                path = OUT / f"{name}_split_{i}"
                cq.exporters.export(pose, f"{path}.stl", tolerance=0.05, angularTolerance=0.1)
                cq.exporters.export(pose, f"{path}.step")
    prog.step("export assembly.step")
    asm = cq.Assembly()
    for name in names:
        if name not in model.LOOSE:
            asm.add(parts[name], name=name, color=cq.Color(*COLOURS[name]))
    asm.export(str(OUT / "assembly.step"))
    if wiring.write():
        print(f"updated {wiring.YAML_PATH} from board.py: commit it")
    if not args.no_render:
        prog.step("render assembly.png")
        render.view(scene(parts), OUT / "assembly.png", title="Gulo Gulo nest")
        prog.step("render exploded.png")
        render.view(scene(parts, lift={"lid": 70, "bowl": 140}), OUT / "exploded.png",
                    elev=20, title="exploded: lid +70 mm, bowl +140 mm")
        prog.step("render section.png")
        render.section(section_items(parts),
                       [(0.0, "section y = 0: pole, magnet, reed switch in its tower"),
                        (P.CELL_Y, f"section y = {P.CELL_Y:.0f}: load cell, riser, spacer under the bowl")],
                       OUT / "section.png")
        prog.step("wiring.svg/png (WireViz)")
        wiring.render(OUT)
        prog.step("reed-field.png (magpylib)")
        reed.plot(OUT / "reed-field.png")
        prog.step("schematic.png, perfboard.png (schemdraw, from board.py)")
        schematic.draw(OUT / "schematic.png")
        perfboard.draw(OUT / "perfboard.png")
    if args.docs:
        prog.step("docs/enclosure previews")
        DOCS.mkdir(parents=True, exist_ok=True)
        for name, width in (("assembly", 800), ("exploded", 800), ("section", 800), ("wiring", 1100),
                            ("reed-field", 800), ("schematic", 1400), ("perfboard", 600)):
            shrink_png(OUT / (name + ".png"), DOCS / (name + ".png"), width)
    total = sum(f.stat().st_size for f in OUT.iterdir())
    print(f"done: {len(list(OUT.iterdir()))} files, {total / 1e6:.1f} MB in {OUT}")
    _ = np  # numpy is imported for trimesh's sake
    return 0


if __name__ == "__main__":
    sys.exit(main())
