"""The alarm first (issue 16, item 2): on the virtual board, a power cut aimed at the first flash
operation after the pole falls (vboard/powercut.mjs: the cut lands before that operation) must
find the siren already sounding and the LEDs already red: nothing is written before the sound and
the light. A planted firmware that writes the action before its siren fails the same check. The
board stays off for a while after the cut, and the control channel still reads the buzzer and the
LEDs as they were when the power died (vboard/board.mjs clears them only at the next boot)."""

import time
from pathlib import Path

import pytest

from testkit.boardkit import boot_planted, booted_nest

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]

APP = Path(__file__).resolve().parents[2] / "firmware" / "gulo" / "app.py"
SIREN_HZ = 1900  # the first note of gulo.sounds.ALARM
# gulo.app with the action written to flash before the sound and the light (the order before
# issue 16): the planted fault.
HANDLE_START = "        for note in notes:\n            tune = sounds.for_note(note)\n"
WRITE_FIRST = ("        for note in notes:\n            if \"action\" in note:\n"
               "                self.store.record(note[\"action\"], t_ms)\n"
               "                self.store.flush()\n") + HANDLE_START


def at_the_first_write_after_the_pole_falls(nest):
    """Knock the pole mid-attempt with a cut armed before the next flash operation; returns what
    the buzzer and the LEDs showed when the power died: (frequency, red LEDs), and the state the
    board resumed."""
    nest.new(2, "standard", 4)
    nest.pick("reveal")
    nest.wait_phase("attempt")
    nest.drain(0.5)  # the reveal's line is on flash
    before = nest.game.state()
    nest.ctl.power_cut(off_ms=3000, at_op=1)
    nest.ctl.knock_pole()
    deadline = time.monotonic() + 10
    while not nest.ctl.flash_ops()["last_cut"]:
        assert time.monotonic() < deadline, "the cut never came"
        time.sleep(0.02)
    freq = nest.ctl.buzzer()["freq"]
    leds = nest.ctl.leds()
    red = sum(1 for r, g, b in leds if r and not g and not b)
    ready = nest.after_boot()
    return freq, red, before, ready


def test_the_siren_and_the_red_leds_come_before_the_flash(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        freq, red, before, ready = at_the_first_write_after_the_pole_falls(nest)
    assert freq == SIREN_HZ and red >= 19, (freq, red)
    # the alarm's line was the write in flight: lost, the game resumes before it
    assert ready["resumed"] and ready["state"] == before


def test_planted_fault_a_write_before_the_siren_fails_the_check(tmp_path):
    source = APP.read_text()
    assert HANDLE_START in source
    planted = tmp_path / "app.py"
    planted.write_text(source.replace(HANDLE_START, WRITE_FIRST, 1))
    with booted_nest(tmp_path / "flash") as nest:
        boot_planted(nest, planted, ":gulo/app.py")
        freq, red, _, _ = at_the_first_write_after_the_pole_falls(nest)
    assert freq != SIREN_HZ and red < 19, (freq, red)
