"""Every `nest` command that opens the board takes the same exclusive lock and names who holds it:
two real `nest` processes on the virtual board's pty, then a holder that is not nest."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nest import portlock

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))
# Each opens the board: none may talk while another nest command has it.
COMMANDS = (["deploy", "--dry-run"], ["test", "-k", "test_debounce"], ["monitor", "--seconds", "1"],
            ["diag", "--seconds", "1"], ["calibrate"], ["logs", "pull"])


@pytest.fixture
def env(tmp_path):
    return dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"))


def nest(env, *args, timeout=60):
    return subprocess.run([NEST, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def wait_for(predicate, what, timeout=30):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what
        time.sleep(0.1)


def test_a_board_held_by_nest_monitor_is_refused_to_every_other_command(nest_board, env, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    port = nest_board.port
    note = portlock._note_path(port)
    monitor = subprocess.Popen([NEST, "monitor", "--port", port, "--seconds", "60"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: note.exists() or monitor.poll() is not None, "nest monitor never took the port")
        assert monitor.poll() is None, monitor.stderr.read()
        holder = f"`nest monitor --port {port} --seconds 60` (pid {monitor.pid})"
        for args in COMMANDS:
            r = nest(env, *args, "--port", port)
            assert r.returncode == 1, (args, r.stdout, r.stderr)
            assert f"port {port} is busy: {holder} has it open" in r.stderr, (args, r.stderr)
    finally:
        monitor.terminate()
        monitor.wait(timeout=30)
    # Released: the next command gets the board (one that leaves the game running, for the tests
    # that share this board).
    r = nest(env, "monitor", "--seconds", "1", "--port", port)
    assert r.returncode == 0, r.stderr


def test_a_holder_that_is_not_nest_is_named_from_proc(nest_board, env):
    # Another program (here a python holding the port as mpremote or a serial monitor would).
    holder = subprocess.Popen(
        [sys.executable, "-c", "import serial, sys, time\n"
         f"s = serial.Serial({nest_board.port!r}, exclusive=True)\nprint('open', flush=True)\n"
         "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        r = nest(env, "monitor", "--seconds", "1", "--port", nest_board.port)
        assert r.returncode == 1
        expected = "another program" if not sys.platform.startswith("linux") else f"(pid {holder.pid})"
        assert f"port {nest_board.port} is busy: " in r.stderr and expected in r.stderr, r.stderr
    finally:
        holder.terminate()
        holder.wait(timeout=30)


def test_a_stale_note_names_nobody(tmp_path, monkeypatch):
    # A nest command killed without tidying up leaves its note: a dead pid is nobody.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    port = "/dev/ttyNOTHERE0"
    note = portlock.claim(port)
    assert portlock.who_holds(port) is None  # our own note is not "someone else"
    note.write_text('{"pid": 999999999, "command": "nest monitor"}')
    assert portlock.who_holds(port) is None
    note.write_text(f'{{"pid": {os.getppid()}, "command": "nest logs pull"}}')
    assert portlock.who_holds(port) == f"`nest logs pull` (pid {os.getppid()})"
