"""Every board command finds its board the same way, end to end: with no board it says so, with
two it lists them and asks for --port, with --port it talks to that one. Real `nest sim` boards
(they announce themselves like plugged-in USB boards) and the real `nest` commands."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))
# One line each: what a user runs without --port (nothing here changes a board).
COMMANDS = (["deploy", "--dry-run"], ["test", "-k", "nothing"], ["monitor", "--seconds", "1"],
            ["diag", "--seconds", "1"], ["calibrate"], ["logs", "pull"])


@pytest.fixture
def env(tmp_path):
    # Boards announce themselves under XDG_RUNTIME_DIR: this test's boards are its own.
    e = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"))
    return e


def nest(env, *args, timeout=60):
    return subprocess.run([NEST, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def start_sim(env, tmp_path, name):
    port_file = tmp_path / f"{name}.port"
    proc = subprocess.Popen([NEST, "sim", "--timing", "host",
                             "--headless", "--port-file", str(port_file)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not port_file.exists():
        assert proc.poll() is None, "nest sim stopped"
        assert time.monotonic() < deadline, "nest sim did not come up"
        time.sleep(0.1)
    return proc, port_file.read_text().strip()


def test_no_board_two_boards_and_an_explicit_port(env, tmp_path):
    for args in COMMANDS:
        r = nest(env, *args)
        assert r.returncode != 0 and "no ESP32 board found" in r.stderr, (args, r.stderr)
    sims = [start_sim(env, tmp_path, "a"), start_sim(env, tmp_path, "b")]
    try:
        ports = [port for _, port in sims]
        for args in COMMANDS:
            r = nest(env, *args)
            assert r.returncode != 0 and "2 ESP32 boards found; choose one with --port" in r.stderr, \
                (args, r.stderr)
            assert all(p in r.stderr for p in ports), r.stderr  # both are named
        # --port picks one: a bare board (no firmware yet) gets a dry-run plan, nothing sent
        r = nest(env, "deploy", "--dry-run", "--port", ports[1])
        assert r.returncode == 0, r.stderr
        assert "send   gulo/app.mpy" in r.stdout and "would send" in r.stdout, r.stdout
    finally:
        for proc, _ in sims:
            proc.terminate()
            proc.wait(timeout=30)
