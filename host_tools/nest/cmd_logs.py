"""`nest logs pull [--out DIR]`: fetch the board's game logs as files `nest replay` reads."""

import os
from pathlib import Path

from nest.boardconsole import open_console
from nest.errors import NestError


def add_parser(sub):
    p = sub.add_parser("logs", help="fetch the game logs from the board",
                       description="Fetch the finished games (games/NNNN.jsonl on the board) and the "
                                   "running one (current.jsonl) through the console's logs/log "
                                   "commands, written as JSON Lines files that `nest replay` reads.")
    p.add_argument("action", choices=("pull",), help="pull: copy every log to --out")
    p.add_argument("--port", help="serial port (default: the single board found)")
    p.add_argument("--out", default="nest-logs", help="folder to write to (default ./nest-logs)")
    p.add_argument("--no-current", action="store_true", help="leave out the game being played")
    return p


def pull(con, out, current=True):
    """Write every log into `out`; returns the paths written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = list(con.request("logs")["logs"])
    if current:
        names.append("current")
    written = []
    for name in names:
        answer = con.request("log", timeout=10.0, check=False, name=name)
        if not answer.get("ok"):
            if name == "current":
                continue  # no game under way (or nothing played yet)
            raise NestError(f"the board refused log {name}: {answer.get('error')}")
        lines = answer.get("lines")
        if not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
            raise NestError(f"log {name}: the board's answer has no list of lines")
        path = out / (name if name.endswith(".jsonl") else f"{name}.jsonl")
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(s + "\n" for s in lines))
        os.replace(tmp, path)  # a half-written file never carries a log's name
        written.append(path)
    return written


def run(args):
    with open_console(args) as con:
        written = pull(con, args.out, current=not args.no_current)
    for path in written:
        print(path)
    if not written:
        print(f"no game logs on the board (nothing written to {args.out})")
    return 0
