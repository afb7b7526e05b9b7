"""lab/vboard_pulse_stress.py: how often the host's noise powers the virtual HX711 down. A short
run of a correct driver sees none; a planted chip that powers down at once must be seen."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.board

TOOL = ["-m", "lab.vboard_pulse_stress"]


def stress(*args):
    out = subprocess.run([sys.executable, *TOOL, *args], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_correct_driver_is_not_powered_down():
    r = stress("--readouts", "40")
    assert (r["readouts"], r["power_downs"], r["garbled"]) == (40, 0, 0), r
    assert sum(n for _, n in r["high_us_log2"]) >= 40 * 25  # every pulse was seen


def test_planted_a_chip_that_powers_down_at_once_is_counted():
    r = stress("--readouts", "40", "--power-down-us", "1")
    assert r["power_downs"] > 0 and r["garbled"] > 0, r


def test_the_host_stops_are_reported():
    r = stress("--hiccups", "1")
    assert r["seconds"] == 1 and r["passes"] > 1000 and isinstance(r["stopped_us_log2"], dict), r
