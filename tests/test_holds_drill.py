"""`nest diag --holds N` on the virtual board, through its serial port: the guided still-hand drill
marks each Enter with the board time of the weight it was pressed at. The simulated hand lifts
6 g of an 18 g egg and holds, lets go, lifts the rest, puts it back; the marks must fall on those
weights (a mark stamped with the host's clock, or a sample late, would not), and
`nest weigh --holds` measures the same recording again."""

import subprocess
import time

import pytest
from nest_console_fixtures import NEST, fresh_game
from test_diag_cli import Lines

from nest.holdstudy import analyse, read_marks
from nest.weigh import read_trace

pytestmark = pytest.mark.board

HELD_G = 6.0   # the share of the egg the still hand has taken off the bowl
EGG_G = 18.0


def test_the_drill_marks_each_step_where_the_weight_did(nest_board, tmp_path):
    fresh_game(nest_board, seed=5)
    trace = tmp_path / "holds.csv"
    proc = subprocess.Popen([str(NEST), "diag", "--port", nest_board.port, "--record", str(trace),
                             "--holds", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    board = nest_board.control

    def enter():
        proc.stdin.write("\n")
        proc.stdin.flush()
    try:
        out = Lines(proc)
        out.until(lambda line: "leave the nest alone" in line)
        for trial in (1, 2):
            out.until(lambda line, n=trial: f"trial {n}/2: lift an egg half out" in line, timeout=30)
            board.load(grams=-HELD_G)
            time.sleep(0.5)
            enter()
            out.until(lambda line: "keep holding it still" in line)
            time.sleep(0.6)
            enter()
            board.load(grams=-(EGG_G - HELD_G))   # let go: the rest of the egg comes clear
            out.until(lambda line: "your hand is away" in line)
            time.sleep(0.8)
            enter()
            out.until(lambda line: "put the egg back" in line)
            board.load(grams=EGG_G)
            time.sleep(0.8)
            enter()
        out.until(lambda line: "holds as calm as the calmer half" in line, timeout=30)
        proc.stdin.close()
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, proc.stderr.read()
    assert any(line.startswith("marks written to") for line in out.seen), out.seen

    marks = read_marks(trace)
    assert len(marks["trials"]) == 2
    samples = read_trace(trace)
    res = analyse(samples, marks)
    for row in res["trials"]:
        assert row["skip"] is None, row
        # the hold's mark falls on the held weight, the egg's on the whole egg
        assert row["held_g"] == pytest.approx(HELD_G, abs=0.5), row
        assert row["egg_g"] == pytest.approx(EGG_G, abs=0.5), row
        assert row["hold_ms"] >= 500, row

    again = subprocess.run([str(NEST), "weigh", "--holds", str(trace)], capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 0, again.stderr
    assert "| 1 | " in again.stdout and "| 2 | " in again.stdout
    assert "holds as calm as the calmer half of the gone hands" in again.stdout
    fresh_game(nest_board, seed=5)


def test_holds_needs_a_record_file(nest_board):
    r = subprocess.run([str(NEST), "diag", "--port", nest_board.port, "--holds", "3"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--holds needs --record FILE.csv" in r.stderr
