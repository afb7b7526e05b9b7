"""`nest diag --holds N` on the virtual board, through its serial port: the guided still-hand drill
marks each Enter with the board time of the weight it was pressed at. The simulated hand lifts
6 g of an 18 g egg and holds, lets go, lifts the rest, puts it back; the marks must fall on those
weights (a mark stamped with the host's clock, or a sample late, would not), and
`nest weigh --holds` measures the same recording again."""

import subprocess
import time

import pytest
from test_diag_cli import Lines

from nest.holdstudy import analyse, read_marks
from nest.weigh import read_trace
from testkit.nest_console_fixtures import NEST, app_board_in, fresh_game

pytestmark = pytest.mark.board

HELD_G = 6.0   # the share of the egg the still hand has taken off the bowl
EGG_G = 18.0


def drill(board, tmp_path, trials, then_close=False, then=None):
    """Run `nest diag --holds` for `trials` trials, the simulated hand doing each (6 g held still
    0.6 s, let go, the rest of the egg lifted, put back 0.8 s later); with `then_close`, stdin is
    closed once they are done, in the middle of the drill; `then` is called then instead.
    -> (process, its output lines, the trace's path)."""
    trace = tmp_path / "holds.csv"
    n = trials + 1 if then_close or then else trials
    proc = subprocess.Popen([str(NEST), "diag", "--port", board.port, "--record", str(trace),
                             "--holds", str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def enter():
        proc.stdin.write("\n")
        proc.stdin.flush()
    try:
        out = Lines(proc)
        out.until(lambda line: "leave the nest alone" in line)
        for trial in range(1, trials + 1):
            out.until(lambda line, k=trial: f"trial {k}/{n}: lift an egg half out" in line, timeout=30)
            board.control.load(grams=-HELD_G)
            time.sleep(0.5)
            enter()
            out.until(lambda line: "keep holding it still" in line)
            time.sleep(0.6)
            enter()
            # The drill's next prompt says the press is stamped; only then the rest of the egg
            # comes clear, as a hand follows the press it makes. Lifted with the press, it races
            # the drill's read of stdin: on a loaded host the mark falls after the lift.
            out.until(lambda line: "your hand is away" in line)
            board.control.load(grams=-(EGG_G - HELD_G))   # let go: the rest of the egg comes clear
            time.sleep(0.8)
            enter()
            out.until(lambda line: "put the egg back" in line)
            board.control.load(grams=EGG_G)
            time.sleep(0.8)
            enter()
        if then_close or then:
            out.until(lambda line, k=n: f"trial {k}/{n}: lift an egg half out" in line, timeout=30)
        if then:
            then()
            proc.wait(timeout=30)   # the drill ends on its own (stdin still open)
        proc.stdin.close()
        if then is None:
            out.until(lambda line: "holds as calm as the calmer half" in line, timeout=30)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc, out, trace


@pytest.fixture
def board(tmp_path_factory):
    # A board of its own for each drill, not the session's: the simulated hand's loads leave the
    # game wherever the drill stopped. (Once in CI, 2026-11-27, the shared board then stayed in
    # `settle` with no prompt for minutes and later tests could not start a game; not reproduced.)
    with app_board_in(tmp_path_factory.mktemp("holds-board")) as own:
        fresh_game(own, seed=5)
        yield own


def test_the_drill_marks_each_step_where_the_weight_did(board, tmp_path):
    proc, out, trace = drill(board, tmp_path, 2)
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


def test_a_drill_cut_short_keeps_the_trials_done(board, tmp_path):
    proc, out, trace = drill(board, tmp_path, 1, then_close=True)
    assert proc.returncode == 0, proc.stderr.read()
    assert "stdin closed in trial 2: the 1 trials before it are kept" in out.seen
    marks = read_marks(trace)
    assert len(marks["trials"]) == 1 and set(marks["trials"][0]) == {"still", "let_go", "away", "back"}


def test_a_board_that_stops_sending_ends_the_drill_with_the_trials_done_kept(board, tmp_path):
    # power cut for 8 s: the stream is silent past SILENT_S (5 s), the tool says so and keeps trial 1
    proc, out, trace = drill(board, tmp_path, 1,
                             then=lambda: board.control.request("power_cut", off_ms=8000, in_ms=0))
    err = proc.stderr.read()
    assert proc.returncode != 0 and "no sample from the board for 5 s" in err and "1 trials kept" in err
    assert len(read_marks(trace)["trials"]) == 1


def test_holds_needs_a_record_file(nest_board):
    r = subprocess.run([str(NEST), "diag", "--port", nest_board.port, "--holds", "3"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--holds needs --record FILE.csv" in r.stderr
