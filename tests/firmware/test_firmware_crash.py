"""No crash ends a game (issue 16), on the virtual board with the firmware as deployed (main.py):
- a task that raises (the vboard's "raise" fault: the next write to the LED strip raises OSError,
  once) is reported as a crash line by the app's one exception handler, which resets the board:
  the game resumes from flash and goes on. Under asyncio.gather (the app before) the exception
  ended the app instead and the board sat at the REPL: the planted-fault test below shows that
  the check sees that difference.
- a console command that raises answers an error line naming the command and the problem, and the
  game goes on in the same boot.
- only the HX711 driver's own fault (HX711Fault) is shown as an HX711 fault; any other exception on
  the sample path leaves the sampler for that handler;
- a start that fails (Nest() raises, before the handler exists) says so in the same crash line and
  resets once; failing again, the board stays at the REPL in safe mode instead of a reset loop.
(A full flash: tests/test_full_flash.py.)"""

import json
import re

import pytest
import serial

from nest.appboard import Console, start_app_board
from testkit.boardkit import FIRMWARE, booted_nest, planted_firmware
from testkit.vboard_fixtures import mpremote

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]
SOFT_RESET = 5  # machine.reset()'s cause on the ESP32 (esp_restart: SW_CPU_RESET), as the vboard gives it


def plant_raise(nest, timeout=20):
    """In a game whose Gulo has moved (its tile blinks: the lights task writes every BLINK_MS),
    the next write to the strip raises: the crash line."""
    nest.ctl.fault("raise")
    return nest.wait(lambda ev: ev.get("ev") == "crash", timeout)


def plant(nest, tmp_path, name, text):
    """gulo/NAME replaced by `text` on the board's flash, and the board booted with it."""
    planted = tmp_path / name
    planted.write_text(text)
    nest.close()  # mpremote stops the app (Ctrl-C) and writes the file on the board's flash
    mpremote(nest.board, "fs", "cp", str(planted), ":gulo/" + name)
    nest.open()
    nest.ctl.reset()
    nest.after_boot()


def test_a_task_that_raises_resets_the_board_and_the_game_goes_on(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        nest.play_turn("roll")
        before = nest.status()["state"]
        crash = plant_raise(nest)
        assert "OSError" in crash["error"] and "planted fault" in crash["error"], crash
        ready = nest.after_boot()
        assert nest.ctl.request("ping")["reset_cause"] == SOFT_RESET
        assert ready["resumed"] is True and ready["state"] == before == nest.game.state()
        nest.play_turn("roll")   # every action judged and checked against the host's engine
        nest.check_log("current")


def test_planted_tasks_under_gather_end_the_app_and_the_check_fails(tmp_path):
    # The app as it was: the tasks gathered. The same raise then ends the app (no crash line, the
    # board at the REPL, no game): the check above would fail on it.
    with booted_nest(tmp_path / "flash") as nest:
        app = (FIRMWARE / "gulo" / "app.py").read_text()
        gathered, n = re.subn(r"    for task in \((.*?)\):\n        asyncio.create_task\(task\)\n"
                              r"    await asyncio.Event\(\).wait\(\)[^\n]*\n",
                              r"    await asyncio.gather(\1)\n", app, flags=re.S)
        assert n == 1, "the planted fault no longer matches gulo/app.py's main()"
        plant(nest, tmp_path, "app.py", gathered)
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        with pytest.raises(AssertionError):  # no crash line: the exception left the app
            plant_raise(nest, timeout=10)
        with pytest.raises(AssertionError):  # no ready line: the board sits at the REPL
            nest.after_boot(timeout=8)


def command_raises(nest):
    """A new game before anyone moved: the LEDs are still (nothing blinks), so the only write to
    the strip is the `leds` command's own, which the planted fault makes raise. Its answer, and
    where in nest.seen the lines since the fault begin."""
    nest.new(2, "standard", 4)
    nest.drain(1.0)
    mark = len(nest.seen)
    nest.ctl.fault("raise")
    return nest.ask("leds", timeout=10, pattern="red"), mark


def test_a_command_that_raises_answers_an_error_and_the_game_goes_on(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        ans, mark = command_raises(nest)
        assert ans["ok"] is False and ans["re"] == "leds", ans
        assert ans["error"].startswith("leds failed: OSError") and "planted fault" in ans["error"], ans
        assert not [ev for ev in nest.seen[mark:] if ev.get("ev") in ("crash", "ready", "stopped")]
        nest.play_turn("roll")
        nest.play_turn("roll")
        assert nest.status()["state"] == nest.game.state()
        nest.check_log("current")


def test_planted_no_guard_around_the_commands_and_the_check_fails(tmp_path):
    # Without the guard the command's exception leaves the console task: no answer (the board
    # crashes and resets instead).
    with booted_nest(tmp_path / "flash") as nest:
        src = (FIRMWARE / "gulo" / "commands.py").read_text()
        guard = "    except Exception as e:  # noqa: BLE001"
        assert src.count(guard) == 1, "the planted fault no longer matches gulo/commands.py"
        plant(nest, tmp_path, "commands.py", src.replace(guard, "    except ZeroDivisionError as e:"))
        with pytest.raises(AssertionError):
            command_raises(nest)
        assert [ev for ev in nest.seen if ev.get("ev") == "crash"]


# The sampler with the HX711 driver's place taken by one whose every poll raises `error` (the
# app built as gulo.app.run() builds it; no other task runs): what came of the sampler within
# 300 ms of the board's time, and the faults it reported.
SAMPLER = r"""
import asyncio, json
import gulo.app as app
from gulo.hx711 import HX711Fault, Silence
nest = app.Nest("/data")
said = []
nest.emit = said.append
driver = nest.hw.hx

class Raising:
    def __init__(self, error):
        self.error = error
    def ready(self):
        return True
    def take(self):
        raise self.error

def sample(error):
    nest.hw.hx = Raising(error)
    del said[:]
    try:
        asyncio.run(asyncio.wait_for_ms(nest.sampler(Silence(0)), 300))
        out = "returned"
    except asyncio.TimeoutError:
        out = "ran on"
    except Exception as e:
        out = repr(e)
    return [out, [ev.get("what") for ev in said if ev.get("ev") == "fault"]]

seen = [sample(HX711Fault("saturated reading", 0)), sample(TypeError("planted bug"))]
nest.hw.hx = driver
nest.hw.deinit()
print("SEEN", json.dumps(seen))
"""


def test_only_the_hx711_s_own_fault_is_an_hx711_fault_any_other_error_reaches_the_crash_handler(vboard):
    # A bug on the sample path (here: in the driver's poll) is no HX711 fault: it leaves the
    # sampler, whose exception reaches the one handler of every task (the crash line and the reset
    # of test_a_task_that_raises_resets_the_board_and_the_game_goes_on).
    mpremote(vboard, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    out = mpremote(vboard, "exec", SAMPLER, timeout=120).stdout
    (saturated, faults), (bug, bug_faults) = json.loads(out.split("SEEN", 1)[1])
    assert saturated == "ran on" and faults == ["hx711"], out
    assert bug.startswith("TypeError(") and "planted bug" in bug and bug_faults == [], out


# Nest() made to raise: the app fails to start, before the tasks' handler exists.
START = "        self.clock = Clock()\n"
START_FAILS = '        raise ValueError("planted: the start fails")\n'


def test_a_start_that_fails_says_crash_resets_once_then_stays_in_safe_mode(tmp_path):
    firmware = planted_firmware(tmp_path / "firmware", "app.py", START, START_FAILS)
    board = start_app_board(tmp_path / "flash", firmware=firmware, timing="host", baud=0,
                            log_path=tmp_path / "vboard.log")
    try:
        with serial.Serial(board.port, 115200, timeout=0.05) as port:
            console = Console(port)
            board.control.reset()
            lines = console.wait(lambda ev: ev.get("ev") == "safe_mode", 60)
            crashes = [ev for ev in lines if ev.get("ev") == "crash"]
            assert len(crashes) == 2 and all("planted: the start fails" in c["error"] for c in crashes), lines
            assert lines[-1]["why"] == "the app failed to start twice in a row", lines
            assert not [ev for ev in lines if ev.get("ev") == "ready"], lines
            # no reset loop: nothing more is said, the board boots no more
            boots = board.control.request("ping")["boots"]
            with pytest.raises(AssertionError):
                console.wait(lambda ev: True, 3)
            assert board.control.request("ping")["boots"] == boots
        assert mpremote(board, "exec", "print(6 * 7)").stdout.strip() == "42"   # the REPL is free
    finally:
        board.stop()
