"""Cost of the egg weigher per sample inside the real MicroPython 1.29 VM (WebAssembly port, the
weigher compiled to .mpy as deployed), side by side with an earlier version, and what it allocates.
Run from the repository root:

    .venv/bin/python tools/bench_weigher.py [--old REV]   (default REV: 44a03bc, the weigher
                                                          counted in samples at exactly 80 SPS)

Two traces at 90 samples/s: 15 s of a nest at rest (the common case) and four takes (steady,
shaky, pressing, hanging). Both versions run the same samples in the same VM, alternating, best
of 15 each; the figure that
holds across machines is the ratio. The wasm VM is not an ESP32 (different CPU), so the times are
a guide; the allocation figure holds for the board, whose ints are the same small ints.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from micropython_vm import MPY_CROSS, MicroPythonVM  # noqa: E402

CODE = """
import gc, time
from world import NestWorld
from gulo.weigher import Weigher
from oldweigher import Weigher as Old
w = NestWorld(seed=3, sps=90)
t = 1000
for c, hand in (("R", "shaky"), ("G", "hang"), ("B", "press"), ("Y", "steady")):
    t = w.take(t, c, hand) + 1500
if TRACE == "rest":
    w = NestWorld(seed=3, sps=90)
ts = w.sample_times(0, t)
xs = [int(w.grams(x) * 100 + 0.5) for x in ts]
best = {}
used = {}
evs = {}
for rep in range(15):
    for name, cls in (("new", Weigher), ("old", Old)):
        wg = cls()
        f = wg.feed_cg
        for i in range(40):
            f(ts[i], xs[i])
        gc.collect()
        a = gc.mem_alloc()
        t0 = time.ticks_us()
        n = 0
        for i in range(40, len(ts)):
            if f(ts[i], xs[i]) is not None:
                n += 1
        dt = time.ticks_diff(time.ticks_us(), t0)
        used[name] = gc.mem_alloc() - a
        evs[name] = n
        if name not in best or dt < best[name]:
            best[name] = dt
k = len(ts) - 40
for name in ("new", "old"):
    print("%s, %s: %d samples, %d events, %.1f us/sample (best of 15), %d bytes allocated in the last run"
          % (TRACE, name, k, evs[name], best[name] / k, used[name]))
print("%s: new/old time per sample: %.2f" % (TRACE, best["new"] / best["old"]))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="44a03bc", help="git revision of the weigher to compare with")
    a = ap.parse_args(argv)
    src = subprocess.run(["git", "show", f"{a.old}:firmware/gulo/weigher.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as d:
        old_py = Path(d) / "oldweigher.py"
        old_py.write_text(src)
        old_mpy = Path(d) / "oldweigher.mpy"
        subprocess.run([str(MPY_CROSS), "-o", str(old_mpy), str(old_py)], check=True)
        vm = MicroPythonVM(Path(d) / "build")
        try:
            vm.start()
            vm.put("/lib/oldweigher.mpy", old_mpy.read_bytes())
            for trace in ("rest", "takes"):
                print(vm.exec(f"TRACE = {trace!r}\n" + CODE), end="")
        finally:
            vm.stop()


if __name__ == "__main__":
    main()
