"""Issue 19, point 2, end to end on the virtual board: a game with eggs out, the board stopped, the
nest changed while it was off (an egg put back, another taken, or the world not kept at all: every
egg in the bowl), a restart: the firmware weighs the bowl against the game it resumed and its
prompt names exactly what differs; doing that lets the game go on. The calibration is the one
`nest calibrate` leaves after a tare of the empty bowl with the pole on the table (tare_pole false).
A planted fault (a relearn that trusts the nest, as before the check) makes the check fail."""

import copy
import json
import shutil

import pytest

from gulo import store
from gulo.rules import NEST_FULL
from nest.vboard import bench_calibration
from testkit.boardkit import EGGS_BACK, FIRMWARE, booted_nest, planted_firmware, take_each

pytestmark = pytest.mark.board

SEED = 5  # two clean turns leave a yellow and a blue egg in the bags (host engine, best pick)


@pytest.fixture(scope="module")
def left_off(tmp_path_factory):
    """A game with eggs out, played on a calibrated board that kept its world, then stopped: its
    flash folder, world file and the host's copy of the game."""
    folder = tmp_path_factory.mktemp("resume-check")
    flash = folder / "flash"
    (flash / "data").mkdir(parents=True)
    store.save(str(flash / "data" / "calib.json"), json.dumps(bench_calibration()))
    with booted_nest(flash, keep_world=True) as nest:
        # the game dealt at boot starts once its nest is weighed: checked, not taken as it is
        nest.wait(lambda ev: ev.get("note", {}).get("phase") == "pick")
        unchecked = [ev for ev in nest.seen if "unchecked" in ev.get("note", {})]
        assert not unchecked, f"the calibration was not read: {unchecked}"
        nest.new(2, "standard", SEED)
        for _ in range(2):
            nest.play_turn(hand="roll")
        game, actions = nest.game, list(nest.actions)
        nest.drain(0.5)
    bag = {c: NEST_FULL[c] - game.nest[c] for c in NEST_FULL if game.nest[c] < NEST_FULL[c]}
    assert bag == {"Y": 1, "B": 1}, bag
    kept = json.loads((folder / "flash.world.json").read_text())
    assert kept["nest"] == game.nest and kept["pole_seated"] is True
    return folder, game, actions


def restart(left_off, tmp_path, change, firmware=FIRMWARE):
    """A copy of the board left off, its world changed by `change(kept)` (None: the world file
    deleted), booted again: the running nest, not auto-answering prompts."""
    folder, game, actions = left_off
    flash = tmp_path / "flash"
    shutil.copytree(folder / "flash", flash)
    kept = json.loads((folder / "flash.world.json").read_text())
    if change is not None:
        change(kept["nest"])
        (tmp_path / "flash.world.json").write_text(json.dumps(kept))
    return booted_nest(flash, keep_world=True, auto=False, firmware=firmware), game, actions


def first_word(nest):
    """The first thing the resumed nest says: a prompt naming eggs, or that the next pick may start."""
    def said(ev):
        return ev.get("ev") == "note" and ("prompt" in ev["note"] or ev["note"].get("phase"))

    return nest.wait(said)["note"]


def asks_then_goes_on(left_off, tmp_path, change, expect, firmware=FIRMWARE):
    """Restart with the world changed; the first word must be the eggs prompt naming `expect`
    ({"back": ..., "out": ...}); doing exactly that must bring the pick, and a clean turn."""
    ctx, game, actions = restart(left_off, tmp_path, change, firmware)
    with ctx as nest:
        nest.follow(copy.deepcopy(game), actions)  # the module's game stays as left
        note = first_word(nest)
        assert note == dict(prompt=EGGS_BACK, **expect), note
        status = nest.status()
        assert status["phase"] == "settle" and status["need"] == expect, status
        if "back" in expect:
            nest.ctl.pour_back(eggs=expect["back"])
        take_each(nest, expect.get("out", {}), 2500)
        nest.wait_phase("pick", timeout=40)
        verdict = nest.play_turn(hand="roll")
        assert verdict[1]["event"] == "success", verdict
        nest.check_log()


def put_back_blue(nest):
    nest["B"] += 1


def took_red(nest):
    nest["R"] -= 1


def test_an_egg_put_back_while_off_is_asked_out_again(left_off, tmp_path):
    asks_then_goes_on(left_off, tmp_path, put_back_blue, {"out": {"B": 1}})


def test_an_egg_taken_while_off_is_asked_back(left_off, tmp_path):
    asks_then_goes_on(left_off, tmp_path, took_red, {"back": {"R": 1}})


def test_the_world_not_kept_every_egg_in_the_bowl_names_the_game_s_eggs_out(left_off, tmp_path):
    asks_then_goes_on(left_off, tmp_path, None, {"out": {"B": 1, "Y": 1}})


def test_planted_fault_a_relearn_that_trusts_the_nest_fails_the_check(left_off, tmp_path):
    # the flow's relearn never checks (it takes the bowl for the game's nest)
    trusting = planted_firmware(tmp_path / "firmware", "turnflow.py", "        self.checking = self.game\n",
                                "        self.checking = None\n")
    with pytest.raises(AssertionError) as failed:
        asks_then_goes_on(left_off, tmp_path, put_back_blue, {"out": {"B": 1}}, trusting)
    # it fails where it should: the nest went on to the pick without a word about the blue egg
    assert "'phase': 'pick'" in str(failed.value), failed.value
