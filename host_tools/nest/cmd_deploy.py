"""`nest deploy`: the firmware onto the board, only what changed, atomically (nest.deploy)."""

import sys

from nest.boardlink import DEFAULT_BAUD
from nest.deploy import FIRMWARE, deploy


def add_parser(sub):
    p = sub.add_parser("deploy", help="compile the firmware to .mpy and send what changed to the board",
                       description="Compiles the firmware to .mpy and sends only what changed, through a "
                                   "journal: a deploy cut anywhere leaves the previous firmware booting. "
                                   "Then resets the board and waits for the nest app's `ready` (main.py's "
                                   "traceback and a non-zero exit if it raised). The board's own boot.py "
                                   "(WiFi, WebREPL) is kept unless --force; /data is never touched.")
    p.add_argument("--port", help="serial port (default: the one ESP32 board plugged in)")
    p.add_argument("--src", default=str(FIRMWARE), help="firmware folder (default: firmware/)")
    p.add_argument("--dry-run", action="store_true", help="print the plan (send/delete/keep), touch nothing")
    p.add_argument("--no-reset", action="store_true",
                   help="do not reset the board at the end (it stays at the REPL; `nest reset` starts it)")
    p.add_argument("--force", action="store_true",
                   help="replace the board's own boot.py too (removed when the firmware folder has none)")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD, help=f"serial speed (default {DEFAULT_BAUD})")
    return p


class ProgressBar:
    """`[#####.....] 12.3/36.4 KB` on stderr, redrawn in place; silent when stderr is not a terminal."""

    def __init__(self, stream=sys.stderr, width=30):
        self.stream, self.width = stream, width
        self.tty = stream.isatty()

    def __call__(self, done, total):
        if not self.tty or not total:
            return
        filled = self.width * done // total
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{done / 1024:.1f}/{total / 1024:.1f} KB")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def run(args):
    report = deploy(args.port, args.src, dry_run=args.dry_run, reset=not args.no_reset, baud=args.baud,
                    progress=ProgressBar(), force=args.force)
    if report.finished_previous:
        print("finished a deploy that had been cut during its commit")
    if args.dry_run:
        for line in report.plan_lines():
            print(line)
    else:
        for path in report.own:
            print(f"kept the board's own {path} (--force replaces it)")
    print(report.summary())
    if report.started:
        print(f"the board is {report.started}")
    return 0
