# The console protocol: good lines parse, bad ones are refused with a reason, nothing crashes.

import json

from gulo.console import MAX_LINE, ConsoleError, answer, error, parse
from gulo.prng import XorShift32


def refused(line):
    try:
        parse(line)
    except ConsoleError as e:
        return str(e)
    return None


def test_good_lines():
    assert parse('{"cmd": "status"}') == ("status", {}, None)
    assert parse('{"cmd": "new", "players": 4, "variant": "fast", "id": 7}') == (
        "new", {"players": 4, "variant": "fast"}, 7)
    assert parse(b'{"cmd": "press", "button": "reveal"}')[1] == {"button": "reveal"}
    assert parse('{"cmd": "egg", "colour": "P", "grams": 12.3}')[1] == {"colour": "P", "grams": 12.3}
    assert parse('{"cmd": "undo", "id": "u1"}') == ("undo", {}, "u1")   # the players' appeal
    assert parse('{"cmd": "call"}') == ("call", {}, None)


def test_errors_name_the_command_and_the_field():
    assert refused('{"cmd": "new", "players": 9}') == "new: field players must be a whole number from 2 to 6"
    assert refused('{"cmd": "press"}') == "press: missing field button"
    assert refused('{"cmd": "press", "button": "X"}').startswith("press: field button must be one of")
    assert refused('{"cmd": "status", "verbose": 1}') == "status: unknown field verbose"
    assert refused('{"cmd": "undo", "steps": 2}') == "undo: unknown field steps"
    assert refused('{"cmd": "fly"}') == 'unknown command "fly" (try help)'
    assert refused('{"cmd": "new", "players": true}') is not None
    assert refused("[1, 2]") == "not a JSON object"
    assert refused("{bad").startswith("not JSON")
    assert refused(b"\xff\xfe") == "not UTF-8 text"
    assert refused("x" * (MAX_LINE + 1)).startswith("line too long")
    assert refused('{"cmd": "log", "name": "../boot.py"}') is not None


def test_answers_and_errors_are_json_lines():
    expected = {"re": "status", "ok": True, "id": 3, "phase": "pick"}
    assert json.loads(answer("status", 3, phase="pick")) == expected
    try:
        parse('{"cmd": "buzz", "freq": 1, "ms": 10, "id": "a"}')
    except ConsoleError as e:
        line = json.loads(error(e))
        assert line["ok"] is False and line["re"] == "buzz" and line["id"] == "a"
        assert "freq" in line["error"]


def test_random_and_mangled_lines_only_ever_give_console_errors():
    rng = XorShift32(42)
    good = ['{"cmd": "new", "players": 3}', '{"cmd": "press", "button": "G"}',
            '{"cmd": "leds", "pattern": "red"}']
    alphabet = '{}[]":,0123456789.-eE tfnulrascmdbpy\\\x00\xff'
    for i in range(1500):
        if i % 2:
            src = good[rng.below(len(good))]
            chars = list(src)
            for _ in range(1 + rng.below(4)):   # mangle a few characters
                chars[rng.below(len(chars))] = alphabet[rng.below(len(alphabet))]
            line = "".join(chars)
        else:
            line = "".join([alphabet[rng.below(len(alphabet))] for _ in range(rng.below(40))])
        try:
            cmd, args, _id = parse(line)
        except ConsoleError:
            continue
        assert cmd in ("new", "press", "leds", "status")  # what survived mangling is still well-formed
