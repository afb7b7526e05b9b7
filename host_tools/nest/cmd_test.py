"""`nest test`: the firmware's test suite run on the board itself (nest.boardtest)."""

import sys

from nest.boardlink import DEFAULT_BAUD
from nest.boardtest import FIRMWARE, STAGES, hardware_check, run_tests, write_junit
from nest.errors import NestError


def add_parser(sub):
    p = sub.add_parser("test", help="run the firmware's tests on the board (the same ones pytest runs)",
                       description="Runs the firmware's own tests on the board (the ones pytest runs on the "
                                   "host and in the MicroPython VM): PASS/FAIL per test, a hanging test "
                                   "interrupted after --timeout and the run going on, JUnit XML with "
                                   "--junit. The tests are removed from the board after (and on Ctrl-C) "
                                   "and the board reset so the game runs. --hardware instead checks the "
                                   "HX711, reed switch, LEDs and buzzer, asking on the terminal.")
    p.add_argument("--port", help="serial port (default: the one ESP32 board plugged in)")
    p.add_argument("-k", dest="pattern", metavar="PATTERN",
                   help="only tests whose module::name contains this")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="leave out tests whose module::name contains this (may be repeated)")
    p.add_argument("--rerun-failed", action="store_true",
                   help="only the tests that failed in the last run of this test folder")
    p.add_argument("--keep", action="store_true",
                   help="leave the tests on the board (/nest_test, /scratch): the next run sends only "
                        "what changed")
    p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="seconds per test before the board is reset and the run goes on (default 30)")
    p.add_argument("--hardware", action="store_true",
                   help="self-test of the real peripherals (HX711, reed switch, LEDs, buzzer), with prompts")
    p.add_argument("--stage", type=int, choices=range(1, len(STAGES) + 1), metavar="N",
                   help="with --hardware: check only what is wired at bring-up stage N: "
                        + "; ".join(f"{i} {what}" for i, what in enumerate(STAGES, 1))
                        + " (enclosure/ASSEMBLY.md; default: everything)")
    p.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML")
    p.add_argument("--tests", default=str(FIRMWARE / "tests"),
                   help="test folder (default firmware/tests)")
    p.add_argument("--src", default=str(FIRMWARE), help="firmware folder (default firmware/)")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD, help=f"serial speed (default {DEFAULT_BAUD})")
    return p


def run(args):
    if args.stage is not None and not args.hardware:
        raise NestError("--stage N goes with --hardware (the bring-up's checks)", status=2)
    if args.hardware:
        def ask(question):  # the question on its own line: a script driving the prompts sees it
            print(question, flush=True)
            return sys.stdin.readline()

        report = hardware_check(args.port, baud=args.baud, ask=ask, say=lambda s: print(s, flush=True),
                                stage=args.stage)
        if args.junit:
            write_junit(report, args.junit)
        return 1 if report.failed else 0
    report = run_tests(args.port, args.tests, firmware_dir=args.src, pattern=args.pattern,
                       timeout=args.timeout, baud=args.baud, say=lambda s: print(s, flush=True),
                       exclude=args.exclude, rerun_failed=args.rerun_failed, keep=args.keep)
    if args.junit:
        write_junit(report, args.junit)
    return 1 if report.failed else 0
