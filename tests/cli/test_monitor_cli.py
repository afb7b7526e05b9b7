"""`nest monitor` against the nest firmware on the virtual board: readable lines and --json while
a turn is played, and the unhappy paths (no such port, a board sitting at the REPL)."""

import json
import signal
import subprocess
import threading
import time

import pytest

from gulo import board as pins
from gulo.rules import deal
from testkit.nest_console_fixtures import NEST, NEST_ENV, fresh_game, interrupt, nest_cli

pytestmark = pytest.mark.board


def reveal_first_tile(board, timeout=10.0):
    """Reveal held down until path tile 1's LED lights (the monitor owns the console). A fixed
    150 ms press was once lost in CI: most likely the host stopped the virtual board for longer
    than the press, and the press and the release reached the VM in one poll (the board now holds
    a press that long: tests/test_vboard_presses.py)."""
    tile = pins.LED_PATH_FIRST
    hidden = board.control.leds()[tile]
    board.control.press("REVEAL")
    try:
        end = time.monotonic() + timeout
        while board.control.leds()[tile] == hidden:
            assert time.monotonic() < end, f"REVEAL held {timeout} s and tile 1's LED never changed"
            time.sleep(0.05)
    finally:
        board.control.release("REVEAL")


def start_monitor(board, *extra):
    """`nest monitor` started and listening: it says so on stderr at once, then asks the board's
    status (one answer) before it follows the events."""
    proc = subprocess.Popen([str(NEST), "monitor", "--port", board.port, *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=NEST_ENV)
    first = proc.stderr.readline()
    assert first == f"connected to {board.port} (Ctrl-C to stop)\n", first + proc.stderr.read()
    time.sleep(1.0)  # its status request answered
    return proc, first


def follow_until(proc, seen, timeout=60.0):
    """The monitor's lines up to the first one `seen` accepts, then Ctrl-C; (lines, stderr). A line
    waited for, not a fixed time: a loaded host takes longer to play the turn."""
    lines = []
    give_up = threading.Timer(timeout, proc.send_signal, [signal.SIGINT])  # ends the stream below
    give_up.start()
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if seen(lines[-1]):
                break
        out, err = interrupt(proc, 30)
    finally:
        give_up.cancel()
        proc.kill()
    lines += out.splitlines()
    assert proc.returncode == 0, err
    return lines, err


def test_monitor_follows_a_turn_readably_and_as_json(nest_board):
    path, _deck = deal(11)
    fresh_game(nest_board, seed=11)
    proc, connected = start_monitor(nest_board)
    reveal_first_tile(nest_board)
    time.sleep(1.0)
    nest_board.control.take(path[0])
    lines, err = follow_until(proc, lambda line: "taken - success" in line)
    out = "\n".join(lines)
    assert any(" reveals tile 1: take " in line for line in lines), out
    taken = [line for line in lines if "taken - success" in line]
    assert taken and taken[0].split(" ", 1)[1] == f"{path[0]} taken - success, Gulo 1 moves to 1", out
    assert all(line[2] == ":" and line[5] == ":" for line in lines)  # HH:MM:SS first

    # where it listens, said at once on stderr (a quiet game would look like a hang)
    assert connected == f"connected to {nest_board.port} (Ctrl-C to stop)\n"

    proc, _ = start_monitor(nest_board, "--json")
    nest_board.control.knock_pole()
    lines, err = follow_until(proc, lambda line: '"put the pole back"' in line)
    events = [json.loads(line) for line in lines]
    assert {"prompt": "put the pole back"} in [e.get("note") for e in events], events


def test_monitor_names_a_missing_port():
    proc = subprocess.run([str(NEST), "monitor", "--port", "/dev/no-such-port"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "does not exist" in proc.stderr


def test_a_board_at_the_repl_is_told_apart(vboard):
    proc = nest_cli(vboard, "monitor", "--seconds", "1")
    assert proc.returncode == 1
    assert "MicroPython REPL" in proc.stderr and "nest deploy" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_prompt_that_names_the_eggs_is_worded():
    from nest.cmd_monitor import describe

    ev = {"ev": "note", "note": {"prompt": "put the eggs back into the nest", "back": {"R": 1}}}
    assert describe(ev)[0] == "asks: put back 1 red"
    ev["note"] = {"prompt": "put the eggs back into the nest", "out": {"Y": 1}}
    assert "1 yellow stays out this round: take it out" in describe(ev)[0]
    ev["note"] = {"prompt": "put the eggs back into the nest", "out": {"Y": 1, "R": 1}}
    assert "stay out this round: take them out" in describe(ev)[0] and "(s)" not in describe(ev)[0]
    ev["note"] = {"prompt": "put the pole back"}
    assert describe(ev)[0] == "asks: put the pole back"


def test_an_undo_and_a_called_alarm_are_worded():
    from nest.cmd_monitor import describe

    ev = {"ev": "undo", "outcome": {"event": "undo", "player": 1, "undone": 2, "demand": "R"}}
    assert describe(ev) == ("UNDO by the players (2 actions taken back): Gulo 2 takes red again", True)
    ev["outcome"] = dict(ev["outcome"], undone=1, replaced=True)   # a call right after a success
    assert "instead of the last verdict" in describe(ev)[0]
    ev = {"ev": "action", "action": {"do": "alarm", "cause": "called"},
          "outcome": {"event": "alarm", "player": 0, "to": 0}}
    assert describe(ev)[0] == "EGG ALARM (called), Gulo 1 back to 0"
