"""What a board sends is checked before the host uses it: a board is a device on a cable, not a
trusted peer (a damaged flash, other firmware, or a board made to lie). Three checks, one place:

    path = confined(folder, "games/0001.jsonl")   # a file inside `folder`, or NestError
    print(plain(text))                            # control characters shown, never obeyed
    ev = checked(obj)                             # the line if its shape is its kind's, else BoardLie

The schemas (one per message kind the host reads) are here so that `monitor`, `ports`, `test`,
`diag` and `logs` agree on what a well-formed line is.
"""

import math
import re
import unicodedata
from pathlib import Path

from nest.errors import NestError

# ---- names --------------------------------------------------------------------------------------


def check_name(name, folder=".", what="the board"):
    """NestError unless `name` is a plain relative file name (parts joined by "/"): not absolute,
    no "..", ".", empty part, backslash, colon or control character. Its parts."""
    if not isinstance(name, str) or not name:
        raise NestError(f"{what} named a file {plain(repr(name))}: not a file name; refused, nothing written")
    parts = name.split("/")
    if "\\" in name or any(p in ("", ".", "..") or ":" in p or _has_control(p) for p in parts):
        raise NestError(f"{what} named a file {plain(repr(name))}, which is not a plain name inside "
                        f"{folder}: refused, nothing written")
    return parts


def confined(folder, name, what="the board"):
    """`folder / name` for a relative name `what` gave (a board path less its root, a log name), or
    NestError when it would land anywhere but inside `folder` (check_name), a symlink already in the
    folder pointing out included."""
    root = Path(folder)
    target = root.joinpath(*check_name(name, folder, what))
    if not target.resolve().is_relative_to(root.resolve()):
        raise NestError(f"{what} named a file {plain(repr(name))}, which leads out of {folder} "
                        "(a link on the way): refused, nothing written")
    return target


# ---- text for the terminal ----------------------------------------------------------------------

# Unicode categories a terminal acts on or hides: C0/C1 controls (ESC starts a title, a screen
# clear, a cursor move), format characters (right-to-left overrides), line and paragraph separators.
_HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def _has_control(text):
    return any(unicodedata.category(ch) in _HIDDEN for ch in text)


def plain(text, newlines=False):
    """`text` (anything: str() of it) with every control character shown as an escape (\\x1b,
    \\u202e) instead of reaching the terminal; newlines kept only when asked (a multi-line report)."""
    text = str(text)
    out = []
    for ch in text:
        if ch == "\n" and newlines:
            out.append(ch)
        elif unicodedata.category(ch) in _HIDDEN:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


# ---- the shapes of the board's lines ------------------------------------------------------------
#
# A spec is a type (str, bool), INT (an int, never a bool), NUM (a finite int or float, never a
# bool), ANY, None (null), a tuple (any one of them), a one-spec list (a list of those), a longer
# list (a list of exactly those, in order), a Map (an object with string keys and values of one
# spec) or a dict {field: spec} (an object; "field!" is required, the fields it does not name are
# left alone: a newer firmware may add some).

INT, NUM, ANY = "int", "num", "any"


class Map:
    def __init__(self, spec):
        self.spec = spec


class Text:
    """A string that matches `pattern` whole (`what` says what it is, for the message)."""

    def __init__(self, pattern, what):
        self.pattern = re.compile(pattern)
        self.what = what


class BoardLie(ValueError):
    """A line from the board whose shape is not its kind's: what is wrong, where."""


class Malformed(dict):
    """What the console client passes on in place of a line that failed `checked`: {"malformed":
    why, "line": the line as text, control characters shown}, with the answer's re and id kept as
    attributes so a request waiting for it fails at once. A dict subclass: no JSON line is one."""

    def __init__(self, obj, why):
        super().__init__(malformed=str(why), line=plain(str(obj)[:300]))
        self.re = obj.get("re") if isinstance(obj, dict) else None
        self.id = obj.get("id") if isinstance(obj, dict) else None


GAME_STATE = {"players!": INT, "variant!": str, "path!": str, "revealed": INT, "deck": str,
              "drawn": (str, None), "positions!": [INT], "turn!": INT, "demand": (str, None),
              "nest": Map(INT), "winner": (INT, None), "phase": str}
OUTCOME = {"event": str, "player": INT, "from": INT, "to": INT, "next": INT, "tile": (INT, str),
           "demand": (str, None), "winner": (INT, None), "undone": INT, "egg": str, "cause": str,
           "t_ms": INT}
NOTE = {"prompt": str, "back": Map(INT), "out": Map(INT), "pour": bool, "phase": str, "demand": (str, None),
        "turn": INT, "egg": str, "nest": {"full": bool, "out": INT, "colour": str, "t_ms": INT},
        "refused": str, "why": str, "started": {"players": INT, "variant": str}, "error": str,
        "unchecked": str, "undo": INT, "outcome": OUTCOME}

# Unasked lines, by their "ev".
EVENTS = {
    "action": {"action!": {"do!": str, "egg": str, "colour": str, "cause": str}, "outcome": OUTCOME},
    "undo": {"outcome!": OUTCOME},
    "state": {"state!": GAME_STATE},
    "ready": {"resumed": bool, "state": GAME_STATE},
    "note": {"note!": NOTE},
    "fault": {"what!": str, "detail": ANY},
    "fault_cleared": {"what!": str},
    "crash": {"error": str},
    "stopped": {},
    "recovered": {"file": str, "detail": ANY},
    "storage": {"freed": [str]},
    "sample": {"t_ms!": INT, "g!": NUM, "pole": INT, "demand": Text(r"[A-Z]", "a colour letter")},
}
# Answers, by the command they answer ({"re": cmd, "ok": true, ...}); a refusal has its error.
ANSWERS = {
    "status": {"phase": str, "prompt": (str, None), "fault": ANY, "state": GAME_STATE},
    "new": {"state": GAME_STATE},
    "logs": {"logs!": [str]},
    "log": {"name": str, "lines!": [str]},
    "sensors": {"grams": (NUM, None), "at_rest": bool, "noise_g": (NUM, None), "sps": (NUM, None),
                "pole_seated": (bool, None), "hx711": str, "nest": str, "mem_alloc": INT},
    "io": {"buttons!": Map(bool), "leds!": Text(r"(?:[0-9a-fA-F]{6})*", "RGB hex"), "cap": INT},
    "settings": {"settings!": Map(ANY)},
    "set": {"settings!": Map(ANY)},
    "masses": {"masses!": Map(NUM)},
}
REFUSAL = {"error!": str}

# Read over the raw REPL: what boardinfo.identify and deploy's manifest print.
IDENTITY = {"micropython!": str, "machine!": str, "build": str, "nest": ({"version": str, "tree": str}, None)}
# The board's files, or "same" when it holds the very tree asked about (its maker's own files aside).
MANIFEST = {"mpy!": INT, "z": INT, "files": Map([INT, str]), "rec": [str], "same": INT, "own": [str]}
# `nest test`'s runner's line for one test (nest.boardtest.RUNNER).
TEST_RESULT = {"test!": str, "ok!": bool, "ms": INT, "error": str}


def checked_as(spec, obj, what):
    """`obj` if it fits `spec`, else NestError naming `what` and the field."""
    try:
        _fits(spec, obj, what)
    except BoardLie as e:
        raise NestError(f"the board sent a malformed {e}") from None
    return obj


def checked(obj):
    """`obj` (a line from the board, parsed) if its shape is its kind's: an event by its "ev", an
    answer by its "re"; a kind the host does not know passes (it reads nothing of it). BoardLie
    naming the field otherwise."""
    if not isinstance(obj, dict):
        raise BoardLie("not a JSON object")
    if "ev" in obj:
        kind = obj["ev"]
        if not isinstance(kind, str):
            raise BoardLie("ev is not a string")
        _fits(EVENTS.get(kind, {}), obj, kind)
    elif "re" in obj:
        kind = obj["re"]
        if not isinstance(kind, (str, type(None))) or not isinstance(obj.get("ok"), bool):
            raise BoardLie("an answer needs a command name (re) and ok: true or false")
        if obj.get("id") is not None and not isinstance(obj["id"], (int, str)):
            raise BoardLie("the answer's id is neither a number nor a string")
        _fits(ANSWERS.get(kind, {}) if obj["ok"] else REFUSAL, obj, f"answer to {kind}")
    return obj


def _fits(spec, v, where):
    if spec is ANY:
        return
    if spec is None:
        ok = v is None
    elif spec is INT:
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif spec is NUM:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    elif isinstance(spec, type):
        ok = isinstance(v, spec)
    elif isinstance(spec, Text):
        ok = isinstance(v, str) and spec.pattern.fullmatch(v) is not None
    elif isinstance(spec, tuple):
        for alternative in spec:
            try:
                _fits(alternative, v, where)
                return
            except BoardLie:
                pass
        ok = False
    elif isinstance(spec, list):
        if not isinstance(v, list) or (len(spec) > 1 and len(v) != len(spec)):
            raise BoardLie(f"{where}: not a list" + (f" of {len(spec)}" if len(spec) > 1 else ""))
        for i, item in enumerate(v):
            _fits(spec[0] if len(spec) == 1 else spec[i], item, f"{where}[{i}]")
        return
    elif isinstance(spec, Map):
        if not isinstance(v, dict):
            raise BoardLie(f"{where}: not an object")
        for k, item in v.items():
            _fits(spec.spec, item, f"{where}.{k}")
        return
    else:  # a dict: an object with these fields
        if not isinstance(v, dict):
            raise BoardLie(f"{where}: not an object")
        for field, sub in spec.items():
            name = field.rstrip("!")
            if name not in v:
                if field.endswith("!"):
                    raise BoardLie(f"{where}: no {name}")
                continue
            _fits(sub, v[name], f"{where}.{name}")
        return
    if not ok:
        raise BoardLie(f"{where}: {_short(v)} is not {_spec_name(spec)}")


def _short(v):
    text = repr(v)
    return plain(text if len(text) <= 40 else text[:37] + "...")


def _spec_name(spec):
    if isinstance(spec, tuple):
        return " or ".join(_spec_name(s) for s in spec)
    if isinstance(spec, Text):
        return spec.what
    if isinstance(spec, (dict, Map)):
        return "an object"
    if isinstance(spec, list):
        return "a list"
    return {INT: "a whole number", NUM: "a number", None: "null", str: "a string",
            bool: "true or false"}.get(spec, str(spec))
