"""The alarm before its report (issue 16, "The alarm first"; docs/firmware-budgets.md): on the virtual
board, the real gulo.app.Nest with the board's buzzer and LED strip, every console line the alarm
sends is caught as it leaves (`Nest.emit` replaced by a recorder that reads the buzzer's PWM and the
strip's driver buffer at that moment): the siren must already sound and the path already be red
at the first line. A planted app that leaves the buzzer and the LEDs to their tasks (the order
before this change: the report first, the tasks at their next turn) fails the same check."""

import json
from pathlib import Path

import pytest

from testkit.vboard_fixtures import mpremote

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
SIREN_HZ = 1900  # the first note of gulo.sounds.ALARM
# Builds the app as gulo.app.run() does (no tasks started: handle's own work is what is checked),
# takes a turn to its attempt and knocks the pole; prints what each console line found.
SCRIPT = r"""
import json
import gulo.app as app
nest = app.Nest("/data")
seen = []
def emit(obj):
    pwm = nest.hw.buzzer
    seen.append([obj.get("ev"), pwm.freq(), pwm.duty_u16(), list(nest.hw.strip.buf)])
nest.emit = emit
t = nest.clock.now() + 1000
nest.flow.phase = "pick"
nest.handle(nest.flow.button("reveal", t), t)
assert nest.flow.phase == "attempt", nest.flow.phase
del seen[:]
t += 2000
nest.handle(nest.flow.pole(False, t), t)
nest.hw.deinit()
print("SEEN", json.dumps({"path": len(nest.flow.game.path), "lines": seen}))
"""
# The planted fault: handle as before this change, the buzzer and the LEDs left to their tasks.
DRAW = "        if notes:\n            self.draw(t_ms)\n            self.changed()\n"
BUZZ = "        self.tune.play(tune, t_ms)\n        self.buzz(t_ms)\n"


def lines_of_an_alarm(board, planted=None):
    """[(event, freq, duty, red path LEDs)] for each console line of a pole alarm, in order, and
    the path's length. `planted`: an app.py to run instead of the firmware's."""
    mpremote(board, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    if planted is not None:
        mpremote(board, "fs", "cp", str(planted), ":gulo/app.py")
    out = mpremote(board, "exec", SCRIPT, timeout=120).stdout
    seen = json.loads(out.split("SEEN", 1)[1])
    path = seen["path"]
    result = []
    for ev, freq, duty, strip in seen["lines"]:
        # tile k is LED k-1 (gulo.board.LED_PATH_FIRST = 0), GRB on the strip: red = (0, r, 0)
        red = sum(1 for k in range(path) if strip[3 * k + 1] > 0 == strip[3 * k] == strip[3 * k + 2])
        result.append((ev, freq, duty, red))
    return result, path


def test_the_siren_and_the_red_path_are_out_before_the_alarms_first_console_line(vboard):
    lines, path = lines_of_an_alarm(vboard)
    assert lines and lines[0][0] == "action", lines
    ev, freq, duty, red = lines[0]
    assert freq == SIREN_HZ and duty > 0 and red == path, lines


def test_planted_fault_the_alarm_left_to_its_tasks_fails_the_check(vboard, tmp_path):
    source = (FIRMWARE / "gulo" / "app.py").read_text()
    assert DRAW in source and BUZZ in source
    source = source.replace(DRAW, "        if notes:\n            self.changed()\n", 1)
    planted = tmp_path / "app.py"
    planted.write_text(source.replace(BUZZ, "        self.tune.play(tune, t_ms)\n", 1))
    lines, path = lines_of_an_alarm(vboard, planted)
    ev, freq, duty, red = lines[0]
    assert ev == "action" and not (freq == SIREN_HZ and duty > 0) and red < path, lines
