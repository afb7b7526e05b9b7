"""Benchmark of `nest deploy` on the virtual board at 115200 baud, side by side with mpremote.

    .venv/bin/python -m lab.bench_deploy [--runs N]

Figures (each the median of N runs, a fresh board per full deploy):
- full deploy of firmware/ (compiled .mpy + main.py + boot.py) with `nest deploy`, versus
  `mpremote connect PORT fs cp -r gulo main.py boot.py :` of the very same files;
- a deploy with nothing changed (manifest round trip only; without and with the final reset),
  versus mpremote's own `fs cp -r` of the same files again (mpremote also skips a file whose
  sha256 on the board matches: mpremote/commands.py, do_filesystem_cp);
- the whole `nest deploy` command with nothing changed, as a maker waits for it (start-up, the
  manifest, the reset and the wait for the app's `ready`), wall time, versus that `mpremote fs cp -r`;
- start-up: `nest --version` and `nest ports --no-probe` versus `mpremote --version` (median of
  STARTS runs each; no board involved).
`run()` returns the rows for `make bench`: dicts with figure, value, baseline, ratio, command.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from nest.deploy import build, deploy  # noqa: E402
from nest.vboard import VirtualBoard  # noqa: E402

COMMAND = ".venv/bin/python -m lab.bench_deploy"
MPREMOTE = Path(sys.executable).with_name("mpremote")
NEST = Path(sys.executable).with_name("nest")
STARTS = 10


def _timed(fn):
    t = time.monotonic()
    fn()
    return time.monotonic() - t


def _mpremote_cp(port, folder):
    names = sorted(p.name for p in folder.iterdir())
    subprocess.run([str(MPREMOTE), "connect", port, "fs", "cp", "-r", *names, ":"], cwd=folder,
                   check=True, capture_output=True, timeout=300)


def _wall(argv):
    t = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return time.monotonic() - t


def startup_rows(starts=STARTS):
    """Start-up of `nest` against mpremote's: the median wall time of `starts` runs each."""
    base = statistics.median(_wall([str(MPREMOTE), "--version"]) for _ in range(starts))
    rows = []
    for argv in (["--version"], ["ports", "--no-probe"]):
        ours = statistics.median(_wall([str(NEST), *argv]) for _ in range(starts))
        rows.append({"figure": f"start-up: `nest {' '.join(argv)}` (median of {starts}), s; baseline "
                               "`mpremote --version`", "value": round(ours, 3), "baseline": round(base, 3),
                     "ratio": round(base / ours, 2), "command": COMMAND})
    return rows


def run(runs=3, baud=115200, timing="esp32"):
    files = build(ROOT / "firmware")
    size = sum(len(b) for b in files.values())
    with tempfile.TemporaryDirectory() as tmp:
        same = Path(tmp) / "tree"
        for rel, data in files.items():
            (same / rel).parent.mkdir(parents=True, exist_ok=True)
            (same / rel).write_bytes(data)
        ours, theirs, still, still_reset, theirs_still, whole = [], [], [], [], [], []
        for _ in range(runs):
            with VirtualBoard(baud=baud, headless=True, timing=timing) as board:
                ours.append(_timed(lambda b=board: deploy(b.port, reset=False)))
                still.append(_timed(lambda b=board: deploy(b.port, reset=False)))
                still_reset.append(_timed(lambda b=board: deploy(b.port, reset=True)))
                whole.append(_wall([str(NEST), "deploy", "--port", board.port]))
            with VirtualBoard(baud=baud, headless=True, timing=timing) as board:
                theirs.append(_timed(lambda b=board: _mpremote_cp(b.port, same)))
                theirs_still.append(_timed(lambda b=board: _mpremote_cp(b.port, same)))
        shutil.rmtree(same)
    full, base = statistics.median(ours), statistics.median(theirs)
    return [
        {"figure": f"full deploy of firmware/ ({len(files)} files, {size} bytes) at {baud} baud, s",
         "value": round(full, 2), "baseline": round(base, 2), "ratio": round(base / full, 2),
         "command": COMMAND},
        {"figure": "deploy with nothing changed, no reset, s", "value": round(statistics.median(still), 2),
         "baseline": round(statistics.median(theirs_still), 2),
         "ratio": round(statistics.median(theirs_still) / statistics.median(still), 2), "command": COMMAND},
        {"figure": "deploy with nothing changed, with the final soft reset and the wait for `ready`, s",
         "value": round(statistics.median(still_reset), 2), "baseline": None, "ratio": None,
         "command": COMMAND},
        {"figure": "`nest deploy` with nothing changed, the whole command (start-up to `ready`), wall s",
         "value": round(statistics.median(whole), 2), "baseline": round(statistics.median(theirs_still), 2),
         "ratio": round(statistics.median(theirs_still) / statistics.median(whole), 2), "command": COMMAND},
    ] + startup_rows()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for row in run(args.runs):
        extra = f"  (mpremote fs cp -r: {row['baseline']} s, {row['ratio']}x)" if row["baseline"] else ""
        print(f"{row['figure']}: {row['value']}{extra}")


if __name__ == "__main__":
    main()
