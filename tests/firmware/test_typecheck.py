"""The firmware type-check is real: it knows the ESP32's MicroPython API, not CPython's.
(`make test` runs the check itself over firmware/ before pytest.)"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MYPY = Path(sys.executable).with_name("mypy")


def mypy(tmp_path, code):
    f = tmp_path / "snippet.py"
    f.write_text(code)
    return subprocess.run([str(MYPY), "--config-file", "firmware/mypy.ini", str(f)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_esp32_api_is_known(tmp_path):
    r = mypy(tmp_path, "import time, machine, neopixel\n"
                       "t: int = time.ticks_diff(time.ticks_ms(), 0)\n"
                       "p = machine.Pin(4, machine.Pin.IN, machine.Pin.PULL_UP)\n"
                       "np = neopixel.NeoPixel(p, 3)\n")
    assert r.returncode == 0, r.stdout


def test_a_misused_api_is_caught(tmp_path):
    r = mypy(tmp_path, "import machine, time\nmachine.Pin(4).blink()\ntime.ticks_ms(5)\n")
    assert r.returncode == 1
    assert '"Pin" has no attribute "blink"' in r.stdout and "ticks_ms" in r.stdout
