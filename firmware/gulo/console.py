# The console protocol on the USB serial: one JSON object per line in each direction.
#
# In:  {"cmd": "status"}  and the other commands below, with an optional "id" that the answer
#      echoes. A line that is not JSON, names no known command or carries a bad field gets an
#      error line that says which command and which field, and changes nothing.
# Out: answers {"re": CMD, "ok": true, ...} / {"re": CMD, "ok": false, "error": "..."} and, unasked,
#      the device's notes: state changes, verdicts, alarms, prompts, faults (gulo.app sends them).
#
# This module only reads and checks lines; gulo.app carries the commands out.

import json

from gulo.vocab import BUTTONS, EGG_COLOURS, LED_PATTERNS, MAX_LINE, SETTINGS, setting_ok

# Command -> {field: (kind, required)}; the kinds are checked by _check().
COMMANDS = {
    "status": {},
    "state": {},
    "new": {"players": ("players", False), "variant": ("variant", False), "seed": ("int", False)},
    "press": {"button": ("button", True)},
    "sensors": {},
    "io": {},
    "leds": {"pattern": ("pattern", True)},
    "buzz": {"freq": ("freq", True), "ms": ("ms", True)},
    "tare": {},
    "calibrate": {"grams": ("grams", True)},
    "egg": {"colour": ("egg", True), "grams": ("grams", False), "count": ("count", False)},
    "calibration": {"step": ("step", True)},
    "stream": {"on": ("bool", True)},
    "masses": {},
    "logs": {},
    "log": {"name": ("name", True)},
    "settings": {},
    "set": {"key": ("key", True), "value": ("any", True)},
    "undo": {},
    "call": {},
    "help": {},
}
_STEPS = ("start", "check", "done", "cancel", "status")


class ConsoleError(ValueError):
    def __init__(self, message, cmd=None, id=None):
        super().__init__(message)
        self.cmd = cmd
        self.id = id


def _int_in(v, lo, hi):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _num_in(v, lo, hi):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi


def _check(kind, v):
    """None if v is a good value of this kind, else what it should be."""
    if kind in SETTINGS:  # players, variant: the settings' own check (gulo.vocab)
        return None if setting_ok(kind, v) else wanted(kind)
    if kind == "int":
        return None if _int_in(v, 0, 2147483647) else "a whole number >= 0"
    if kind == "button":
        return None if v in BUTTONS else "one of " + ", ".join(BUTTONS)
    if kind == "pattern":
        return None if v in LED_PATTERNS else "one of " + ", ".join(LED_PATTERNS)
    if kind == "freq":
        return None if _int_in(v, 50, 10000) else "a frequency from 50 to 10000 Hz"
    if kind == "ms":
        return None if _int_in(v, 1, 5000) else "a duration from 1 to 5000 ms"
    if kind == "grams":
        return None if _num_in(v, 0.5, 5000) else "a mass from 0.5 to 5000 g"
    if kind == "egg":
        ok = isinstance(v, str) and len(v) == 1 and v in EGG_COLOURS
        return None if ok else "one of " + ", ".join(EGG_COLOURS)
    if kind == "count":
        return None if _int_in(v, 1, 10) else "a whole number of eggs from 1 to 10"
    if kind == "step":
        return None if v in _STEPS else "one of " + ", ".join(_STEPS)
    if kind == "bool":
        return None if isinstance(v, bool) else "true or false"
    if kind == "name":
        ok = isinstance(v, str) and 0 < len(v) <= 40 and "/" not in v and not v.startswith(".")
        return None if ok else "a log name from the logs command"
    if kind == "key":
        return None if v in SETTINGS else "one of " + ", ".join(SETTINGS)
    return None  # "any": checked by the setting itself


def wanted(key):
    """What a good value of the setting `key` is, in words."""
    allowed = SETTINGS[key]
    if isinstance(allowed[0], str):
        return "one of " + ", ".join(allowed)
    return "a whole number from %d to %d" % allowed


def shape(text):
    """(members, depth) of a JSON text as written, strings skipped: how many members its top-level
    object has (a key given twice counts twice: the commas at depth 1, plus one; 0 for {}) and how
    deep its brackets nest. json.loads keeps the last of two equal keys, so {"cmd": "status",
    "cmd": "new"} would quietly be a `new`; the host checks the depth before json.loads
    (nest.jsonguard), whose parser recurses once per level."""
    depth = deepest = commas = 0
    in_string = escaped = False
    empty = True
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 1:
            commas += 1
        if depth == 1 and ch not in " \t{":
            empty = False
    return (0 if empty else commas + 1), deepest


def load_object(text, example):
    """The JSON object of one line, refused (ConsoleError) as the console refuses a line: not JSON,
    not an object, a key given twice (json.loads would keep the last), a number that is not finite
    (CPython's json takes NaN, Infinity and 1e99999). Shared with `nest replay` (nest.replay), so a
    game log is held to the console's rules. `example`: a good line, for the message."""
    try:
        obj = json.loads(text)
    except ValueError:
        raise ConsoleError("not JSON: one object per line, e.g. " + example)
    if not isinstance(obj, dict):
        raise ConsoleError("not a JSON object")
    if shape(text)[0] != len(obj):
        raise ConsoleError("a field given twice: each field once, e.g. " + example)
    if not _finite(obj):
        raise ConsoleError("a number that is not finite (NaN, Infinity or too large)")
    return obj


def _finite(v):
    if isinstance(v, float):
        return v - v == 0  # nan for NaN and for an infinity
    if isinstance(v, dict):
        v = v.values()
    elif not isinstance(v, list):
        return True
    for item in v:
        if not _finite(item):
            return False
    return True


def check_fields(obj, kinds):
    """ConsoleError naming the first field of `obj` named in `kinds` ({field: kind}, the kinds of
    _check) whose value is not of its kind."""
    for field in kinds:
        if field in obj:
            want = _check(kinds[field], obj[field])
            if want is not None:
                raise ConsoleError("field %s must be %s" % (field, want))


def parse(line):
    """(cmd, args, id) from one console line; ConsoleError naming the command and field."""
    if isinstance(line, (bytes, bytearray)):
        if len(line) > MAX_LINE:
            raise ConsoleError("line too long (over %d bytes)" % MAX_LINE)
        try:
            line = line.decode()
        except UnicodeError:
            raise ConsoleError("not UTF-8 text")
    if len(line) > MAX_LINE:
        raise ConsoleError("line too long (over %d bytes)" % MAX_LINE)
    obj = load_object(line, '{"cmd": "help"}')
    id = obj.get("id")
    if id is not None and not (isinstance(id, (int, str)) and not isinstance(id, bool)):
        raise ConsoleError("id must be a number or a string")
    cmd = obj.get("cmd")
    if not isinstance(cmd, str) or cmd not in COMMANDS:
        raise ConsoleError("unknown command %s (try help)" % json.dumps(cmd), None, id)
    spec = COMMANDS[cmd]
    args = {}
    for field in spec:
        kind, required = spec[field]
        if field not in obj:
            if required:
                raise ConsoleError("%s: missing field %s" % (cmd, field), cmd, id)
            continue
        want = _check(kind, obj[field])
        if want is not None:
            raise ConsoleError("%s: field %s must be %s" % (cmd, field, want), cmd, id)
        args[field] = obj[field]
    for field in obj:
        if field not in spec and field not in ("cmd", "id"):
            raise ConsoleError("%s: unknown field %s" % (cmd, field), cmd, id)
    return cmd, args, id


def answer(cmd, id=None, **fields):
    out = {"re": cmd, "ok": True}
    if id is not None:
        out["id"] = id
    for k in fields:
        out[k] = fields[k]
    return json.dumps(out)


def error(err):
    """The error line for a ConsoleError."""
    return refusal(err.cmd, err.id, str(err))


def refusal(cmd, id, message):
    """The error line for a well-formed command that cannot be carried out."""
    out = {"re": cmd, "ok": False, "error": message}
    if id is not None:
        out["id"] = id
    return json.dumps(out)
