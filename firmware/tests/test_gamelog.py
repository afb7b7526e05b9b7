# The game log contract: reading, checking and the line numbers of errors.

import json

from gulo.gamelog import LogError, encode, read_log, setup_record
from gulo.rules import Game, state_json

from gamekit import raises

SETUP = '{"setup": {"players": 2, "variant": "standard", "path": "GRRGRRYBYYBRGYGBBGG", "deck": "YJYRB"}}'


def error_line(lines):
    try:
        read_log(lines)
    except LogError as e:
        return e.line, e.reason
    return None


def test_a_log_replays_to_its_state():
    g = read_log([SETUP, '{"do": "reveal"}', '{"do": "take", "egg": "G", "t": 1234}'])
    assert g.positions == [1, 0] and g.turn == 1 and g.nest["G"] == 4


def test_unknown_keys_are_ignored():
    g = read_log([SETUP, '{"do": "reveal", "t": 5, "grams": [1.5, 2]}', '{"do": "alarm", "x": null}'])
    assert g.turn == 1


def test_setup_record_round_trips():
    g = Game.new(4, "fast", seed=9)
    line = encode(setup_record(g))
    again = read_log([line])
    assert state_json(again) == state_json(g)


def test_errors_name_their_line():
    assert error_line([SETUP, '{"do": "reveal"}', "{not json"]) == (3, "not valid JSON")
    assert error_line([SETUP, '{"do": "choose", "colour": "R"}'])[0] == 2   # nothing face up ahead
    assert error_line([SETUP, '{"do": "reveal"}', '{"do": "jump"}'])[0] == 3
    assert error_line([SETUP, '{"do": "take"}'])[0] == 2
    assert error_line([SETUP, '[1, 2]'])[0] == 2
    assert error_line([SETUP, SETUP])[0] == 2
    assert error_line(['{"do": "reveal"}'])[0] == 1
    assert error_line([])[0] == 1
    assert error_line([SETUP, "", '{"do": "reveal"}']) == (2, "empty line")


def test_bad_setups_are_errors_on_line_1():
    for bad in (
        '{"setup": {"players": 2, "variant": "standard", "path": "GRRGRRYBYYBRGYGBBGG"}}',
        '{"setup": {"players": 9, "variant": "standard", "path": "GRRGRRYBYYBRGYGBBGG", "deck": "YJYRB"}}',
        '{"setup": {"players": 2, "variant": "standard", "path": "GGGGGGGGGGGGGGGGGGG", "deck": "YJYRB"}}',
        '{"setup": [1]}',
    ):
        assert error_line([bad])[0] == 1, bad


def test_an_illegal_action_changes_nothing():
    g = read_log([SETUP, '{"do": "reveal"}'])
    before = state_json(g)
    for bad in ('{"do": "reveal"}', '{"do": "take", "egg": "Q"}', '{"do": "alarm", "cause": "cat"}'):
        assert raises(LogError, read_log, [SETUP, '{"do": "reveal"}', bad])
    assert state_json(read_log([SETUP, '{"do": "reveal"}'])) == before


def test_state_json_is_the_contract():
    g = read_log([SETUP, '{"do": "reveal"}'])
    text = state_json(g)
    assert json.loads(text) == g.state()
    # The contract's key order, checked on the text (MicroPython dicts keep no order).
    keys = ["players", "variant", "path", "revealed", "deck", "drawn",
            "positions", "turn", "demand", "nest", "winner"]
    at = [text.index('"%s":' % k) for k in keys]
    assert at == sorted(at)


def test_a_set_up_line_with_an_action_on_it_is_refused():
    both = SETUP[:-1] + ', "do": "reveal"}'
    line, reason = error_line([both, '{"do": "reveal"}'])
    assert line == 1 and "action on the set-up line" in reason
