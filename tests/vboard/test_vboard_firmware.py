"""End to end: the nest firmware, deployed with mpremote as on a real board, runs on the virtual
board and sees the simulated world (an egg taken, the pole knocked over)."""

import json
import time
from pathlib import Path

import pytest
import serial

from testkit.vboard_fixtures import Console, mpremote

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def test_firmware_boots_and_notices_an_egg_taken(vboard):
    mpremote(vboard, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    mpremote(vboard, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        vboard.control.reset()
        console = Console(port)
        console.wait(lambda ev: ev.get("ev") == "ready")
        time.sleep(1.0)  # let the weigher settle on the full nest
        vboard.control.take("B")
        seen = console.wait(lambda ev: '"colour": "B"' in json.dumps(ev))
        port.write(b"\x03")
        console.wait(lambda ev: ev.get("ev") == "stopped")
    assert not any(ev.get("ev") == "crash" for ev in seen)
