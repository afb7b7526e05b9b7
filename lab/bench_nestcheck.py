"""How long the resume check's matcher (gulo.nestcheck.differ) takes on the board, per case.

    .venv/bin/python -m lab.bench_nestcheck [--timing esp32|host] [--runs N] [--source FILE]

The module alone is put on a virtual board (its ESP32 clock by default: docs/virtual-board.md) and
timed with time.ticks_us() around `runs` calls of each case; the table gives the median call in ms.
The check runs once per settled level after a relearn (gulo.turnflow._check_nest), never per sample.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from nest.vboard import VirtualBoard  # noqa: E402

MPREMOTE = Path(sys.executable).with_name("mpremote")
# (case, off_g, the game's eggs out per colour): the nest full is G5 Y5 R5 B5 P2
CASES = [
    ("the bowl as the game left it", 0.0, {"R": 1, "Y": 1}),
    ("one egg put back while off", 16.0, {"R": 1, "Y": 1}),
    ("every egg back (world not kept), 3 out", 40.0, {"R": 1, "Y": 1, "G": 1}),
    ("ambiguous: -24 g (G+Y or P+P)", -24.0, {"R": 1, "Y": 1}),
    ("nothing fits: +5 g (the whole tree)", 5.0, {"R": 1, "Y": 1}),
    ("nothing fits, 12 eggs out", 5.0, {"G": 3, "Y": 3, "R": 3, "B": 2, "P": 1}),
    ("-36 g, 1 out (B+B, or G+G+R)", -36.0, {"Y": 1}),
    ("-138 g, 10 eggs on the table", -138.0, {}),
]
SCRIPT = """
import time, json
from gulo.nestcheck import differ
FULL = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}
M = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
out = []
for off, gone in CASES:
    nest = dict(FULL)
    for c in gone:
        nest[c] -= gone[c]
    ts = []
    for _ in range(RUNS):
        t = time.ticks_us()
        d = differ(off, nest, FULL, M, 1.0)
        ts.append(time.ticks_diff(time.ticks_us(), t))
    ts.sort()
    out.append([ts[len(ts) // 2], d])
print("RESULT " + json.dumps(out))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", default="esp32", choices=("esp32", "host"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--source", type=Path, default=ROOT / "firmware" / "gulo" / "nestcheck.py",
                    help="the nestcheck.py to time (e.g. an older one, to compare side by side)")
    a = ap.parse_args()
    code = SCRIPT.replace("CASES", json.dumps([[c[1], c[2]] for c in CASES])).replace("RUNS", str(a.runs))
    with VirtualBoard(baud=0, timing=a.timing) as board:
        run = [str(MPREMOTE), "connect", board.port]
        subprocess.run(run + ["fs", "mkdir", ":gulo"], capture_output=True, timeout=120)
        package = ROOT / "firmware" / "gulo" / "__init__.py"
        for src, f in ((package, "__init__.py"), (a.source, "nestcheck.py")):
            subprocess.run(run + ["fs", "cp", str(src), ":gulo/" + f], check=True, capture_output=True,
                           timeout=120)
        res = subprocess.run(run + ["exec", code], check=True, capture_output=True, text=True, timeout=600)
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")][-1]
    print(f"| case (timing {a.timing}, median of {a.runs}) | ms per call | answer |")
    print("|---|---|---|")
    for (name, _, _), (us, d) in zip(CASES, json.loads(line[7:]), strict=True):
        print(f"| {name} | {us / 1000:.1f} | {d} |")


if __name__ == "__main__":
    main()
