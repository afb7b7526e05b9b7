"""`nest logs pull` on the virtual board: a few actions played, the logs pulled through the
console, and `nest replay` of the running game's log gives the board's own state."""

import json
import subprocess
import time

import pytest

from gulo.rules import deal
from nest.boardconsole import BoardConsole
from testkit.nest_console_fixtures import NEST, fresh_game, nest_cli

pytestmark = pytest.mark.board


def test_pulled_logs_replay_to_the_boards_state(nest_board, tmp_path):
    path, _deck = deal(11)
    fresh_game(nest_board, seed=11)
    with BoardConsole.open(nest_board.port) as con:
        con.request("press", button="reveal")
        nest_board.control.take(path[0])
        end = time.monotonic() + 20
        while con.request("status")["state"]["positions"] == [0, 0]:
            assert time.monotonic() < end, "the egg was not judged"
            time.sleep(0.2)
        con.request("press", button="reveal", check=False)  # player 2 reveals too (if the nest is ready)
        time.sleep(0.3)
        state = con.request("status")["state"]
        archived = con.request("logs")["logs"]

    out = tmp_path / "logs"
    proc = nest_cli(nest_board, "logs", "pull", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(archived + ["current.jsonl"])

    replay = subprocess.run([str(NEST), "replay", "--json", str(out / "current.jsonl")], capture_output=True,
                            text=True)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout) == json.loads(json.dumps(state))
    assert state["positions"] == [1, 0]
    if archived:  # games abandoned by earlier tests' `new`: every archived log replays cleanly
        every = subprocess.run([str(NEST), "replay", "--json", *[str(out / n) for n in archived]],
                               capture_output=True, text=True)
        assert every.returncode == 0, every.stderr


def test_logs_pull_from_a_board_at_the_repl_says_so(vboard, tmp_path):
    proc = nest_cli(vboard, "logs", "pull", "--out", str(tmp_path / "x"))
    assert proc.returncode == 1 and "REPL" in proc.stderr
    assert not (tmp_path / "x").exists()
