"""End to end: the nest firmware, deployed with mpremote as on a real board, runs on the virtual
board and sees the simulated world (an egg taken, the pole knocked over)."""

import json
import time
from pathlib import Path

import pytest
import serial
from vboard_fixtures import mpremote

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"


def events(port, until, timeout=20.0):
    """JSON events the firmware prints, read until `until(event)` is true."""
    seen, buf = [], b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        buf += port.read(512)
        *lines, buf = buf.split(b"\n")
        for line in lines:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            seen.append(ev)
            if until(ev):
                return seen
    raise AssertionError(f"not seen within {timeout} s; events: {seen[-10:]}")


def test_firmware_boots_and_notices_an_egg_taken(vboard):
    mpremote(vboard, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    mpremote(vboard, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        vboard.control.reset()
        events(port, lambda ev: ev.get("ev") == "ready")
        time.sleep(1.0)  # let the weigher settle on the full nest
        vboard.control.take("B")
        seen = events(port, lambda ev: '"colour": "B"' in json.dumps(ev))
        port.write(b"\x03")
        events(port, lambda ev: ev.get("ev") == "stopped")
    assert not any(ev.get("ev") == "crash" for ev in seen)
