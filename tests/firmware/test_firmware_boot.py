"""The nest firmware's boot on the virtual board: a healthy HX711 never shows a fault (its
power-up settling and the discarded first reads are not silence), an unplugged one still does."""

import time
from pathlib import Path

import pytest
import serial

from testkit.vboard_fixtures import Console, mpremote

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def lines_after_boot(vboard, port):
    """Every console line from the reset to a status answer asked 1.5 s after `ready` (the
    unplugged-HX711 budget is 1 s, so a false fault would have been shown by then)."""
    vboard.control.reset()
    console = Console(port)
    seen = console.wait(lambda ev: ev.get("ev") == "ready")
    time.sleep(1.5)
    console.send(cmd="status", id=1)
    seen += console.wait(lambda ev: ev.get("re") == "status")
    port.write(b"\x03")
    seen += console.wait(lambda ev: ev.get("ev") == "stopped")
    return seen


def test_a_healthy_hx711_shows_no_fault_at_boot_and_an_unplugged_one_does(vboard):
    mpremote(vboard, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    mpremote(vboard, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        for attempt in range(2):  # the second boot follows a stop that powered the HX711 down
            seen = lines_after_boot(vboard, port)
            faults = [ev for ev in seen if ev.get("ev") in ("fault", "fault_cleared")]
            assert faults == [], f"boot {attempt}: {faults}"
            assert seen[-2]["fault"] is None
        vboard.control.fault("hx711_unplugged", True)
        seen = lines_after_boot(vboard, port)
        faults = [ev for ev in seen if ev.get("ev") == "fault"]
        assert faults and faults[0]["what"] == "hx711" and "no answer" in faults[0]["detail"]
        assert seen[-2]["fault"] == faults[0]["detail"]
