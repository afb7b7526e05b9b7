"""A damaged archived game is reported, never raised (issue 16, item 3): on the virtual board, a
finished game's file damaged on flash, then fetched with the console request `nest logs pull`
sends ({"cmd": "log", "name": ...}): the answer is an error line naming the file and the damage,
and the game goes on (before, CorruptFile left the console task and stopped the app)."""

from pathlib import Path

import pytest

from testkit.boardkit import boot_planted, booted_nest
from testkit.vboard_fixtures import mpremote

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]

DAMAGE = """
f = open('/data/games/0001.jsonl', 'r+b')
f.seek({at})
f.write(b'#')
f.close()
print('damaged')
"""


COMMANDS = Path(__file__).resolve().parents[2] / "firmware" / "gulo" / "commands.py"
CATCH = "except CorruptFile as e:"
GUARD = "    except Exception as e:"  # the guard round every command (gulo.commands)


def damaged_archive_fetched(nest, at):
    """Archive a game, damage its file at byte `at` (negative: from the end), boot, fetch it:
    (the answer or None, then the lines saying the app stopped that were seen while a turn was
    played, or the exception the turn raised)."""
    nest.new(2, "standard", 4)
    nest.play_turn("roll")
    nest.new(2, "standard", 5)            # the first game archived as games/0001.jsonl
    assert nest.ask("logs")["logs"] == ["0001.jsonl"]
    assert nest.ask("log", name="0001.jsonl")["ok"]
    nest.close()
    seek = f"{at}" if at >= 0 else f"{at}, 2"
    out = mpremote(nest.board, "exec", DAMAGE.format(at=seek))
    assert "damaged" in out.stdout, out.stdout + out.stderr
    nest.open()
    nest.ctl.reset()
    assert nest.after_boot()["resumed"]
    mark = len(nest.seen)
    nest.send(cmd="log", name="0001.jsonl")
    try:
        ans = nest.wait(lambda ev: ev.get("re") == "log", timeout=10)
    except AssertionError:
        ans = None  # no answer at all: the console task is gone
    try:
        nest.play_turn("roll")            # the game goes on
        nest.check_log("current")
    except AssertionError as e:
        return ans, e
    return ans, [ev for ev in nest.seen[mark:] if ev.get("ev") in ("crash", "stopped", "ready")]


@pytest.mark.parametrize("at", [30, -6], ids=["inside", "last_line"])
def test_a_damaged_archive_fetched_answers_an_error_and_the_game_goes_on(tmp_path, at):
    with booted_nest(tmp_path / "flash") as nest:
        ans, stops = damaged_archive_fetched(nest, at)
    assert ans is not None and ans.get("ok") is False, ans
    assert "/data/games/0001.jsonl" in ans["error"] and "damaged" in ans["error"], ans
    assert stops == []


def test_planted_fault_a_log_command_that_lets_the_damage_out_fails_the_check(tmp_path):
    # Both layers taken out: the log command's own catch and the guard round every command (with
    # the guard alone the damage is still answered, as "log failed: CorruptFile: ...").
    source = COMMANDS.read_text()
    assert source.count(CATCH) == 1 and source.count(GUARD) == 1
    planted = tmp_path / "commands.py"
    planted.write_text(source.replace(CATCH, "except ZeroDivisionError as e:", 1)
                       .replace(GUARD, "    except ZeroDivisionError as e:", 1))
    with booted_nest(tmp_path / "flash") as nest:
        boot_planted(nest, planted, ":gulo/commands.py")
        ans, stops = damaged_archive_fetched(nest, 30)
    assert ans is None and stops, (ans, stops)
