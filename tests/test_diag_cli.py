"""`nest diag` on the virtual board: the live view off a terminal, and --record writing a trace
that `nest weigh --replay` reads: an egg taken while recording is found in the replay."""

import json
import subprocess
import time

import pytest
from nest_console_fixtures import NEST, fresh_game

from nest.boardconsole import BoardConsole
from nest.cmd_diag import sparkline

pytestmark = pytest.mark.board


def test_record_while_an_egg_is_taken_then_replay_finds_it(nest_board, tmp_path):
    fresh_game(nest_board, seed=5)
    trace = tmp_path / "trace.csv"
    proc = subprocess.Popen([str(NEST), "diag", "--port", nest_board.port, "--record", str(trace),
                             "--seconds", "7"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)  # the trace starts with the full nest at rest
    nest_board.control.take("Y")
    out, err = proc.communicate(timeout=40)
    assert proc.returncode == 0, err
    assert "weight" in out and "pole seated" in out and "recorded" in out
    rows = trace.read_text().splitlines()
    assert rows[0] == "t_ms,grams"
    assert len(rows) > 80  # at least a second of samples (fewer than 80 SPS when the machine is loaded)

    replay = subprocess.run([str(NEST), "weigh", "--replay", str(trace)], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    events = [json.loads(line) for line in replay.stdout.splitlines()]
    assert [e for e in events if e.get("out")] == [{"t_ms": events[0]["t_ms"], "out": 1, "colour": "Y"}]

    # the stream was switched off at the end: the board is quiet again
    with BoardConsole.open(nest_board.port) as con:
        assert not any(ev.get("ev") == "sample" for ev in con.events(0.5))
    nest_board.control.pour_back()


def test_sparkline():
    assert sparkline([]) == ""
    assert sparkline([1.0] * 10) == "▁" * 10          # quiet: flat, noise not amplified
    line = sparkline([0.0] * 5 + [10.0] * 5)
    assert line == "▁" * 5 + "█" * 5
    assert len(sparkline(list(range(1000)), width=60)) <= 60
