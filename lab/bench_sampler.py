"""Cost of the sampler's per-sample path inside the real MicroPython 1.29 VM (WebAssembly port,
.mpy as deployed): the HX711's silence (heard), the weigher (feed_cg) and the nest's watch
(check), as gulo.app's sampler calls them, side by side with the same path before the clock that
wraps (gulo.hx711 and gulo.nestfault at 7524c48, plain `-` on times; the weigher is the same in
both). Run from the repository root:

    .venv/bin/python -m lab.bench_sampler [--old REV]

Two uptimes for the same trace (lab/bench_weigher.py's: 15 s at rest and four takes, 90/s):
at boot, and 13 days on, where the old path's times were long ints (the new clock's wrap). Both
versions run in the same VM, taking turns to go first, best of REPS runs of K paths each (the
VM's clock counts whole milliseconds); the figure that holds is the ratio. The wasm VM is not an
ESP32, so the times are a guide; the bytes allocated hold for the board (the same small ints).
docs/weigher.md, "Cost on the device".
"""

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from lab.bench_weigher import TRACE_CODE, old_source, put_old  # noqa: E402
from testkit.micropython_vm import MicroPythonVM  # noqa: E402

K = 10
REPS = 15
BASE = "7524c48"   # the last main whose clock never wrapped
DAY_MS = 86_400_000
CODE = """
import gc, time
from gulo.clock import WRAP
from gulo.hx711 import Silence
from gulo.nestfault import NestWatch
from gulo.weigher import Weigher
from oldhx711 import Silence as OldSilence
from oldnestfault import NestWatch as OldWatch
""" + TRACE_CODE + """
new_ts = [(t + UP) & WRAP for t in ts]
old_ts = [t + UP for t in ts]
best = {}
used = {}
for rep in range(REPS):
    first = (("new", Silence, NestWatch, new_ts), ("old", OldSilence, OldWatch, old_ts))
    for name, S, N, tt in (first if rep % 2 else (first[1], first[0])):
        paths = []
        for j in range(K):
            s, w, n = S(tt[0]), Weigher(), N()
            for i in range(40):
                s.heard(tt[i])
                w.feed_cg(tt[i], xs[i])
                n.check(w, tt[i])
            paths.append((s, w, n))
        gc.collect()
        a = gc.mem_alloc()
        t0 = time.ticks_us()
        for s, w, n in paths:
            for i in range(40, len(tt)):
                t = tt[i]
                s.heard(t)          # (over() only when no conversion came: gulo.app's sampler)
                w.feed_cg(t, xs[i])
                n.check(w, t)
        dt = time.ticks_diff(time.ticks_us(), t0)
        used[name] = (gc.mem_alloc() - a) // K
        if name not in best or dt < best[name]:
            best[name] = dt
k = len(ts) - 40
for name in ("new", "old"):
    print("%s %d %s %d %d %d" % (TRACE, UP, name, k, best[name], used[name]))
"""


def measure(rev=BASE, reps=REPS):
    """{(trace, uptime_ms, version): {"us": per sample, "alloc": bytes per path}}."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        vm = MicroPythonVM(Path(d) / "build")
        try:
            vm.start()
            for module in ("hx711", "nestfault"):
                put_old(vm, Path(d), module, old_source(rev, module))
            for trace in ("rest", "takes"):
                for up in (0, 13 * DAY_MS):
                    code = f"TRACE = {trace!r}\nUP = {up}\nK = {K}\nREPS = {reps}\n" + CODE
                    for line in vm.exec(code).split("\n"):
                        if not line.strip():
                            continue
                        tr, u, name, k, best, used = line.split()
                        out[(tr, int(u), name)] = {"us": int(best) / int(k) / K, "alloc": int(used)}
        finally:
            vm.stop()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", default=BASE,
                   help="the revision of gulo.hx711 and gulo.nestfault to compare")
    args = p.parse_args(argv)
    m = measure(args.old)
    print("| trace | uptime | now us/sample | before us/sample | now / before | now allocated "
          "| before allocated |")
    print("|---|---|---|---|---|---|---|")
    for trace in ("rest", "takes"):
        for up in (0, 13 * DAY_MS):
            new, old = m[(trace, up, "new")], m[(trace, up, "old")]
            print(f"| {trace} | {up // DAY_MS} days | {new['us']:.1f} | {old['us']:.1f} | "
                  f"{new['us'] / old['us']:.2f} | {new['alloc']} B | {old['alloc']} B |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
