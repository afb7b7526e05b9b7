"""A board that lies: stand-ins at the host's API boundaries (the raw-REPL link, the JSON-lines
console) that answer what the nest firmware never would, for the tests of the host's distrust
(nest.boardtrust). The real firmware cannot be made to send these, so the lies are told here:

    link = LyingLink(files={"/data/../../.bashrc": b"..."})   # a listing that names a path out
    link = LyingLink(identity={"micropython": "\\x1b]0;owned\\x07", "nest": "a string"})
    con = LyingConsole(events=[{"ev": "action", "action": "x"}], answers={"logs": {...}})

Each lie the tests use is listed in LIES, with the tool it is aimed at.
"""

import ast
import base64
import json
import re
from pathlib import Path

from nest import boarddata, boardinfo
from nest.boardconsole import BoardConsole
from nest.boarddata import _LIST, DATA
from nest.boardtest import result_line
from nest.boardtrust import Malformed, plain
from nest.cmd_monitor import describe
from nest.errors import NestError

# Terminal control: a window title, a screen clear, a fake prompt, a right-to-left override.
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[H$ sudo rm -rf ~\r\u202e"

# Event lines whose shape is not their kind's (each made `nest monitor` end in a traceback).
BAD_EVENTS = [
    {"ev": "action", "action": "take"},                      # action is no object
    {"ev": "action"},                                        # no action at all
    {"ev": "undo", "outcome": [1, 2]},                       # outcome is no object
    {"ev": "note", "note": "prompt"},                        # note is no object
    {"ev": "note", "note": {"prompt": "x", "back": [1]}},     # eggs as a list, not counts
    {"ev": "note", "note": {"nest": "full"}},
    {"ev": "action", "action": {"do": "take"}, "outcome": {"player": "1"}},
    {"ev": "state", "state": [1]},
    {"ev": ["fault"]},
    {"re": ["x"], "ok": "yes"},
]

LIES = {
    "a data listing that names paths out of /data": "nest flash (boarddata.read_data, save_backup)",
    "escape sequences in every string": "monitor, ports, logs pull, deploy --dry-run, test",
    "events whose shape is not their kind's (BAD_EVENTS)": "monitor, diag",
    "/.nest/version.json holding a string": "ports (boardinfo.describe)",
    "a test result line that is not JSON": "nest test (boardtest)",
}


class LyingLink:
    """nest.boardlink.BoardLink's eval_json/exec as read_data and identify use them, over `files`
    ({board path: bytes}) listed as given (`listing` overrides the listing itself), and `identity`
    as the answer to boardinfo.identify."""

    def __init__(self, files=None, listing=None, identity=None):
        self.files = dict(files or {})
        self.listing = listing
        self.identity = identity
        self.execs = []

    def eval_json(self, code):
        if code == _LIST % DATA:
            if self.listing is not None:
                return self.listing
            return [[p, len(d)] for p, d in self.files.items()]
        if "sys.implementation" in code:
            return self.identity
        raise AssertionError(f"LyingLink: no answer for {code[:80]!r}")

    def exec(self, code, timeout=None):
        self.execs.append(code)
        m = re.search(r"open\((.*?), 'rb'\) as _f:\n    _f\.seek\((\d+)\)\n    print\(binascii\.b2a_base64"
                      r"\(_f\.read\((\d+)\)", code)
        if m:
            path, at, n = ast.literal_eval(m.group(1)), int(m.group(2)), int(m.group(3))
            piece = self.files.get(path, b"")[at:at + n]
            return base64.b64encode(piece) + b"\n"
        return b""


class LyingConsole:
    """nest.boardconsole.BoardConsole's request/events: `answers` {cmd: answer fields} (a callable
    gets the request's fields), `events` the lines events() yields."""

    def __init__(self, answers=None, events=()):
        self.answers = answers or {}
        self.lines = list(events)
        self.sent = []

    def request(self, cmd, timeout=5.0, check=True, **fields):
        self.sent.append((cmd, fields))
        answer = self.answers.get(cmd, {})
        if callable(answer):
            answer = answer(**fields)
        return {"re": cmd, "ok": True, **answer}

    def events(self, seconds=None):
        yield from self.lines

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def as_lines(objs):
    """The console lines (bytes) the board would print for these objects."""
    return [json.dumps(o).encode() for o in objs]


class LyingSerial:
    """A pyserial port (read, in_waiting, write, close) on which the board prints `lines` (bytes,
    each ended by a newline here) and answers each command line with `answer(cmd_obj)` (None:
    silence) printed after them."""

    def __init__(self, lines=(), answer=None):
        self.out = b"".join(line + b"\n" for line in lines)
        self.answer = answer
        self.written = []

    @property
    def in_waiting(self):
        return len(self.out)

    def read(self, n=1):
        chunk, self.out = self.out[:n], self.out[n:]
        return chunk

    def write(self, data):
        self.written.append(data)
        if self.answer is not None:
            reply = self.answer(json.loads(data))
            if reply is not None:
                self.out += (reply if isinstance(reply, bytes) else json.dumps(reply).encode()) + b"\n"
        return len(data)

    def close(self):
        pass


# ---- the drill: every lie above against the tools, counted (lab.drills) ----------------------------

PATHS_OUT = ["/data/../../escaped", "/data/games/../../../escaped", "/etc/escaped", "/data/", "/data//x",
             "/data/./x", "/data/a\\..\\x", "/data/" + ESCAPES, "/data/..", 7, None]
RESULT_LINES = ["not json", "", '{"ok": true}', '{"test": "m::f", "ok": "yes"}', "[1]", '{"test": 1}']
IDENTITIES = [{"micropython": "1.29.0", "machine": "ESP32", "nest": "a string"},
              {"micropython": "1.29.0", "machine": "ESP32", "nest": [1]},
              {"micropython": ESCAPES, "machine": ESCAPES, "build": ESCAPES, "nest": {"version": ESCAPES}},
              "x", None, {"machine": "m"}]


def _control_free(text):
    return not any(ch in text for ch in "\x1b\x07\x9b\u202e\r")


def drill(folder):
    """Each lie against the tool it is aimed at, in-process; counts of what happened. Any outcome
    other than a clear refusal (NestError), a line shown as malformed, or a good answer raises."""
    folder = Path(folder)
    n = {"lies": 0, "refused": 0, "shown": 0, "written_out": 0, "control_chars": 0}
    backups = folder / "backups"
    for path in PATHS_OUT:
        n["lies"] += 1
        try:
            boarddata.save_backup(boarddata.read_data(LyingLink(files={"/data/ok": b"1", path: b"owned"}))
                                  if isinstance(path, str) else {path: b"owned"}, "drill", backups)
        except NestError as e:
            n["refused"] += 1
            n["control_chars"] += not _control_free(str(e))
        else:
            raise AssertionError(f"backup of {path!r} not refused")
    n["written_out"] = sum(1 for p in folder.rglob("escaped*"))
    lines = BAD_EVENTS + [{"ev": "fault", "what": "hx711", "detail": ESCAPES},
                          {"ev": "crash", "error": ESCAPES}]
    con = BoardConsole(LyingSerial(as_lines(lines)), "the lying board")
    for ev in con.events(0.5):
        n["lies"] += 1
        text = plain(describe(ev)[0])
        n["shown"] += isinstance(ev, Malformed) or "FAULT" in text or "CRASH" in text
        n["control_chars"] += not _control_free(text)
    for identity in IDENTITIES:
        n["lies"] += 1
        try:
            text = boardinfo.describe(boardinfo.identify(LyingLink(identity=identity)))
            n["shown"] += 1
            n["control_chars"] += not _control_free(text)
        except NestError as e:
            n["refused"] += 1
            n["control_chars"] += not _control_free(str(e))
    for line in RESULT_LINES:
        n["lies"] += 1
        got = result_line(line)
        if not isinstance(got, str):
            raise AssertionError(f"nest test took {line!r} as a result")
        n["refused"] += 1
    if n["refused"] + n["shown"] != n["lies"] or n["written_out"] or n["control_chars"]:
        raise AssertionError(f"the hostile board got through: {n}")
    return n
