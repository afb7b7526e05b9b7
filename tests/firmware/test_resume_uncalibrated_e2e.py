"""An UNCALIBRATED nest resuming a game under way, end to end on the virtual board (no calib.json:
no zero to weigh the bowl against the game). A game played to two eggs out, the board stopped, the
family pours every egg back (or takes one more out) while it is off, a restart.

The bug this guards (found in session 5): the firmware learned the bowl as it found it as the
game's nest, went on to the pick, and after the next alarm waited for "every egg back" that had
already come: stuck until power-cycled with the bowl matching. Now it asks for every egg back and
Reveal (the family's word on a full nest, the one thing they can see), then names the game's eggs
out and weighs each one (docs/play-page.md "Resuming on an uncalibrated nest"). The planted fault
is the old behaviour, and it shows the stall."""

import copy
import json
import shutil

import pytest

from gulo.rules import NEST_FULL
from testkit.boardkit import (
    BUTTONS,
    EGGS_BACK,
    FIRMWARE,
    POUR_CONFIRM,
    booted_nest,
    planted_firmware,
    take_each,
)

pytestmark = pytest.mark.board

SEED = 5  # two clean turns leave a yellow and a blue egg in the bags (host engine, best pick)
BAG = {"B": 1, "Y": 1}
CONFIRMING = ("        self.word = False if self.tare_pole is None and g.revealed and g.winner is None"
              " else None\n")


@pytest.fixture(scope="module")
def left_off(tmp_path_factory):
    """A game with eggs out on a board never calibrated that kept its world, then stopped."""
    folder = tmp_path_factory.mktemp("resume-uncal")
    flash = folder / "flash"
    (flash / "data").mkdir(parents=True)
    with booted_nest(flash, keep_world=True) as nest:
        nest.new(2, "standard", SEED)
        for _ in range(2):
            nest.play_turn(hand="roll")
        game, actions = nest.game, list(nest.actions)
        nest.drain(0.5)
    assert not (flash / "data" / "calib.json").exists()
    kept = json.loads((folder / "flash.world.json").read_text())
    assert {c: NEST_FULL[c] - n for c, n in kept["nest"].items() if n < NEST_FULL[c]} == BAG, kept
    return folder, game, actions


def restart(left_off, tmp_path, change, firmware=FIRMWARE):
    """The board left off, its world changed while off by `change(nest)`, booted again."""
    folder, game, actions = left_off
    flash = tmp_path / "flash"
    shutil.copytree(folder / "flash", flash)
    kept = json.loads((folder / "flash.world.json").read_text())
    change(kept["nest"])
    (tmp_path / "flash.world.json").write_text(json.dumps(kept))
    nest_ctx = booted_nest(flash, keep_world=True, auto=False, firmware=firmware)
    return nest_ctx, copy.deepcopy(game), list(actions)


def every_egg_back(nest):
    nest.update(NEST_FULL)


def every_egg_back_but_a_red(nest):
    every_egg_back(nest)
    nest["R"] -= 1


def first_word(nest):
    def said(ev):
        return ev.get("ev") == "note" and ("prompt" in ev["note"] or ev["note"].get("phase") == "pick")

    return nest.wait(said)["note"]


def press_reveal(nest):
    nest.ctl.press(BUTTONS["reveal"])
    nest.drain(0.3)
    nest.ctl.release(BUTTONS["reveal"])


def alarm_then_pour_back(nest):
    """The next turn ends in an EGG ALARM (the pole knocked): every egg goes back, then the pick."""
    nest.pick(nest.best_pick())
    nest.ctl.knock_pole(in_ms=300)
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "pole"}, (action, outcome)
    nest.ctl.seat_pole(in_ms=200)
    nest.ctl.pour_back(in_ms=1200)
    nest.wait_phase("pick", timeout=40)


def confirm_then_take_out(left_off, tmp_path, change, firmware=FIRMWARE):
    ctx, game, actions = restart(left_off, tmp_path, change, firmware)
    with ctx as nest:
        nest.follow(game, actions)
        note = first_word(nest)
        assert note == {"prompt": POUR_CONFIRM, "pour": True}, note
        nest.drain(3.0)   # never taken as it is, however long it waits
        assert nest.status()["phase"] == "settle", nest.status()
        back = nest.ctl.pour_back()   # whatever is out (nothing, or the red egg)
        nest.drain((back["until_ms"] - back["t_ms"]) / 1000 + 0.5)
        press_reveal(nest)
        asked = nest.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("prompt") == EGGS_BACK)
        assert asked["note"] == {"prompt": EGGS_BACK, "out": BAG}, asked
        take_each(nest, BAG, 300)
        nest.wait_phase("pick", timeout=40)
        verdict = nest.play_turn(hand="roll")
        assert verdict[1]["event"] == "success", verdict
        alarm_then_pour_back(nest)   # the stall of before came here
        nest.check_log()


def test_every_egg_poured_back_while_off_is_confirmed_then_the_game_s_eggs_are_asked_out(left_off, tmp_path):
    confirm_then_take_out(left_off, tmp_path, every_egg_back)


def test_an_egg_on_the_table_too_is_poured_back_with_the_rest(left_off, tmp_path):
    confirm_then_take_out(left_off, tmp_path, every_egg_back_but_a_red)


def test_planted_fault_the_bowl_learned_as_the_game_s_stalls_after_the_next_alarm(left_off, tmp_path):
    # the uncalibrated resume of before: no confirmation, the full bowl learned as the game's nest
    trusting = planted_firmware(tmp_path / "firmware", "turnflow.py", CONFIRMING,
                                "        self.word = None\n")
    with pytest.raises(AssertionError) as failed:
        confirm_then_take_out(left_off, tmp_path, every_egg_back, trusting)
    assert "'phase': 'pick'" in str(failed.value), failed.value
    # the symptom itself: the pick, a clean turn, then an alarm, every egg back ... and no pick
    ctx, game, actions = restart(left_off, tmp_path / "again", every_egg_back, trusting)
    with ctx as nest:
        nest.follow(game, actions)
        assert first_word(nest).get("phase") == "pick"
        verdict = nest.play_turn(hand="roll")
        assert verdict[1]["event"] == "success", verdict
        with pytest.raises(AssertionError):
            alarm_then_pour_back(nest)
        status = nest.status()
        assert status["phase"] == "settle" and status["prompt"] == EGGS_BACK, status
