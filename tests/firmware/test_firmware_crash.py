"""No crash ends a game (issue 16), on the virtual board with the firmware as deployed (main.py):
- a task that raises (the vboard's "raise" fault: the next write to the LED strip raises OSError,
  once) is reported as a crash line by the app's one exception handler, which resets the board:
  the game resumes from flash and goes on. Under asyncio.gather (the app before) the exception
  ended the app instead and the board sat at the REPL: the planted-fault test below shows that
  the check sees that difference.
- a console command that raises answers an error line naming the command and the problem, and the
  game goes on in the same boot.
(A full flash: tests/test_full_flash.py.)"""

import re

import pytest

from testkit.boardkit import FIRMWARE, booted_nest
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
    the strip is the `leds` command's own, which the planted fault makes raise. Its answer."""
    nest.new(2, "standard", 4)
    nest.drain(1.0)
    nest.seen.clear()
    nest.ctl.fault("raise")
    return nest.ask("leds", timeout=10, pattern="red")


def test_a_command_that_raises_answers_an_error_and_the_game_goes_on(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        ans = command_raises(nest)
        assert ans["ok"] is False and ans["re"] == "leds", ans
        assert ans["error"].startswith("leds failed: OSError") and "planted fault" in ans["error"], ans
        assert not [ev for ev in nest.seen if ev.get("ev") in ("crash", "ready", "stopped")]
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
