"""Issue 16, item 4, end to end on the virtual board: the family overrules the nest (docs/rules.md,
"The players have the last word"). Undo the last verdict (console, a long press on Menu) and call
the alarm the nest missed (console, Menu then Blue); after each, the log on the board's flash
replays with `nest replay` (the real command) to the state the board shows, and the same player
tries again. A power cut inside an undo leaves a legal log; a firmware whose undo leaves the action
in the log, or restores the wrong player, fails these checks."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gulo.debounce import LONG_PRESS_MS
from gulo.gamelog import read_log
from gulo.turnflow import CALL_AFTER_MS
from testkit.boardkit import EGGS_BACK, Mismatch, Rebooted, booted_nest, nest_in, planted_firmware

pytestmark = pytest.mark.board

NEST = Path(sys.executable).with_name("nest")
SEED = 7
LET_GO_S = 0.15  # a finger lifted between two presses: over 5x the debouncer's calm


@pytest.fixture(scope="module")
def nest(tmp_path_factory):
    with nest_in(tmp_path_factory.mktemp("e2e-overrule")) as n:
        yield n


def check_replay(nest):
    """The running game's log, fetched from the board's flash, replayed by `nest replay --json`,
    is the state the board shows (status) and the host's engine has; the log's actions are the
    ones the board reported and did not take back. Returns the logged actions."""
    lines = nest.fetch_log("current")
    path = nest.tmp / "current.jsonl"
    path.write_text("\n".join(lines) + "\n")
    r = subprocess.run([str(NEST), "replay", "--json", str(path)], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise Mismatch(f"nest replay refused the board's log: {r.stderr}")
    replayed = json.loads(r.stdout)
    shown = nest.status()["state"]
    if replayed != shown or shown != nest.game.state():
        raise Mismatch(f"the log replays to {replayed}\n the board shows {shown}\n host {nest.game.state()}")
    logged = nest.logged_actions(lines)
    if logged != nest.actions:
        raise Mismatch(f"the log holds {logged}, the board reported {nest.actions}")
    return logged


def wait_undo(nest):
    return nest.wait(lambda ev: ev.get("ev") == "undo")


def test_undo_after_a_wrong_colour_alarm(nest):
    nest.new(3, "standard", SEED)
    nest.play_turn("roll")
    player = nest.game.turn
    nest.pick("reveal")
    before = nest.game.state()
    demand = nest.game.demand
    wrong = next(c for c in "GYRB" if c != demand and nest.game.nest[c] > 0)
    action, outcome = nest.take(wrong)
    assert outcome["cause"] == "wrong egg" and nest.game.turn != player
    nest.wait_phase("pick")
    ans = nest.ask("undo")
    assert ans["ok"], ans
    ev = wait_undo(nest)
    assert ev["outcome"]["undone"] == 1 and ev["outcome"]["player"] == player
    assert nest.game.state() == before
    # The eggs of this round went back after the alarm: the nest asks for them out again, then
    # the same player tries the same colour again.
    assert nest.wait_phase("attempt") == ("attempt", player, demand)
    assert check_replay(nest)[-1] == {"do": "reveal"}     # the wrong take is gone from the flash
    action, outcome = nest.take(demand)
    assert outcome["event"] == "success" and outcome["player"] == player
    check_replay(nest)


def test_undo_after_a_success_and_the_pick_after_it(nest):
    nest.new(2, "standard", SEED)
    nest.pick("reveal")
    player, demand = nest.game.turn, nest.game.demand
    before = nest.game.state()
    logged_before = check_replay(nest)
    nest.take(demand)
    nest.pick("reveal")                       # the next player already turned a tile over
    ans = nest.ask("undo")
    assert ans["ok"], ans
    assert wait_undo(nest)["outcome"]["undone"] == 2
    assert nest.game.state() == before
    # The egg that came out must go back in: the prompt names it.
    nest.wait(lambda ev: ev.get("note", {}).get("prompt") == EGGS_BACK
              and ev["note"].get("back") == {demand: 1})
    assert nest.wait_phase("attempt") == ("attempt", player, demand)
    assert check_replay(nest) == logged_before
    # One level: the verdict before is not undone; the refusal says why and changes nothing.
    ans = nest.ask("undo")
    assert not ans["ok"] and ans["error"] == "undo: no verdict to undo"
    assert check_replay(nest) == logged_before


def test_a_called_alarm(nest):
    nest.new(2, "standard", SEED)
    nest.play_turn("roll")
    # nothing under way, and the last verdict older than the players' late call (CALL_AFTER_MS):
    # refused, nothing changes
    time.sleep(CALL_AFTER_MS / 1000 + 0.5)
    ans = nest.ask("call")
    assert not ans["ok"] and ans["error"].startswith("call: no attempt is under way")
    player = nest.game.turn
    nest.pick("reveal")
    ans = nest.ask("call")
    assert ans["ok"], ans
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "called"}
    assert outcome["event"] == "alarm" and outcome["player"] == player and outcome["next"] != player
    assert check_replay(nest)[-1] == {"do": "alarm", "cause": "called"}
    # ...and a called alarm is a verdict like any: it can be undone.
    nest.wait_phase("pick")
    assert nest.ask("undo")["ok"]
    wait_undo(nest)
    assert nest.wait_phase("attempt")[1] == player
    check_replay(nest)


def hold(nest, button, seconds):
    """`button` held for `seconds`, then let go as a finger is: for LET_GO_S before the next press.
    Pressed again at once, a release shorter than the firmware's 20 ms of calm (gulo.debounce) is
    a bounce, and the two presses one (the board holds each change as long as it came apart from
    the last, docs/virtual-board.md: "Presses held as long as the board lived them")."""
    nest.ctl.press(button)
    try:
        time.sleep(seconds)
    finally:
        nest.ctl.release(button)
    time.sleep(LET_GO_S)


def test_a_long_press_on_menu_undoes_and_menu_then_blue_calls_the_alarm(nest):
    nest.new(2, "standard", SEED)
    nest.pick("reveal")
    player, demand = nest.game.turn, nest.game.demand
    before = nest.game.state()
    nest.take(demand)
    nest.wait_phase("pick")
    mark = len(nest.seen)
    # A short press opens the menu and undoes nothing; Menu again closes it.
    hold(nest, "MENU", 0.3)
    nest.wait(lambda ev: isinstance(ev.get("note", {}).get("menu"), dict))
    hold(nest, "MENU", 0.3)
    nest.wait(lambda ev: ev.get("note", {}).get("menu") == "closed")
    assert not any(ev.get("ev") == "undo" for ev in nest.seen[mark:])
    # Held well past LONG_PRESS_MS: the menu that its press opened closes, the verdict is undone.
    hold(nest, "MENU", 3 * LONG_PRESS_MS / 1000)
    ev = wait_undo(nest)
    assert ev["outcome"]["player"] == player and nest.game.state() == before
    assert nest.wait_phase("attempt") == ("attempt", player, demand)
    assert nest.status()["phase"] == "attempt"
    check_replay(nest)
    # Menu, then Blue, during the attempt: the players call the EGG ALARM.
    hold(nest, "MENU", 0.3)
    nest.wait(lambda ev: isinstance(ev.get("note", {}).get("menu"), dict))
    nest.press_until_action("B")
    assert nest.actions[-1] == {"do": "alarm", "cause": "called"}
    assert nest.outcomes[-1]["player"] == player
    check_replay(nest)


def menu_note(ev):
    return isinstance(ev.get("note", {}).get("menu"), dict)


def test_menu_then_blue_calls_the_alarm_while_an_egg_is_judged(nest):
    # The device's call where the console's works: Menu, pressed once the nest says the egg out is
    # being judged, holds the verdict; Blue calls the EGG ALARM. The window is AFTER_HAND_MS of the
    # board's time: when the machine is too slow for the press to land in it, the egg is judged
    # first, the menu is closed again and the next turn tries.
    nest.new(2, "standard", SEED)
    for _ in range(5):
        if nest.game.demand is None:
            nest.pick(nest.best_pick())
        nest.wait_phase("attempt")
        player, n = nest.game.turn, len(nest.actions)
        nest.ctl.take(nest.game.demand)
        nest.wait(lambda ev, n=n: ev.get("note", {}).get("phase") == "confirm" or len(nest.actions) > n)
        hold(nest, "MENU", 0.3)
        nest.wait(menu_note)
        if len(nest.actions) == n:          # the menu opened while the egg was judged
            nest.press_until_action("B")
            assert nest.actions[n:] == [{"do": "alarm", "cause": "called"}], nest.actions[n:]
            assert nest.outcomes[-1]["player"] == player
            check_replay(nest)
            return
        hold(nest, "MENU", 0.3)
        nest.wait(lambda ev: ev.get("note", {}).get("menu") == "closed")
    pytest.fail("the egg was judged before the menu opened in every turn")


# An undo of a verdict with a pick after it takes both lines out of the log in one atomic rewrite
# (GameStore.drop_last(2)): a cut inside it (its second flash operation, `at_op`) keeps the whole
# log, a legal log the rebooted board undoes the same way.
@pytest.mark.parametrize(("at_op", "kept"), [(2, 3)])
def test_a_power_cut_inside_an_undo_leaves_a_legal_log_and_the_undo_can_be_done_again(tmp_path, at_op, kept):
    with booted_nest(tmp_path / "flash", log_path=tmp_path / "vboard.log", tmp=tmp_path) as n:
        n.new(2, "standard", SEED)
        n.pick("reveal")
        before = n.game.state()
        n.take(n.game.demand)
        n.pick("reveal")
        # The pick's line on flash before the cut is armed (the report comes first, the line
        # after it, in one step of the writer: gulo.store.append), so the cut is aimed at the
        # undo's own operations whatever the machine's load.
        until = time.monotonic() + 20
        while len(n.fetch_log("current")) < 4:
            assert time.monotonic() < until, "the pick's line never reached the flash"
            time.sleep(0.05)
        n.ctl.power_cut(at_op=at_op)
        with n.boot_raises(), pytest.raises(Rebooted):
            n.ask("undo")                  # answered before the saves: the cut comes after
            n.wait(lambda ev: False, 30)   # until the rebooted board says ready
        assert n.ctl.flash_ops()["last_cut"], "the cut did not come inside the undo's saves"
        lines = n.fetch_log("current")
        n.follow(read_log(lines), n.logged_actions(lines), n.outcomes, n.ready["state"], "after the cut")
        assert len(n.actions) == kept
        check_replay(n)
        # The rebooted board rebuilt the undo point from its log: the undo reaches the same state.
        assert n.ask("undo")["ok"]
        wait_undo(n)
        assert n.game.state() == before
        n.wait_phase("attempt")
        check_replay(n)


# Faults planted in the firmware on the board's flash: (file, the line as it is, the line planted,
# what the check that catches it says).
PLANTED = {
    "an undo that leaves the action in the log":
        ("gamestore.py", "        kept = lines[:-n]\n", "        kept = lines  # planted\n",
         "the log replays to"),
    "an undo that restores the wrong player":
        ("rules.py", "        self.positions = list(positions)\n",
         "        self.positions = list(positions)\n"
         "        self.turn = (self.turn + 1) % self.players  # planted\n",
         "undo: board says"),
}


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_a_planted_fault_in_the_firmware_is_caught(tmp_path, fault):
    """The same checks on a firmware with a planted fault in its undo: they must fail."""
    name, line, planted_line, says = PLANTED[fault]
    firmware = planted_firmware(tmp_path / "firmware", name, line, planted_line)
    with booted_nest(tmp_path / "flash", log_path=tmp_path / "vboard.log", firmware=firmware,
                     tmp=tmp_path) as n:
        n.new(2, "standard", SEED)
        n.pick("reveal")
        n.take(n.game.demand)
        assert n.ask("undo")["ok"]
        with pytest.raises(Mismatch, match=says):
            wait_undo(n)
            check_replay(n)
