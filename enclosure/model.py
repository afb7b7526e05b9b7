"""All printed parts in assembly position: name -> cadquery Solid."""
from . import base, bowl, egg, egg_plug, foot, lid, pole, spacer, tile
from . import params as P

# name -> (module, build kwargs, material note). One entry per distinct printed part; the tiles
# and feet are identical copies, exported once (index 0) and placed 25 / 4 times in renders.
PARTS = {
    "bowl": (bowl, {}, "PLA/PETG, 0.2 mm layers, no support (8 deg draft)"),
    "base": (base, {}, "PLA/PETG, 0.2 mm layers, no support (USB hole bridges 13 mm)"),
    "lid": (lid, {}, "PLA/PETG, upside down (top face on the bed), no support (seats bridge 14.4 mm)"),
    "pole": (pole, {}, "PLA, or a 10 mm beech dowel drilled 6.3 mm at both ends (magnet, brass)"),
    "spacer": (spacer, {}, "PLA/PETG, 100 % infill"),
    "tile": (tile, {"index": 0}, f"natural/translucent PETG x {len(P.led_xy())}"),
    "foot": (foot, {"index": 0}, f"TPU 95A x {len(P.foot_centres())}"),
    "egg": (egg, {}, f"PLA, 100 % infill, flat on the bed, in the colours x {P.EGG_COUNT}"),
    "egg_plug": (egg_plug, {}, f"PLA, 100 % infill x {P.EGG_COUNT}"),
}
# Loose parts: not in the nest's assembly (they are not in place on the base).
LOOSE = ("egg", "egg_plug")


def build_part(name):
    module, kwargs, _note = PARTS[name]
    return module.build(**kwargs)


def build_all(progress=None):
    out = {}
    for name in PARTS:
        if progress:
            progress(name)
        out[name] = build_part(name)
    return out
