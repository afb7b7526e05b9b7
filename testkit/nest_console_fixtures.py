"""A virtual board running the nest firmware, shared by the console-command tests (nest monitor,
diag, calibrate, logs): one boot for all of them, since a deploy and boot take seconds.

`nest_board`: the board (session scope) running the app, built as `nest web` and the drills build
it (nest.appboard), started by a reset.
`fresh_game(board, seed)`: a new game with a known deal, the nest full and the pole seated,
waiting for the first player (calibration left, stream off).
`nest_cli(board, *args, **kw)`: runs the real `nest` console script against the board's port.
`interrupt(proc, timeout)`: Ctrl-C to a `nest` process started with NEST_ENV; (stdout, stderr).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nest.appboard import Console, start_app_board
from nest.boardconsole import BoardConsole

NEST = Path(sys.executable).with_name("nest")
# A `nest` started with this environment writes every thread's stack to stderr on SIGABRT (the
# standard library's faulthandler), so a Ctrl-C that does not end it can say where it is stuck.
NEST_ENV = dict(os.environ, PYTHONFAULTHANDLER="1")


@contextlib.contextmanager
def app_board_in(folder, **kw):
    """The nest firmware on a virtual board (host timing) on `folder`/flash, its log beside it,
    reset and running (its `ready` line seen); stopped afterwards. kw: the board's other options
    (its world's `seed`)."""
    import serial

    board = start_app_board(folder / "flash", baud=0, headless=True, timing="host",
                            log_path=folder / "vboard.log", **kw)
    try:
        with serial.Serial(board.port, 115200, timeout=0.1) as port:
            board.control.reset()
            Console(port).wait(lambda ev: ev.get("ev") == "ready")
        yield board
    finally:
        board.stop()


@pytest.fixture(scope="session")
def nest_board(tmp_path_factory):
    with app_board_in(tmp_path_factory.mktemp("nest-board")) as board:
        yield board


def fresh_game(board, seed=11, players=2):
    """A new game (seed: a known deal) with a full nest and the pole seated, at the first pick,
    its lines on flash (the writer busy with them is no part of what a test presses into)."""
    world = board.control.world()
    if not world["pole_seated"]:
        board.control.seat_pole()
    if any(world["nest"][c] < n for c, n in board.world.full.items()):
        board.control.pour_back()
    with BoardConsole.open(board.port) as con:
        con.request("calibration", step="cancel", check=False)
        con.request("stream", on=False)
        con.request("new", players=players, variant="standard", seed=seed)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            st = con.request("status")
            if st["phase"] == "pick" and st["unsaved"] == 0:
                return st
            time.sleep(0.2)
    raise AssertionError(f"the game did not reach pick: {st}")


def nest_cli(board, *args, input=None, timeout=60):
    """`nest ARGS --port PORT`: the CompletedProcess (text)."""
    return subprocess.run([str(NEST), *args, "--port", board.port], input=input, capture_output=True,
                          text=True, timeout=timeout)


def interrupt(proc, timeout=20.0, read=True):
    """Ctrl-C (SIGINT) to `proc`, then its (stdout, stderr) once it has ended (`read` False: the
    caller reads stdout itself, (None, None)). Not ended within `timeout` s: an AssertionError with
    the stacks it was stuck in (SIGABRT: NEST_ENV's faulthandler), since a Ctrl-C that a `nest`
    command does not obey is the product's fault."""
    proc.send_signal(signal.SIGINT)
    try:
        if read:
            return proc.communicate(timeout=timeout)
        proc.wait(timeout=timeout)
        return None, None
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"{' '.join(map(str, proc.args))}: still running {timeout:g} s after Ctrl-C; "
                             f"where it was (SIGABRT):\n{(err or '')[-4000:]}") from None
