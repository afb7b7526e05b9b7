"""What an idle virtual nest costs its host: the board's processes' CPU time over 20 s while the
firmware waits at a pick (nothing happening but the HX711 sampled), in % of one core. The suite
runs many such boards side by side, so this is much of the load it makes.

    .venv/bin/python -m lab.vboard_idle_load           # at the HX711's 80 SPS
    .venv/bin/python -m lab.vboard_idle_load --sps 10  # at 10 SPS: the difference is the readouts
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from nest.vboard import launcher
from testkit.boardkit import booted_nest


def cpu_s(pid):
    """User + system CPU seconds of `pid` and its children."""
    total = 0
    for p in [pid] + [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sps", type=int, default=launcher.HX711_SPS, help="HX711 rate (default: %(default)s)")
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    launcher.HX711_SPS = args.sps
    with booted_nest(Path(tempfile.mkdtemp(prefix="idle-load-")) / "flash") as nest:
        nest.new(2, "standard", 3)
        nest.wait_phase("pick")
        time.sleep(2)
        pid = nest.board.proc.pid
        c0, t0 = cpu_s(pid), time.monotonic()
        time.sleep(args.seconds)
        share = (cpu_s(pid) - c0) / (time.monotonic() - t0)
    print(f"idle board at {args.sps} SPS: {100 * share:.1f} % of a core")


if __name__ == "__main__":
    main()
