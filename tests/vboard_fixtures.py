"""The virtual board as pytest fixtures, plus helpers to drive it with real mpremote.

`vboard`: a fresh board (unthrottled line, empty flash) for one test.
`vboard_factory(**kw)`: boards with options (`baud=115200`, `flash_dir=...`), all stopped after.
`mpremote(board, *args)`: runs the real mpremote CLI against the board's port.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from nest.vboard import VirtualBoard

MPREMOTE = Path(sys.executable).with_name("mpremote")


def mpremote(board, *args, timeout=60, check=True):
    """Run `mpremote connect PORT args...`; returns the CompletedProcess (text)."""
    proc = subprocess.run([str(MPREMOTE), "connect", board.port, *args], capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"mpremote {' '.join(args)} failed ({proc.returncode}):\n"
                             f"{proc.stdout}{proc.stderr}\n--- board log ---\n{board._log_tail()}")
    return proc


@pytest.fixture
def vboard_factory(tmp_path):
    boards = []

    def make(**kw):
        kw.setdefault("baud", 0)
        kw.setdefault("log_path", tmp_path / f"vboard-{len(boards)}.log")
        board = VirtualBoard(**kw).start()
        boards.append(board)
        return board

    yield make
    for board in boards:
        board.stop()


@pytest.fixture
def vboard(vboard_factory):
    return vboard_factory()
