"""`nest replay` refuses what the console refuses (one validator: gulo.console.load_object and its
field kinds): a key given twice (json.loads kept the last: "egg": "R", "egg": "G" replayed as G),
NaN, Infinity or 1e99999 in `t` or `seed`, a seed past the console's range, and a set-up line with
an action on it. Before, each of these replayed with exit 0."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gulo.gamelog import encode, setup_record
from gulo.rules import Game
from nest.replay import ReplayError, replay_file

NEST = str(Path(sys.executable).with_name("nest"))
GAME = Game.new(2, "standard", 5)
SETUP = encode(setup_record(GAME))
COLOUR = GAME.path[0]
OTHER = next(c for c in "GYRB" if c != COLOUR)


def log(tmp_path, *lines):
    f = tmp_path / "g.jsonl"
    f.write_text("".join(line + "\n" for line in lines))
    return f


def refused(tmp_path, *lines):
    with pytest.raises(ReplayError) as e:
        replay_file(log(tmp_path, *lines))
    return e.value.line, e.value.reason


def test_a_key_given_twice_is_refused(tmp_path):
    twice = f'{{"do": "take", "egg": "{OTHER}", "egg": "{COLOUR}"}}'
    assert refused(tmp_path, SETUP, '{"do": "reveal"}', twice) == (3, 'a field given twice: each field once, '
                                                                      'e.g. {"do": "reveal"}')
    assert refused(tmp_path, SETUP[:-1] + ', "setup": {}}')[0] == 1


@pytest.mark.parametrize("t", ["NaN", "Infinity", "-Infinity", "1e99999", "-1", "1.5", "true", '"5"',
                               str(2**63), "1" * 3000])
def test_a_time_stamp_out_of_range_is_refused(tmp_path, t):
    line, reason = refused(tmp_path, SETUP, f'{{"do": "reveal", "t": {t}}}')
    assert line == 2 and ("not finite" in reason or "field t must be" in reason), reason


@pytest.mark.parametrize("seed", ["NaN", "1e99999", "-1", "2.0", "1" * 3000, str(2**31)])
def test_a_seed_out_of_the_console_range_is_refused(tmp_path, seed):
    setup = json.loads(SETUP)
    text = json.dumps(setup)[:-2] + f', "seed": {seed}}}}}'
    line, reason = refused(tmp_path, text, '{"do": "reveal"}')
    assert line == 1 and ("not finite" in reason or "field seed must be" in reason), reason


def test_a_set_up_and_an_action_on_one_line_are_refused(tmp_path):
    assert refused(tmp_path, SETUP[:-1] + ', "do": "reveal"}')[0] == 1


def test_what_the_console_takes_replays(tmp_path):
    setup = json.loads(SETUP)
    setup["setup"]["seed"] = 2**31 - 1
    game = replay_file(log(tmp_path, json.dumps(setup), '{"do": "reveal", "t": 1764300000000}',
                           f'{{"do": "take", "egg": "{COLOUR}", "t": 0}}'))
    assert game.positions[0] == 1


def test_the_command_exits_2_naming_file_and_line(tmp_path):
    f = log(tmp_path, SETUP, '{"do": "reveal", "t": NaN}')
    r = subprocess.run([NEST, "replay", str(f)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith(f"{f}:2: ") and "Traceback" not in r.stderr, r.stderr
