"""The virtual board's ESP32 timing (host_tools/nest/vboard/timing.mjs): its calibration, its check,
and what a CPU-bound loop, a 4 KB file write and a 25-LED NeoPixel write cost on the board's clock
beside --timing host and beside what the model says.

    .venv/bin/python -m lab.bench_timing                     # the three workloads, both timings
    .venv/bin/python -m lab.bench_timing --calibrate DIR     # re-derive FACTOR (perf_bench)
    .venv/bin/python -m lab.bench_timing --independent DIR   # perf_bench vs PR #7850, once
    .venv/bin/python -m lab.bench_timing --pystone           # the check: pystone vs issue #5673
    .venv/bin/python -m lab.bench_timing --hx711-pulses      # SCK pulse lengths on the ESP32 clock

--calibrate and --independent run MicroPython's own tests/perf_bench (read from DIR, a MicroPython
work tree or a bare git folder; nothing of it is copied here) at N=100 M=100 on the board at its
default 160 MHz, each score beside the ESP32's published in micropython PR #7850 ("esp32-perf",
2021-09-24, the ESP32_GENERIC build at its default 160 MHz).

--pystone runs micropython-pystone_lowmem 3.4.2-4 (fetched from PyPI, checked by its sha256, kept
in build/pystone/; the benchmark of the published 1661 pystones/s of an ESP32 at 240 MHz,
micropython issue #5673) after machine.freq(240000000), as that run did: a benchmark the
calibration did not use.
"""

import argparse
import hashlib
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from nest.vboard import VirtualBoard  # noqa: E402

MPREMOTE = Path(sys.executable).with_name("mpremote")
PYSTONE_URL = ("https://files.pythonhosted.org/packages/2b/e9/cd38fe0fe0024193e6b8132b8c370c28ccd4bd8fae92dd5ae"
               "3b54d08768f/micropython-pystone_lowmem-3.4.2-4.tar.gz")
PYSTONE_SHA256 = "3d5cd43a7b21539d55ad5de85a273c4c4025296a78525774b1583e22b6cd1c5c"
ESP32_PYSTONES = 1661  # micropython/micropython issue #5673: v1.12, ESP32 @ 240 MHz, 500 passes
PASSES = 500

# The same model numbers as timing.mjs (read from it, never retyped)
TIMING_MJS = ROOT / "host_tools" / "nest" / "vboard" / "timing.mjs"

# each timed by the board's own ticks_us (the wall clock the pacer holds) and by its ESP32 clock
# (_vbjs.board_us, the simulator's: what the model charged, whatever the pacer still owed)
LOOP = """
import time, _vbjs
b, t = _vbjs.board_us(), time.ticks_us()
n = 0
for i in range(20000):
    n += i
print(json.dumps({"us": time.ticks_diff(time.ticks_us(), t), "board_us": _vbjs.board_us() - b}))
"""
WRITE = """
import time, _vbjs
d = b"x" * 4096
b, t = _vbjs.board_us(), time.ticks_us()
f = open("bench.bin", "wb")
f.write(d)
f.close()
print(json.dumps({"us": time.ticks_diff(time.ticks_us(), t), "board_us": _vbjs.board_us() - b}))
"""
LEDS = """
import time, machine, neopixel, _vbjs
np = neopixel.NeoPixel(machine.Pin(LEDS_PIN), 25)
np.fill((10, 20, 30))
b, t = _vbjs.board_us(), time.ticks_us()
np.write()
print(json.dumps({"us": time.ticks_diff(time.ticks_us(), t), "board_us": _vbjs.board_us() - b}))
"""


def model_constants():
    """FACTOR's parts, the flash and LED figures, as timing.mjs has them."""
    node = (f"import('{TIMING_MJS.as_uri()}').then(m => console.log(JSON.stringify({{factor: m.FACTOR, "
            "flash: m.FLASH_COSTS, "
            "led_byte_us: m.WS2812_US_PER_BYTE, pin_us: m.PIN_CALL_US})))")
    return json.loads(subprocess.run(["node", "-e", node], check=True, capture_output=True, text=True).stdout)


def exec_on(board, code):
    out = subprocess.run([str(MPREMOTE), "connect", board.port, "exec", "import json\n" + code], check=True,
                         capture_output=True, text=True, timeout=300).stdout
    return json.loads(out.strip().splitlines()[-1])


def clock(board):
    return board.board_request({"op": "timing"})["clock"] or {}


def measured(board, code, rounds):
    """Median board-clock cost of `code` (its own ticks_us) and the clock's parts of that run."""
    runs = []
    for _ in range(rounds):
        before = clock(board)
        us = exec_on(board, code)
        after = clock(board)
        runs.append((us, {k: v - before.get(k, 0) for k, v in after.items() if isinstance(v, (int, float))}))
    runs.sort(key=lambda r: r[0]["us"])
    return runs[len(runs) // 2]


def workloads(rounds):
    from nest.vboard.launcher import pin_map
    leds_pin = pin_map()["LEDS"]
    m = model_constants()
    flash = m["flash"]["typ"]
    # littlefs's pattern for 4096 B into a new file: 1 sector erased, 16 pages, the close's commit
    write_model = flash["sector_us"] + 16 * flash["page_us"] + flash["page_us"]
    leds_model = 25 * 3 * m["led_byte_us"]
    rows = []
    for name, code, io_model in (("CPU-bound loop, 20,000 additions", LOOP, 0),
                                 ("4 KB file write (open, write, close)", WRITE, write_model),
                                 ("25-LED NeoPixel write", LEDS.replace("LEDS_PIN", str(leds_pin)),
                                  leds_model)):
        host = esp = board_clock = parts = esp_factor = None
        for timing in ("host", "esp32"):
            with VirtualBoard(baud=0, timing=timing) as board:
                exec_on(board, code)  # once to warm up (imports, first-time compile)
                us, d = measured(board, code, rounds)
                factor = clock(board).get("factor")
            if timing == "host":
                host = us["us"]
            else:
                esp, board_clock, parts, esp_factor = us["us"], us["board_us"], d, factor
        rows.append({"what": name, "host_us": host, "esp32_us": esp, "board_us": board_clock,
                     "model_io_us": io_model, "clock_io_us": parts.get("io_us", 0),
                     "factor": esp_factor})
    return m, rows


def pystone_source():
    cache = ROOT / "build" / "pystone" / "pystone_lowmem.py"
    if not cache.exists():
        data = urllib.request.urlopen(PYSTONE_URL, timeout=60).read()
        if hashlib.sha256(data).hexdigest() != PYSTONE_SHA256:
            raise SystemExit(f"{PYSTONE_URL}: sha256 mismatch, not the published package")
        member = "micropython-pystone_lowmem-3.4.2-4/pystone_lowmem.py"
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(tarfile.open(fileobj=io.BytesIO(data)).extractfile(member).read())
    return cache


def pystone_runs(factor, runs):
    """pystones/s as the board's own ticks_ms see them, and the board's factor at 240 MHz
    (`factor`: at 160 MHz; None, timing.mjs's)."""
    src = pystone_source()
    scores = []
    with VirtualBoard(baud=0, timing="esp32", timing_factor=factor) as board:
        subprocess.run([str(MPREMOTE), "connect", board.port, "fs", "cp", str(src), ":pystone_lowmem.py"],
                       check=True, capture_output=True, timeout=120)
        code = ("import machine, pystone_lowmem\nmachine.freq(240000000)\n"
                f"t, s = pystone_lowmem.pystones({PASSES})\n"
                "print(json.dumps({'us': t * 1000, 'score': s}))")
        for i in range(runs):
            r = exec_on(board, code)
            if i >= 2:  # the first runs are the VM's cold code
                scores.append(r["score"])
        factor240 = clock(board)["factor"]  # pystone's machine.freq(240000000) is in force
    return scores, factor240


def calibrate(checkout, runs, rounds=2):
    """FACTOR on the nine perf_bench workloads of PR #7850: the board runs them at a factor f, whose
    median board / ESP32 ratio r implies f x r; the next run is at the median of the factors
    implied so far, and so is the result. Run-to-run noise on this shared machine (+-30 %
    between two runs at the same value) swamps any finer interpolation (a secant step on two noisy
    points once jumped to 5x the value)."""
    m = model_constants()
    points, factor = [], m["factor"]
    for _ in range(rounds + 1):
        print(f"factor {factor:.2f}:", flush=True)
        points.append((factor, independent(checkout, runs, factor=factor)))
        factor = statistics.median(f * x for f, x in points)
    print(f"calibrated factor {factor:.2f} (timing.mjs has {m['factor']:.2f}): "
          + ", ".join(f"{f:.2f} -> {x:.2f}" for f, x in points))


def pystone_check(runs):
    """pystone_lowmem after machine.freq(240000000), as the published run (1661/s) did."""
    scores, factor240 = pystone_runs(None, runs)
    print(f"pystone_lowmem {PASSES} passes at 240 MHz (factor {factor240:.2f} on this board): median "
          f"{statistics.median(scores):,.0f} pystones/s ({', '.join(str(x) for x in scores)}); the ESP32's "
          f"published {ESP32_PYSTONES} (MicroPython v1.12)")


PULSES = """
import _vbjs, json
from machine import Pin
sck = Pin(SCK_PIN, Pin.OUT, value=0)
s = sck.value
def pulses(n):
    r = []
    for _ in range(n):
        a = _vbjs.board_us()
        s(1)
        s(0)
        r.append(_vbjs.board_us() - a)
    return r
pulses(50)
print(json.dumps(pulses(400)))
"""


def hx711_pulses():
    """Board-clock us of an SCK pulse pair as the firmware's driver makes it (s(1); s(0), with a
    bound method: firmware/gulo/hx711.py), each between two reads of the board clock."""
    from nest.vboard.launcher import pin_map
    with VirtualBoard(baud=0, timing="esp32") as board:
        out = subprocess.run([str(MPREMOTE), "connect", board.port, "exec",
                              PULSES.replace("SCK_PIN", str(pin_map()["HX711_SCK"]))],
                             check=True, capture_output=True, text=True, timeout=120).stdout
    us = sorted(json.loads(out.strip().splitlines()[-1]))
    n = len(us)
    print(f"SCK pulse pair on the ESP32 clock, n={n}: median {us[n // 2]} us, p90 {us[n * 9 // 10]}, "
          f"p99 {us[n * 99 // 100]}, max {us[-1]}; over 60 us (the HX711's power-down): "
          f"{sum(u > 60 for u in us)}")


# micropython PR #7850 ("esp32: enable some optimisations", dpgeorge, 2021-09-24): perf_bench
# scores (higher is faster) of the ESP32_GENERIC build "esp32-perf", N=100 M=100
PR7850_ESP32 = {"bm_chaos": 244.00, "bm_fannkuch": 71.63, "bm_fft": 2467.62, "bm_float": 3467.35,
                "bm_hexiom": 31.12, "bm_nqueens": 2232.22, "bm_pidigits": 591.97, "misc_aes": 334.52,
                "misc_mandel": 1966.91}


def _perf_bench_file(checkout, name):
    """A file of tests/perf_bench from a MicroPython work tree, or a bare git folder's HEAD."""
    path = Path(checkout) / "tests" / "perf_bench" / name
    if path.exists():
        return path.read_text()
    return subprocess.run(["git", "-C", str(checkout), "show", f"HEAD:tests/perf_bench/{name}"], check=True,
                          capture_output=True, text=True).stdout


def independent(checkout, runs, timing="esp32", factor=None):
    """perf_bench at N=100 M=100 on the board (run-perfbench.py's own recipe: the test, then
    benchrun.py, then bm_run(100, 100); score = 1e6 * norm / us), median of `runs`."""
    bench = _perf_bench_file(checkout, "benchrun.py")
    rows = []
    with VirtualBoard(baud=0, timing=timing, timing_factor=factor) as board:
        for name, esp32 in PR7850_ESP32.items():
            script = _perf_bench_file(checkout, name + ".py") + "\n" + bench + "\nbm_run(100, 100)\n"
            with tempfile.TemporaryDirectory() as tmp:
                f = Path(tmp) / "bm.py"
                f.write_text(script)
                scores = []
                for _ in range(runs):
                    out = subprocess.run([str(MPREMOTE), "connect", board.port, "run", str(f)], check=True,
                                         capture_output=True, text=True, timeout=600).stdout.split()
                    scores.append(1e6 * int(out[1]) / int(out[0]))
            score = statistics.median(scores)
            rows.append((name, score, esp32))
            print(f"{name}: board {score:.1f} (runs {', '.join(f'{x:.1f}' for x in scores)}), ESP32 {esp32}: "
                  f"ratio {score / esp32:.2f}", flush=True)
    ratios = [b / e for _, b, e in rows]
    print(f"board / ESP32 over {len(rows)} workloads: median {statistics.median(ratios):.2f}, "
          f"min {min(ratios):.2f}, max {max(ratios):.2f}", flush=True)
    return statistics.median(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibrate", metavar="DIR",
                    help="re-derive FACTOR on perf_bench of the MicroPython checkout DIR")
    ap.add_argument("--pystone", action="store_true", help="the check: pystone_lowmem (PyPI) vs 1661/s")
    ap.add_argument("--independent", metavar="DIR",
                    help="perf_bench of the MicroPython checkout DIR vs PR #7850")
    ap.add_argument("--timing", default="esp32", help="with --independent: the board's timing")
    ap.add_argument("--hx711-pulses", action="store_true", help="the HX711 SCK pulses on the ESP32 clock")
    ap.add_argument("--rounds", type=int, default=5, help="runs per workload (median reported)")
    args = ap.parse_args()
    if args.hx711_pulses:
        hx711_pulses()
        return
    if args.independent:
        independent(args.independent, args.rounds, args.timing)
        return
    if args.calibrate:
        calibrate(args.calibrate, args.rounds)
        return
    if args.pystone:
        pystone_check(args.rounds + 2)
        return
    m, rows = workloads(args.rounds)
    print(f"factor {m['factor']:.1f} (before a board times its reference), flash typ {m['flash']['typ']}, "
          f"{m['led_byte_us']} us per LED byte, "
          f"{m['pin_us']} us per machine call")
    print("| workload | --timing host | --timing esp32: ticks_us | --timing esp32: board clock "
          "| model: host x factor + I/O | of which I/O (model / board clock) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        model = r["host_us"] * r["factor"] + r["model_io_us"]
        print(f"| {r['what']} (factor {r['factor']:.1f}) | {r['host_us'] / 1000:.2f} ms | "
              f"{r['esp32_us'] / 1000:.2f} ms | "
              f"{r['board_us'] / 1000:.2f} ms | {model / 1000:.2f} ms | "
              f"{r['model_io_us'] / 1000:.2f} / {r['clock_io_us'] / 1000:.2f} ms |")


if __name__ == "__main__":
    main()
