"""`nest logs pull [--out DIR]`: fetch the board's game logs as files `nest replay` reads."""

import os
import re
from pathlib import Path

from nest.boardconsole import open_console
from nest.boardtrust import confined, plain
from nest.errors import NestError

# The only log names the firmware makes (gulo.gamestore.GameStore.finish: "%04d.jsonl", numbered
# from 1; the running game is asked for as "current"). A board is a device on a cable, not a trusted peer: any
# other name (a path, "..", a non-string) is refused before it comes near the file system.
ARCHIVE_NAME = re.compile(r"[0-9]{4,9}\.jsonl")


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


def board_log_names(answer):
    """The archived logs' names from the board's `logs` answer, each checked against the names
    the firmware makes; NestError naming the first one that is not."""
    names = answer.get("logs")
    if not isinstance(names, list):
        raise NestError(f"the board's answer to logs has no list of logs: {plain(str(answer)[:200])}")
    for name in names:
        if not isinstance(name, str) or not ARCHIVE_NAME.fullmatch(name):
            raise NestError(f"the board named a log {name!r}, which is not a name the firmware makes "
                            "(NNNN.jsonl): refused, nothing written for it")
    return list(names)


def pull(con, out, current=True):
    """Write every log into `out`; returns the paths written."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise NestError(f"--out {out}: cannot make the folder ({e.strerror})") from None
    names = board_log_names(con.request("logs"))
    if current:
        names.append("current")
    written = []
    for name in names:
        answer = con.request("log", timeout=10.0, check=False, name=name)
        if not answer.get("ok"):
            if name == "current":
                continue  # no game under way (or nothing played yet)
            raise NestError(f"the board refused log {name}: {plain(answer.get('error'))}")
        lines = answer.get("lines")
        if not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
            raise NestError(f"log {name}: the board's answer has no list of lines")
        path = confined(out, name if name.endswith(".jsonl") else f"{name}.jsonl")
        tmp = path.with_suffix(".tmp")
        try:
            tmp.write_text("".join(s + "\n" for s in lines))
            os.replace(tmp, path)  # a half-written file never carries a log's name
        except OSError as e:
            raise NestError(f"cannot write {path}: {e.strerror}") from None
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
