"""`nest replay` and `nest play` through the installed console script, as a user runs them."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gulo.gamelog import encode, setup_record
from gulo.rules import Game

NEST = str(Path(sys.executable).with_name("nest"))


def nest(*args, stdin=None):
    return subprocess.run([NEST, *args], capture_output=True, text=True, input=stdin, timeout=60)


def write_log(path, game, actions):
    lines = [encode(setup_record(game))] + [json.dumps(a) for a in actions]
    path.write_text("\n".join(lines) + "\n")
    return path


def played(seed, actions, players=3, variant="standard"):
    g = Game.new(players, variant, seed)
    for a in actions:
        g.apply(a)
    return g


def a_game(seed=3):
    g = Game.new(3, "standard", seed)
    first = g.path[0]
    return g, [{"do": "reveal"}, {"do": "take", "egg": first, "t": 17}, {"do": "reveal"},
               {"do": "alarm", "cause": "pole"}]


def test_json_prints_the_state_contract_per_file_in_order(tmp_path):
    g1, acts1 = a_game(3)
    g2 = Game.new(2, "fast", 8)
    f1 = write_log(tmp_path / "one.jsonl", g1, acts1)
    f2 = write_log(tmp_path / "two.jsonl", g2, [])
    r = nest("replay", "--json", str(f1), str(f2))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    expected1 = played(3, [{k: v for k, v in a.items() if k != "t"} for a in acts1]).state()
    assert json.loads(lines[0]) == expected1
    assert json.loads(lines[1]) == g2.state()
    assert list(json.loads(lines[0])) == ["players", "variant", "path", "revealed", "deck", "drawn",
                                          "positions", "turn", "demand", "nest", "winner"]


def test_default_output_is_a_picture(tmp_path):
    g, acts = a_game(3)
    f = write_log(tmp_path / "g.jsonl", g, acts)
    r = nest("replay", str(f))
    assert r.returncode == 0
    assert "standard game, 3 players" in r.stdout
    assert "path" in r.stdout and "nest" in r.stdout and "Gulo 3" in r.stdout
    assert not re.search(r"player \d", r.stdout)  # the page's names: Gulo 1..6, never "player 0"
    assert "\x1b[" not in r.stdout  # no colour codes into a pipe
    assert "\x1b[" in nest("replay", "--color", "always", str(f)).stdout


@pytest.mark.parametrize("bad_line, reason", [
    ("{oops", "not JSON: one object per line"),
    ('{"do": "dance"}', "unknown or missing"),
    ('{"do": "take", "egg": "R"}', "no colour is demanded"),
    ('{"do": "choose", "colour": "Q"}', "colour must be"),
    ('{"do": "alarm"}', "no attempt is under way"),
    ("", "empty line"),
])
def test_an_illegal_line_exits_2_naming_file_and_line(tmp_path, bad_line, reason):
    g, acts = a_game(3)
    f = tmp_path / "bad.jsonl"
    lines = [encode(setup_record(g))] + [json.dumps(a) for a in acts] + [bad_line, '{"do": "reveal"}']
    f.write_text("\n".join(lines) + "\n")
    r = nest("replay", "--json", str(f))
    assert r.returncode == 2
    assert r.stderr.startswith(f"{f}:6: ") and reason in r.stderr, r.stderr
    assert r.stdout == ""


def test_each_bad_file_is_named_and_good_ones_still_print(tmp_path):
    g, acts = a_game(3)
    good = write_log(tmp_path / "good.jsonl", g, acts)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"setup": {"players": 1}}\n')
    r = nest("replay", "--json", str(bad), str(good), str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2
    err = r.stderr.splitlines()
    assert err[0].startswith(f"{bad}:1: ")
    assert "cannot read" in err[1] and "missing.jsonl" in err[1]
    assert len(r.stdout.splitlines()) == 1


def test_not_utf8_is_a_line_error(tmp_path):
    g, acts = a_game(3)
    f = write_log(tmp_path / "g.jsonl", g, acts)
    f.write_bytes(f.read_bytes() + b'{"do": "reveal\xff"}\n')
    r = nest("replay", str(f))
    assert r.returncode == 2 and r.stderr.startswith(f"{f}:6: not UTF-8")


def test_play_writes_a_log_that_replay_reads(tmp_path):
    log = tmp_path / "game.jsonl"
    r = nest("play", "--seed", "5", "--players", "3", "--log", str(log),
             stdin="reveal\ntake G\nchoose Q\nr\nalarm pole\nbogus\nq\n")
    assert r.returncode == 0, r.stderr
    assert "not allowed" in r.stdout and "unknown command" in r.stdout
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert rows[0]["setup"]["seed"] == 5
    assert [x["do"] for x in rows[1:]] == ["reveal", "take", "reveal", "alarm"]
    state = json.loads(nest("replay", "--json", str(log)).stdout)
    # Seed 5 deals Y first: "take G" was the wrong egg (an alarm), then p1 revealed and failed.
    assert state["turn"] == 2 and state["revealed"] == 2 and state["positions"] == [0, 0, 0]


def test_play_undo_cuts_the_verdict_and_the_pick_after_it_from_the_log(tmp_path):
    log = tmp_path / "game.jsonl"
    # Seed 5 deals Y first: the wrong egg G is an alarm, Gulo 2 reveals; undo takes back both.
    r = nest("play", "--seed", "5", "--players", "3", "--log", str(log),
             stdin="undo\nreveal\ntake G\nreveal\nu\ncall\nq\n")
    assert r.returncode == 0, r.stderr
    assert "not allowed: no verdict to undo" in r.stdout
    assert "the last verdict is undone: Gulo 1 takes a yellow egg again" in r.stdout
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert [{k: v for k, v in x.items() if k != "t"} for x in rows[1:]] == [
        {"do": "reveal"}, {"do": "alarm", "cause": "called"}]
    state = json.loads(nest("replay", "--json", str(log)).stdout)
    assert state["turn"] == 1 and state["revealed"] == 1 and state["demand"] is None


def test_a_closed_pipe_is_not_an_error(tmp_path):
    g, acts = a_game(3)
    f = write_log(tmp_path / "g.jsonl", g, acts)
    # 400 pictures are ~300 KB: far more than the pipe holds once head has gone.
    r = subprocess.run(f"'{NEST}' replay {' '.join([str(f)] * 400)} | head -1", shell=True,
                       capture_output=True, text=True, timeout=120)
    assert r.stdout.count("\n") == 1
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr


@pytest.mark.parametrize("lang, says", [
    ("en", ["Gulo 1 takes a yellow egg and jumps to the next yellow tile: start \u2192 tile 1",
            "EGG ALARM (the pole fell): Gulo 2 stays at the start", "Gulo 1> "]),
    ("de", ["Gulo 1 nimmt ein gelbes Ei und springt zum nächsten gelben Plättchen: Start \u2192 Plättchen 1",
            "EIERALARM (der Alarmstab ist gefallen): Gulo 2 bleibt am Start", "normales Spiel, 2 Spieler"]),
    ("fr", ["Gulo 1 prend un œuf jaune et saute au prochain bout jaune : départ \u2192 bout 1",
            "ALARME (le bâtonnet est tombé) : Gulo 2 reste au départ", "partie normale, 2 joueurs"]),
])
def test_nest_play_speaks_the_rulebooks_three_languages(tmp_path, lang, says):
    # Seed 5 deals Y, B first: Gulo 1 reveals yellow and takes it; Gulo 2 reveals blue and the pole falls.
    log = tmp_path / "g.jsonl"
    r = nest("play", "--players", "2", "--seed", "5", "--lang", lang, "--log", str(log),
             stdin="r\nt Y\nr\na pole\nq\n")
    assert r.returncode == 0, r.stderr
    for text in says:
        assert text in r.stdout, (text, r.stdout[-600:])
    assert not re.search(r"(player|Spieler|joueur) \d", r.stdout)
    assert "\u2192 start" not in r.stdout and "\u2192 Start" not in r.stdout   # no "start -> start"
    assert nest("replay", "--json", str(log)).returncode == 0  # the log is the same in every language


def test_nest_replay_pictures_in_german(tmp_path):
    g, acts = a_game(3)
    f = write_log(tmp_path / "g.jsonl", g, acts)
    r = nest("replay", "--lang", "de", str(f))
    assert r.returncode == 0
    assert "normales Spiel, 3 Spieler" in r.stdout and "Gulo 3" in r.stdout and "Stapel" in r.stdout
