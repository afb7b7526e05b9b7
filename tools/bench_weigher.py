"""Cost of the egg weigher per sample inside the real MicroPython 1.29 VM (WebAssembly port, the
weigher compiled to .mpy as deployed), and what it allocates. Run from the repository root:

    .venv/bin/python tools/bench_weigher.py

The wasm VM is not an ESP32 (different CPU, double-precision floats), so the time is a guide; the
allocation figure holds for the board, whose ints are the same small ints.
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from micropython_vm import MicroPythonVM  # noqa: E402

CODE = """
import gc, time
from world import NestWorld
from gulo.weigher import Weigher
w = NestWorld(seed=3)
t = 1000
for c, hand in (("R", "shaky"), ("G", "hang"), ("B", "press"), ("Y", "steady")):
    t = w.take(t, c, hand) + 1500
ts = w.sample_times(0, t)
xs = [int(w.grams(x) * 100 + 0.5) for x in ts]
gs = [x / 100 for x in xs]
for name, fn, data in (("feed_cg (int centigrams)", "feed_cg", xs), ("feed (float grams)", "feed", gs)):
    best = None
    for rep in range(5):
        wg = Weigher()
        f = getattr(wg, fn)
        for i in range(40):
            f(ts[i], data[i])
        gc.collect()
        a = gc.mem_alloc()
        t0 = time.ticks_us()
        n = 0
        for i in range(40, len(ts)):
            if f(ts[i], data[i]) is not None:
                n += 1
        dt = time.ticks_diff(time.ticks_us(), t0)
        used = gc.mem_alloc() - a
        if best is None or dt < best:
            best = dt
    print("%s: %d samples, %d events, %.1f us/sample (best of 5), %d bytes allocated in the last run"
          % (name, len(ts) - 40, n, best / (len(ts) - 40), used))
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        vm = MicroPythonVM(Path(d))
        try:
            vm.start()
            print(vm.exec(CODE), end="")
        finally:
            vm.stop()


if __name__ == "__main__":
    main()
