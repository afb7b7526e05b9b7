"""Cost of the egg weigher per sample inside the real MicroPython 1.29 VM (WebAssembly port, the
weigher compiled to .mpy as deployed), side by side with an earlier version, and what it allocates.
Run from the repository root:

    .venv/bin/python -m lab.bench_weigher [--old REV]   (default REV: 44a03bc, the weigher
                                                          counted in samples at exactly 80 SPS)
    .venv/bin/python -m lab.bench_weigher --old-file PATH   (any weigher.py: a variant)

Two traces at 90 samples/s: 15 s of a nest at rest (the common case) and four takes (steady,
shaky, pressing, hanging). Both versions run the same samples in the same VM, taking turns to go
first, best of 25 runs each (a run: 20 weighers over the trace, since the VM's clock counts whole
milliseconds); the figure that holds across machines is the ratio, and the same weigher against
itself (`--old-file firmware/gulo/weigher.py`) shows its noise (0.96-1.02 on 2026-11-24). The
wasm VM is not an ESP32 (different CPU), so the times are a guide; the allocation figure holds
for the board, whose ints are the same small ints. docs/weigher.md, "Cost on the device".

    .venv/bin/python -m lab.bench_weigher --count [--old REV]

counts instead the machine instructions the weigher costs per sample (valgrind's callgrind) in
MicroPython's unix port built 32-bit at the ESP32 port's feature level (EXTRA_FEATURES, so the
same map-lookup cache, threads and GIL; lab/build_frozen_unix.sh builds it as
build/frozen-unix/bin/micropython-plain-32). Exact and repeatable, whatever else the machine is
doing: a count, not a time. x86 instructions are not Xtensa cycles, but the ESP32's in-order core
pays for each executed instruction far more evenly than a desktop core running the wasm VM.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from testkit.micropython_vm import MPY_CROSS, MicroPythonVM  # noqa: E402

# MicroPython's wasm port counts ticks_us in whole milliseconds (1,300 samples take about 13 ms:
# a step of 8 %), so each timed run feeds the trace to K weighers one after another.
K = 20
REPS = 25
# The two traces, as code for the VM (TRACE names which): 15 s at rest, or four takes.
TRACE_CODE = """
try:
    from nest.world import NestWorld
except ImportError:
    from world import NestWorld
w = NestWorld(seed=3, sps=90)
t = 1000
for c, hand in (("R", "shaky"), ("G", "hang"), ("B", "press"), ("Y", "steady")):
    t = w.take(t, c, hand) + 1500
if TRACE == "rest":
    w = NestWorld(seed=3, sps=90)
ts = w.sample_times(0, t)
xs = [int(w.grams(x) * 100 + 0.5) for x in ts]
"""
CODE = """
import gc, time
from gulo.weigher import Weigher
from oldweigher import Weigher as Old
""" + TRACE_CODE + """best = {}
used = {}
evs = {}
for rep in range(REPS):
    # each goes first in every other round (whichever runs second finds the VM warmed up)
    first = (("new", Weigher), ("old", Old))
    for name, cls in (first if rep % 2 else (first[1], first[0])):
        fs = []
        for j in range(K):
            f = cls().feed_cg
            for i in range(40):
                f(ts[i], xs[i])
            fs.append(f)
        gc.collect()
        a = gc.mem_alloc()
        t0 = time.ticks_us()
        n = 0
        for f in fs:
            for i in range(40, len(ts)):
                if f(ts[i], xs[i]) is not None:
                    n += 1
        dt = time.ticks_diff(time.ticks_us(), t0)
        used[name] = (gc.mem_alloc() - a) // K
        evs[name] = n // K
        if name not in best or dt < best[name]:
            best[name] = dt
k = len(ts) - 40
for name in ("new", "old"):
    print("%s %s %d %d %d %d" % (TRACE, name, k, evs[name], best[name], used[name]))
"""


def old_source(rev="44a03bc", module="weigher"):
    """gulo/<module>.py as it was at git revision `rev`."""
    return subprocess.run(["git", "show", f"{rev}:firmware/gulo/{module}.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def put_old(vm, folder, module, source):
    """An earlier gulo/<module>.py (its text), compiled to .mpy in `folder` and put on the started
    VM as `old<module>`, to import beside the working tree's."""
    py = folder / f"old{module}.py"
    py.write_text(source)
    mpy = py.with_suffix(".mpy")
    subprocess.run([str(MPY_CROSS), "-o", str(mpy), str(py)], check=True)
    vm.put(f"/lib/old{module}.mpy", mpy.read_bytes())


def measure(old_src, reps=REPS):
    """The working tree's weigher against `old_src` (a weigher.py's text), in one VM: for each
    trace ("rest", "takes") and version ("new", "old"): samples, events, us per sample (best of
    REPS runs) and bytes allocated per weigher."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        vm = MicroPythonVM(Path(d) / "build")
        try:
            vm.start()
            put_old(vm, Path(d), "weigher", old_src)
            for trace in ("rest", "takes"):
                for line in vm.exec(f"TRACE = {trace!r}\nK = {K}\nREPS = {reps}\n" + CODE).split("\n"):
                    if not line.strip():
                        continue
                    tr, name, k, evs, best, used = line.split()
                    out[(tr, name)] = {"samples": int(k), "events": int(evs),
                                       "us": int(best) / int(k) / K, "alloc": int(used)}
        finally:
            vm.stop()
    return out


# The same traces in MicroPython's unix port, run under callgrind: the trace alone ("none"), then
# with the working tree's and the old weigher over it; the weigher's cost is the difference, over
# KC weighers. A count is exact for one heap layout, but the layout moves it: the same weigher from
# another folder or with other arguments counted 1-3 % apart (the GC's and the map-lookup cache's
# luck). So every version runs at PADS layouts (a bytearray of that many bytes allocated first)
# and the median is taken.
KC = 5
PADS = (0, 24, 56, 120, 248)
COUNT_CODE = """
import sys
MODE, TRACE = sys.argv[1], sys.argv[2]
pad = bytearray(int(sys.argv[3]))
""" + TRACE_CODE + """if MODE == "weigh":
    from gulo.weigher import Weigher
n = 0
KC = int(sys.argv[4])
if MODE == "weigh":
    for j in range(KC):
        f = Weigher().feed_cg
        for i in range(len(ts)):
            if f(ts[i], xs[i]) is not None:
                n += 1
print(len(ts), n)
"""
UNIX_MP = ROOT / "build" / "frozen-unix" / "bin" / "micropython-plain-32"


def count(old_src, unix_mp=UNIX_MP, pads=PADS):
    """Instructions per sample of the working tree's weigher and of `old_src`, for each trace:
    {(trace, "new"|"old"): {"samples", "events", "instr", "spread"}}: the median over `pads` heap
    layouts and the lowest and highest. Each version runs from a folder of its own as the same
    gulo/weigher.mpy, with the same arguments."""
    if not unix_mp.exists():
        sys.exit(f"bench_weigher: {unix_mp} is missing: build it with lab/build_frozen_unix.sh")
    out = {}
    with tempfile.TemporaryDirectory() as top:
        dirs = {}
        for k, (mode, src) in enumerate((("new", (ROOT / "firmware/gulo/weigher.py").read_text()),
                                         ("old", old_src), ("none", ""))):
            d = dirs[mode] = Path(top) / str(k)   # paths of one length
            (d / "gulo").mkdir(parents=True)
            (d / "gulo" / "__init__.py").write_text("")
            (d / "weigher.py").write_text(src)
            subprocess.run([str(MPY_CROSS), "-o", str(d / "gulo" / "weigher.mpy"), "-s", "weigher.py",
                            str(d / "weigher.py")], check=True)
            (d / "weigher.py").unlink()
            (d / "world.py").write_text((ROOT / "host_tools" / "nest" / "world.py").read_text())
            (d / "run.py").write_text(COUNT_CODE)
        for trace in ("rest", "takes"):
            per = {"new": [], "old": []}
            for pad in pads:
                got = {}
                for mode, d in dirs.items():
                    arg = "none" if mode == "none" else "weigh"
                    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                        str(unix_mp), "-X", "heapsize=120K", "run.py", arg, trace, str(pad),
                                        str(KC)],
                                       cwd=d, capture_output=True, text=True, check=True)
                    samples, events = (int(v) for v in p.stdout.split())
                    got[mode] = (samples, events // KC, int(p.stderr.split("Collected :")[1].split()[0]))
                    print(".", end="", file=sys.stderr, flush=True)
                for mode in per:
                    samples, events, instr = got[mode]
                    per[mode].append((samples, events, (instr - got["none"][2]) / (KC * samples)))
            for mode, runs in per.items():
                costs = sorted(r[2] for r in runs)
                out[(trace, mode)] = {"samples": runs[0][0], "events": runs[0][1],
                                      "instr": costs[len(costs) // 2], "spread": (costs[0], costs[-1])}
        print(file=sys.stderr)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="44a03bc", help="git revision of the weigher to compare with")
    ap.add_argument("--old-file", help="or a weigher.py to compare with (a variant being tried)")
    ap.add_argument("--count", action="store_true",
                    help="count instructions (callgrind, the unix port at the ESP32's feature level)")
    a = ap.parse_args(argv)
    old = Path(a.old_file).read_text() if a.old_file else old_source(a.old)
    if a.count:
        got = count(old)
        for trace in ("rest", "takes"):
            for name in ("new", "old"):
                r = got[(trace, name)]
                print(f"{trace}, {name}: {r['samples']} samples, {r['events']} events, "
                      f"{r['instr']:.0f} instructions/sample (median of {len(PADS)} heap layouts; "
                      f"{r['spread'][0]:.0f}-{r['spread'][1]:.0f})")
            print(f"{trace}: new/old instructions per sample: "
                  f"{got[(trace, 'new')]['instr'] / got[(trace, 'old')]['instr']:.3f}")
        return
    got = measure(old)
    for trace in ("rest", "takes"):
        for name in ("new", "old"):
            r = got[(trace, name)]
            print(f"{trace}, {name}: {r['samples']} samples, {r['events']} events, {r['us']:.2f} us/sample "
                  f"(best of {REPS} runs of {K} weighers), {r['alloc']} bytes allocated per weigher")
        ratio = got[(trace, "new")]["us"] / got[(trace, "old")]["us"]
        print(f"{trace}: new/old time per sample: {ratio:.2f}")


if __name__ == "__main__":
    main()
