"""Playing the nest firmware on the virtual board, end to end: the harness of the e2e tests, the
fault drills (`make drills`, lab/drills.py) and the fuzzers.

`NestUnderTest` plays the real firmware on a `VirtualBoard` running the app (nest.appboard, built
as `nest web` builds it), reads its JSON console lines in order
and acts in the simulated world through the control channel (buttons, hands, the pole). Every
`action` line the board reports is replayed on the host's own copy of the engine
(`gulo.rules.Game`): the outcome and the `state` line that follows must be exactly what the host
computes, else `Mismatch` is raised on the spot, as it is for a note of a kind the shared
vocabulary (gulo.vocab.NOTES) does not know. Prompts ("put the pole back", "put the eggs back
into the nest") are answered like a family at the table would, unless `auto` is off.

    with booted_nest(tmp_path) as nest:
        nest.new(2, "standard", seed=5)
        nest.play_turn()                 # pick a colour with the buttons, take that egg
"""

import contextlib
import json
import shutil
import threading
import time
from pathlib import Path

import serial

from gulo import store
from gulo.gamelog import LogError, read_log
from gulo.rules import NEST_FULL, Game
from gulo.vocab import BUTTON_PIN_NAMES
from gulo.vocab import BUTTONS as BUTTON_NAMES
from nest.appboard import FIRMWARE, Console, start_app_board, write_file
from nest.boardtrust import BoardLie, checked
from nest.vboard import VirtualBoard
from nest.words import note_kind

# A button by the firmware's name -> its name on the virtual board's control channel.
BUTTONS = dict(zip(BUTTON_NAMES, BUTTON_PIN_NAMES, strict=True))
EGGS_BACK = "put the eggs back into the nest"
POLE_BACK = "put the pole back"
# An uncalibrated nest resuming a game under way asks for a full nest and Reveal (gulo.turnflow)
POUR_CONFIRM = "pour every egg back, then press Reveal"
# How long a player holds Reveal to confirm (the firmware confirms a press after 20 ms of calm:
# gulo.debounce; a slowed board polls later)
_CONFIRM_HOLD_S = 0.3


class Mismatch(AssertionError):
    """The board said something the host's engine does not agree with."""


class Rebooted(Exception):
    """The firmware said "ready" again (a power cut, a reset, the watchdog) while we played."""




def best_pick(g):
    """Reveal while a tile is face down (or draw on the last tile), else the colour ahead that
    takes the Gulo furthest: a quick way to the end of the path (Game `g`)."""
    if g.can_reveal():
        return "reveal"
    pos = g.position()
    best, reach = None, -1
    for c in g.colours_ahead():
        k = g.path.index(c, pos) + 1
        if k > reach:
            best, reach = c, k
    return best


def outcome_without_time(outcome):
    return {k: v for k, v in outcome.items() if k != "t_ms"}


class NestUnderTest:
    """The board under test and what it said. Only its methods change what it holds; a test or a
    drill reads it (game, actions, phase, ...) and acts through the methods (new, follow,
    prompts_held, boot_raises, ...)."""

    def __init__(self, board, auto=True, tmp=None):
        """`board`: None for the console-line handling alone (handle), with no port; `tmp`: a
        folder of the test's own (stage_game's staged log)."""
        self.board = board
        self.ctl = board.control if board is not None else None
        self.auto = auto          # prompts answered as a family would (prompts_held: not)
        self.tmp = tmp
        self.port = None
        self.console = None
        self.game = None          # the host's copy of the engine
        self.actions = []         # actions reported by the board in the current game
        self.seen = []            # every console line since the last boot
        self.faults = []          # {"ev": "fault", ...} lines since the last boot
        self.phase = None         # the last phase note: (phase, turn, demand)
        self.prompt = None
        self.boots = 0            # ready lines seen
        self.ready = None         # the last "ready" line
        self.recovered = []       # .tmp leftovers the firmware removed at boot
        self.outcomes = []        # the board's outcomes of the first of self.actions (a game taken
                                  # up from the board's flash: of those reported since)
        self._raise_on_boot = False
        if board is not None:
            self.open()

    # ---- serial -----------------------------------------------------------------------------
    def open(self):
        self.port = serial.Serial(self.board.port, 115200, timeout=0.05)
        self.console = Console(self.port)

    def close(self):
        if self.port is not None:
            self.port.close()
            self.port = None

    def send(self, **cmd):
        self.console.send(**cmd)

    def ask(self, cmd, timeout=20.0, **fields):
        """A console command and its answer line (the lines in between are handled)."""
        tag = f"{cmd}-{time.monotonic_ns()}"
        self.send(cmd=cmd, id=tag, **fields)
        return self.wait(lambda ev: ev.get("id") == tag and "re" in ev, timeout)

    def status(self):
        ans = self.ask("status")
        assert ans["ok"], ans
        return ans

    def wait_saved(self, timeout=20.0):
        """The status once every line the board reported is on flash (status_when_saved)."""
        return status_when_saved(self.status, timeout)

    # ---- reading the console --------------------------------------------------------------------
    def wait(self, until, timeout=30.0):
        """Handle console lines until `until(line)`; returns that line."""
        found = []

        def pred(ev):
            self.handle(ev)
            if until(ev):
                found.append(ev)
                return True
            return False

        self.console.wait(pred, timeout)
        return found[0]

    def drain(self, quiet_s=0.2):
        """Handle whatever lines arrive until the console is quiet for `quiet_s`."""
        with contextlib.suppress(AssertionError):
            self.console.wait(lambda ev: self.handle(ev) and False, quiet_s)

    def handle(self, ev):
        """One console line taken into account (what wait() and drain() do with each line)."""
        self.seen.append(ev)
        try:
            checked(ev)  # every line the firmware sends fits the schema the host tools read it by
        except BoardLie as e:
            raise Mismatch(f"a line the host's schema (nest.boardtrust) refuses: {e}: {ev}") from None
        kind = ev.get("ev")
        if kind == "action":
            self._check_action(ev)
        elif kind == "undo":
            self._check_undo(ev)
        elif kind == "state":
            self._check_state(ev["state"], "state line")
        elif kind == "ready":
            # A new boot: its flow starts in SETTLE, so a phase note or prompt of the boot before
            # (still queued when after_boot() cleared them) no longer holds (finding 6 of
            # docs/reliability.md: an egg dropped on such a stale `attempt` fell while the new
            # boot's weigher was learning the nest, and the resumed game waited for it forever).
            self.phase = self.prompt = None
            self.ready = ev
            self.boots += 1
            if self._raise_on_boot:
                raise Rebooted(ev)
        elif kind == "fault":
            self.faults.append(ev)
        elif kind == "recovered":
            self.recovered.append(ev["file"])
        elif kind == "note":
            note = ev["note"]
            kind = note_kind(note)
            if kind is None:
                raise Mismatch(f"a note of a kind gulo.vocab.NOTES does not know: {note}")
            # by kind: a refusal names the phase it came in, and is no phase note
            # (tests/test_boardkit_notes.py)
            if kind == "phase" and note["phase"] in ("pick", "attempt"):
                self.phase = (note["phase"], note.get("turn"), note.get("demand"))
                self.prompt = None
            if kind == "prompt":
                self.prompt = note["prompt"]
                self.phase = None
                if self.auto:
                    self.remedy(note["prompt"])
        return True

    def _check_action(self, ev):
        action, outcome = ev["action"], ev["outcome"]
        if self.game is None:
            raise Mismatch(f"an action before any game: {ev}")
        try:
            expected = self.game.apply(dict(action))
        except ValueError as e:
            raise Mismatch(f"the board did {action}, which the host's engine refuses: {e}") from e
        if outcome_without_time(outcome) != expected:
            raise Mismatch(f"{action}: board says {outcome}, host engine {expected}")
        self.actions.append(action)
        self.outcomes.append(outcome_without_time(outcome))
        g = self.game
        # A pick goes straight to the attempt (no phase note); anything else settles first.
        self.phase = ("attempt", g.turn, g.demand) if g.demand and g.winner is None else None

    def _check_undo(self, ev):
        """The players undid the last verdict: the host's engine undoes it too, and the actions
        it took back leave the host's record as they leave the board's log."""
        outcome = outcome_without_time(ev["outcome"])
        try:
            expected = self.game.undo()
        except ValueError as e:
            raise Mismatch(f"the board undid a verdict the host's engine cannot undo: {e}") from e
        if outcome != expected:
            raise Mismatch(f"undo: board says {outcome}, host engine {expected}")
        n = expected["undone"]
        del self.actions[len(self.actions) - n:]
        del self.outcomes[len(self.outcomes) - n:]
        self.phase = None

    def _check_state(self, state, what):
        if self.game is not None and state != self.game.state():
            raise Mismatch(f"{what}: board {state}\n host {self.game.state()}")

    def follow(self, game, actions, outcomes=(), state=None, what="the game taken up"):
        """From now on the host's engine is `game` (None: no game), whose `actions` the board's
        log holds: a game staged on its flash, or resumed after a boot. `outcomes`: the board's
        reports of the first of them, where known; `state`: the board's word on the game, which
        must be the host's (else Mismatch)."""
        self.game = game
        self.actions = [dict(a) for a in actions]
        self.outcomes = list(outcomes)[:len(self.actions)]
        if state is not None:
            self._check_state(state, what)

    @contextlib.contextmanager
    def prompts_held(self):
        """Within: the nest's prompts are noted (self.prompt), not answered; the test answers them."""
        auto, self.auto = self.auto, False
        try:
            yield self
        finally:
            self.auto = auto

    @contextlib.contextmanager
    def boot_raises(self):
        """Within: the board's next ready line (a power cut, a reset, the watchdog) raises Rebooted
        where it is read. The faults and the recovered files count from the block's start: a new
        boot prints them BEFORE its ready line (gulo.app.Nest())."""
        self.faults, self.recovered = [], []
        self._raise_on_boot = True
        try:
            yield self
        finally:
            self._raise_on_boot = False

    # ---- the world --------------------------------------------------------------------------------
    def remedy(self, prompt):
        """Do what the nest asks for, as a player would."""
        world = self.ctl.world()
        if prompt == POLE_BACK and not world["pole_seated"]:
            self.ctl.seat_pole()
        elif prompt == EGGS_BACK:
            # The bowl made the game's nest, from what lies on the table (the world, with what is
            # already under way): the eggs that belong in go back; eggs in a player's bag after a
            # success stay out (a resumed game's, once the nest knows the full bowl) and are taken
            # out one by one once every hand under way has left (an earlier answer's pour too: an
            # egg taken out under a pouring hand is weighed with the hand). Asked again as each
            # egg moves (the nest's prompt follows the bowl), it does only what is still to do.
            have = dict(world["nest"])
            at = 0
            for e in world["truth"]:           # what is already under way counts as done
                if e["t_ms"] <= world["t_ms"]:
                    continue
                at = max(at, e["t_ms"] - world["t_ms"] + 400)   # an egg out waits for that hand
                if e["what"] == "out":
                    have[e["colour"]] -= 1
                elif e["what"] == "back":
                    for c, n in e["eggs"].items():
                        have[c] += n
            want = self.game.nest if self.game else NEST_FULL
            missing = {c: want[c] - have[c] for c in NEST_FULL if want[c] > have[c]}
            if missing:
                back = self.ctl.pour_back(eggs=missing)
                at = max(at, back["until_ms"] - back["t_ms"] + 400)
            for c in NEST_FULL:
                for _ in range(have[c] - want[c]):
                    self.ctl.drop(c, in_ms=at)
                    at += 500
        elif prompt == POUR_CONFIRM:
            # every egg in, then Reveal once the pouring hand has left (the nest then names the
            # eggs to take out, answered above). Done here, before anything else is read: a
            # press left for later could land in the next game's attempt.
            back = self.ctl.pour_back()
            time.sleep((back["until_ms"] - back["t_ms"]) / 1000 + 0.5)
            self.ctl.press(BUTTONS["reveal"])
            time.sleep(_CONFIRM_HOLD_S)
            self.ctl.release(BUTTONS["reveal"])

    def answer_first_word(self, timeout=15.0):
        """After a boot with `auto` off: the resumed game's first word (a prompt, or the pick or
        the attempt) awaited and a prompt answered once, as a family would; auto answers are back
        on after it, not during the wait: a prompt the wait answered would be answered again here
        (a second pour, its hand in the bowl while the nest learns the full nest at Reveal)."""
        try:
            if self.game is None or self.game.winner is not None:
                return
            if self.prompt is None and self.phase is None:
                self.wait(lambda ev: self.prompt is not None or self.phase is not None, timeout)
            if self.prompt is not None:
                self.remedy(self.prompt)
        finally:
            self.auto = True

    def press_until_action(self, name, timeout=30.0):
        """Hold a button until the board reports the action it leads to, then let go: a short
        fixed press could fall between two polls of a busy board."""
        btn = BUTTONS[name]
        self.ctl.press(btn)
        try:
            return self.next_action(timeout)
        except AssertionError as e:
            if isinstance(e, Mismatch):
                raise
            raise AssertionError(f"{name} held, no action: {e}; pins: {self.ctl.pins()}; "
                                 f"{self.why_not_ready()}") from None
        finally:
            self.ctl.release(btn)

    # ---- the game ---------------------------------------------------------------------------------
    def new(self, players, variant, seed):
        """A new known deal; waits until the nest is ready for the first pick."""
        # lines of the old game still on the way (a win's last state line) are not checked
        # against the new one: no game on the host until the board answers
        self.game = None
        self.phase = None
        ans = self.ask("new", players=players, variant=variant, seed=seed)
        assert ans["ok"], ans
        self.game = Game.new(players, variant, seed)
        self.actions = []
        self.outcomes = []
        self._check_state(ans["state"], "new game")
        return self.wait_phase("pick")

    def wait_phase(self, phase=None, timeout=30.0):
        """Until the nest is ready for a pick or an attempt (`phase` to insist on one)."""
        if self.phase is None or (phase and self.phase[0] != phase):
            try:
                self.wait(lambda ev: self.phase is not None and (phase is None or self.phase[0] == phase),
                          timeout)
            except AssertionError as e:
                raise AssertionError(f"no {phase or 'ready'} phase: {e}; {self.why_not_ready()}") from None
        if self.phase[1] != self.game.turn or self.phase[2] != self.game.demand:
            raise Mismatch(f"phase note {self.phase} but the host's turn {self.game.turn}, "
                           f"demand {self.game.demand}")
        return self.phase

    def why_not_ready(self):
        """What the board and its world say when the nest never got ready (a quiet nest waits
        for the weigher at rest without a word): for a failure's message."""
        parts = [f"the last lines before: {self.seen[-12:]}"]
        for cmd in ("status", "sensors"):
            try:
                parts.append(f"{cmd}: {self.ask(cmd, timeout=5.0)}")
            except AssertionError:
                parts.append(f"{cmd}: no answer in 5 s")
        try:
            parts.append(f"world: {self.ctl.world()}")
        except Exception as e:  # noqa: BLE001 - a message about a failure must not fail itself
            parts.append(f"world: {e}")
        return "; ".join(parts) + f"; board log: {self.board.log_path}"

    def next_action(self, timeout=30.0):
        """Until the board reports its next action; returns (action, outcome)."""
        n = len(self.actions)
        ev = self.wait(lambda ev: ev.get("ev") == "action" and len(self.actions) > n, timeout)
        return ev["action"], self.outcomes[-1]

    def pick(self, how):
        """`how`: "reveal" or a colour letter (choose); returns the board's action and outcome."""
        self.wait_phase("pick")
        return self.press_until_action(how)

    def take(self, colour, hand="steady"):
        """The player takes an egg of `colour` (phase attempt); returns the board's verdict.
        hand="roll": the egg rolls out by itself (a `drop`), the quickest clean egg there is."""
        self.wait_phase("attempt")
        if hand == "roll":
            self.ctl.drop(colour)
        else:
            self.ctl.take(colour, hand=hand)
        return self.next_action()

    def best_pick(self):
        return best_pick(self.game)

    def play_turn(self, hand="steady"):
        """One clean turn: the best pick, then the demanded egg taken cleanly (only the egg when
        a resumed game already demands one)."""
        if self.game.demand is None:
            self.pick(self.best_pick())
        if self.game.winner is not None:   # fast variant: Gulo junior found
            return None
        return self.take(self.game.demand, hand)

    def play_to_verdict(self, hand="roll"):
        """The game goes on to its next verdict: the pick the board asks for (if any), then the
        demanded egg rolls out, and the board judges it (a fast game may end at the pick: Gulo
        junior found). Returns the actions the board reported on the way; AssertionError when
        the board judges nothing within 30 s (the resumed game of finding 6 did not)."""
        n = len(self.actions)
        if self.game.winner is None:
            self.play_turn(hand)
        return self.actions[n:]

    def play_to_win(self, hand="roll", max_turns=80):
        for _ in range(max_turns):
            if self.game.winner is not None:
                return self.game.winner
            self.play_turn(hand)
        raise AssertionError(f"no winner after {max_turns} turns: {self.game.state()}")

    # ---- the record on flash ------------------------------------------------------------------------
    def fetch_log(self, name="current"):
        ans = self.ask("log", name=name)
        assert ans["ok"], ans
        return ans["lines"]

    def logged_actions(self, lines):
        return logged_actions(lines)

    def check_log(self, name="current"):
        """The board's log replayed by the host's engine gives the host's game, and holds exactly
        the actions reported on the console."""
        lines = self.fetch_log(name)
        replayed = read_log(lines)
        if replayed.state() != self.game.state():
            raise Mismatch(f"log {name} replays to {replayed.state()}, host has {self.game.state()}")
        if self.logged_actions(lines) != self.actions:
            raise Mismatch(f"log {name} holds {self.logged_actions(lines)}, reported {self.actions}")
        return lines

    # ---- power ------------------------------------------------------------------------------------
    def after_boot(self, timeout=30.0):
        """Wait for the firmware's ready line after a reset or power cut; the game it resumed
        becomes the host's game (checked by the caller)."""
        self.ready = None
        self.faults = []
        self.recovered = []
        self.phase = self.prompt = None
        self.wait(lambda ev: ev.get("ev") == "ready", timeout)
        return self.ready


def status_when_saved(ask_status, timeout=20.0):
    """The first status answer (ask_status() returns one) whose `unsaved` is 0: every line the board
    reported is on flash. The writer puts an action on flash after its report (gulo.app.Nest.writer),
    and a full flash's write, which first makes room, can take longer than a console round trip."""
    deadline = time.monotonic() + timeout
    while (status := ask_status())["unsaved"]:
        assert time.monotonic() < deadline, f"{status['unsaved']} lines still not on flash after {timeout} s"
        time.sleep(0.05)
    return status


@contextlib.contextmanager
def booted_nest(flash_dir, log_path=None, auto=True, tmp=None, **kw):
    """A virtual board with the firmware on its flash and running (main.py), ready to play.
    Unthrottled unless `baud` is given. `tmp`: the test's own folder (NestUnderTest.tmp)."""
    kw.setdefault("timing", "host")  # the VM's own speed, unless a drill asks for the ESP32's
    kw.setdefault("baud", 0)
    board = start_app_board(flash_dir, log_path=log_path, **kw)
    nest = None
    try:
        nest = NestUnderTest(board, auto=auto, tmp=tmp)
        board.control.reset()
        nest.after_boot()
        yield nest
    finally:
        if nest is not None:
            nest.close()
        board.stop()


@contextlib.contextmanager
def nest_in(folder):
    """booted_nest on `folder`/flash with its board log beside it and `tmp` set to `folder` (for
    a module's one board: a pytest fixture yields it)."""
    with booted_nest(Path(folder) / "flash", log_path=Path(folder) / "vboard.log", tmp=folder) as n:
        yield n


def planted_firmware(folder, name, old, new):
    """A copy of this checkout's firmware/ in `folder` with one planted fault: `old`, found exactly
    once in gulo/`name`, replaced by `new`; boot it with booted_nest(..., firmware=folder). For the
    checks that must fail on a firmware that does the wrong thing."""
    folder = Path(folder)
    shutil.copytree(FIRMWARE, folder, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    f = folder / "gulo" / name
    text = f.read_text()
    assert text.count(old) == 1, f"gulo/{name} no longer has the line to plant the fault in"
    f.write_text(text.replace(old, new))
    return folder


def boot_planted(nest, planted, target):
    """Stop the app, put the file `planted` on the board as `target` (a planted fault: e.g.
    "gulo/store.py"), boot it."""
    nest.close()
    write_file(nest.board, target.lstrip(":"), Path(planted).read_bytes())
    nest.open()
    nest.ctl.reset()
    return nest.after_boot()


def staged_log(game_actions, players, variant, seed):
    """The text of a game log after `game_actions` (played on the host's engine), and that game."""
    g = Game.new(players, variant, seed)
    lines = [json.dumps({"setup": {"players": players, "variant": variant, "path": g.path,
                                   "deck": g.deck, "seed": seed}})]
    for a in game_actions:
        g.apply(dict(a))
        lines.append(json.dumps(a))
    return "\n".join(lines) + "\n", g


def take_each(nest, eggs, at_ms, gap_ms=2500):
    """A hand takes out each of `eggs` ({colour: n}) in turn, the first `at_ms` from now, then one
    every `gap_ms` (time for the nest to settle and say what is left to do)."""
    for c in sorted(eggs):
        for _ in range(eggs[c]):
            nest.ctl.take(c, in_ms=at_ms)
            at_ms += gap_ms


def stage_game(nest, tmp_dir, actions, players, variant, seed):
    """Stop the app, put a game in progress on the board's flash as its running game, reset: the
    board resumes it (a quick way to a late position such as Gulo junior on the deck)."""
    text, game = staged_log(actions, players, variant, seed)
    path = Path(tmp_dir) / "staged-game.log"
    store.save(str(path), text)
    nest.close()
    if nest.ctl.world()["nest"] != NEST_FULL:
        back = nest.ctl.pour_back()   # the nest full while the board boots
        time.sleep((back["until_ms"] - back["t_ms"]) / 1000 + 0.5)
    write_file(nest.board, "/data/game.log", path.read_bytes())
    nest.open()
    nest.ctl.reset()
    ready = nest.after_boot()
    assert ready["resumed"] is True, ready
    nest.follow(game, actions, state=ready["state"], what="staged game resumed")
    return game


# ---- power cuts ----------------------------------------------------------------------------------
def cut_and_check(nest, rng, seed, at_op=None):
    """One power cut at a random instant of play (or, with `at_op` N, aimed right before the N-th
    flash operation from now: a file opened for writing, a write, a close, a rename; the flash
    keeping what littlefs keeps, vboard/powercut.mjs); returns a dict of what was seen.

    The game the board resumed after the previous cut goes on (a new one, known seed, when there
    is none or it was won), with clean turns, and a cut is scheduled 0.3-4 s ahead, so it lands
    anywhere: in a write of the log, between turns, inside the confirmation window. After the boot
    the firmware must resume the game from its flash: every action it reported before the cut is
    in the log (at most the one in flight is lost), the log replays (host engine) to exactly the
    state it announces, no file is reported damaged and every file on the flash folder reads back
    with the firmware's own readers. The nest stays as it physically was at the cut, unless the
    cut lost an action: then it is set as the resumed game says (nest_as_the_game_says)."""
    new_games = 0
    if nest.game is None or nest.game.winner is not None:
        nest.new(2, rng.choice(("standard", "fast")), seed)
        new_games += 1
    # Faults and recovered files count from the cut on (boot_raises): the new boot prints them
    # BEFORE its `ready` line (gulo.app.Nest()), so they must not be cleared once `ready` is seen.
    try:
        with nest.boot_raises():
            if at_op is None:
                nest.ctl.power_cut(off_ms=rng.choice((0, 50, 200)), in_ms=rng.randint(300, 4000))
            else:
                nest.ctl.power_cut(off_ms=rng.choice((0, 50, 200)), at_op=at_op)
            for i in range(40):
                if nest.game.winner is not None:
                    nest.new(2, rng.choice(("standard", "fast")), seed * 1000 + i)
                    new_games += 1
                nest.play_turn("roll")
            raise AssertionError("the scheduled power cut never came")
    except Rebooted:
        pass
    # the resumed game's first word is answered once the checks are done (answer_first_word): an
    # answer now would move eggs (a pour-back) before they look at the bowl
    with nest.prompts_held():
        return _check_after_cut(nest, new_games, at_op)


def _check_after_cut(nest, new_games, at_op):
    """cut_and_check after the boot: the resumed game and its files against what was reported."""
    reported = list(nest.actions)
    # A cut while the next game was being asked for (NestUnderTest.new drops the host's game
    # first): the won game was archived and the new one may already be the running game.
    won_then_new = nest.game is None and bool(reported)
    ready = nest.ready
    nest.drain(0.3)   # anything the app says right after ready
    check_no_storage_fault(nest.faults)
    files = check_flash(nest.board.flash_dir)
    ops = nest.ctl.flash_ops()
    result = {"reported": len(reported), "logged": 0, "in_flight_kept": 0, "in_flight_lost": 0,
              "new_games": new_games, "files": files, "resumed": bool(ready["resumed"]),
              "put_back": 0, "taken_out": 0,
              "recovered": len(nest.recovered), "torn": len(ops["torn"]),
              "cut_op": ops["last_cut"]["kind"] if at_op is not None and ops["last_cut"] else None}
    if not ready["resumed"]:
        if reported:
            raise Mismatch(f"no game resumed, but {len(reported)} actions had been reported")
        nest.follow(None, [])
        return result
    lines = nest.fetch_log("current")
    if won_then_new and len(lines) == 1:
        # The new game was saved before the cut: every reported action of the won game must be in
        # the newest archived game, which replays to a win; the resumed game is the new one.
        newest = nest.ask("logs")["logs"][-1]
        check_archived(reported, nest.fetch_log(newest), newest)
        result["new_game_saved"] = 1
        reported = []
    replayed, logged = check_resumed(reported, lines, ready["state"])
    nest.follow(replayed, logged, nest.outcomes)
    result.update(logged=len(logged), in_flight_kept=max(0, len(logged) - len(reported)))
    moved = nest_as_the_game_says(nest)
    if nest.ctl.world()["nest"] != nest.game.nest:   # what the resumed game goes on from
        raise Mismatch(f"after the cut the bowl holds {nest.ctl.world()['nest']}, the resumed "
                       f"game {nest.game.nest}")
    result["put_back"], result["taken_out"] = moved["back"], moved["out"]
    # lost: an egg the resumed game does not know (or a pour-back it never asked for), or an
    # action reported and not yet written
    result["in_flight_lost"] = int(moved["back"] + moved["out"] > 0 or len(logged) < len(reported))
    nest.answer_first_word()
    return result


def check_no_storage_fault(faults):
    """Mismatch if any of these `fault` lines (since the cut, the boot's own included) is about
    storage: a file the firmware found damaged."""
    storage = [f for f in faults if f.get("what") == "storage"]
    if storage:
        raise Mismatch(f"a file reported damaged after a power cut: {storage}")


def logged_actions(lines):
    """The actions of a game log's lines (the set-up line dropped), without their time stamps."""
    return [{k: v for k, v in json.loads(t).items() if k != "t"} for t in lines[1:]]


def check_archived(reported, lines, name):
    """A game won before a cut that came while the next game was started: its archived log
    (`lines`, file `name`) holds exactly the reported actions and replays to a win; else Mismatch."""
    logged = logged_actions(lines)
    if logged != reported:
        raise Mismatch(f"the won game's actions {reported} are not whole in {name}: {logged}")
    try:
        won = read_log(lines)
    except LogError as e:
        raise Mismatch(f"the archived game {name} does not replay: {e}") from e
    if won.winner is None:
        raise Mismatch(f"the archived game {name} was reported won but replays to no winner")


def check_resumed(reported, lines, state):
    """The resumed game against what was reported before the cut: its log (`lines`) replays to
    the `state` the board announced and holds every reported action in order but the action in
    flight: the last one reported may be missing (the alarm comes first, its line is written
    after it: gulo.app.Nest.handle), or one more than reported may be there (written, its report
    lost with the power). Returns (the replayed Game, the logged actions); Mismatch otherwise."""
    logged = logged_actions(lines)
    try:
        replayed = read_log(lines)
    except LogError as e:
        raise Mismatch(f"the resumed log does not replay: {e}") from e
    if replayed.state() != state:
        raise Mismatch(f"resumed state {state} is not its log replayed {replayed.state()}")
    kept = min(len(logged), len(reported))
    if logged[:kept] != reported[:kept] or kept < len(reported) - 1:
        raise Mismatch(f"reported before the cut: {reported}\nlogged after it: {logged}")
    if len(logged) > len(reported) + 1:
        raise Mismatch(f"{len(logged) - len(reported)} actions logged that were never reported")
    return replayed, logged


def nest_as_the_game_says(nest):
    """After a cut that lost an action, the bowl the family leaves is not the resumed game's
    nest: the egg in flight lies on the table (a take lost), or every egg went back in at the
    nest's word after a last egg or an alarm that the cut then lost (finding 6: the resumed game
    has its round's eggs out, the bowl holds them all; an uncalibrated nest cannot weigh it, and
    asks for every egg back and Reveal at every resume). The family unplugs the nest, pours every
    egg in, takes the resumed game's round out again and plugs it in, so the nest holds what the
    game says (a nest under way then asks its question, answered after the checks); with
    nothing to change, nothing is touched. Returns {"back": eggs put back, "out": eggs taken out}."""
    world = nest.ctl.world()
    # a rolling egg counts as out from the instant it leaves: wait for anything still moving
    t = world["t_ms"]
    for e in world["truth"]:
        t = max(t, e["t_ms"])
    if t > world["t_ms"]:
        time.sleep((t - world["t_ms"]) / 1000 + 0.2)
        world = nest.ctl.world()
    have, want = world["nest"], nest.game.nest
    moved = {"back": sum(max(0, want[c] - have[c]) for c in NEST_FULL),
             "out": sum(max(0, have[c] - want[c]) for c in NEST_FULL)}
    if have == want:
        return moved
    # off long enough to pour every egg back (at most 1.9 s) and take the bag's out again (a
    # roll lasts at most 250 ms), then power on
    plan_ms = 2300 + 300 * sum(NEST_FULL[c] - want[c] for c in NEST_FULL)
    nest.ctl.power_cut(off_ms=plan_ms)
    back = nest.ctl.pour_back()
    at = back["until_ms"] - back["t_ms"] + 100
    for c in NEST_FULL:
        for _ in range(NEST_FULL[c] - want[c]):
            nest.ctl.drop(c, in_ms=at)
            at += 300
    ready = nest.after_boot(timeout=30 + plan_ms / 1000)
    nest.drain(0.3)
    if not ready["resumed"] or ready["state"] != nest.game.state():
        raise Mismatch(f"after the eggs were set right: {ready}, host {nest.game.state()}")
    return moved   # the caller checks the bowl against the game (cut_and_check)


def check_flash(flash_dir):
    """Every file the firmware keeps under /data on the board's flash folder, read back with the
    firmware's own readers (gulo.store, gulo.gamelog): a damaged one raises Mismatch, and so does a
    torn last line left in a log after the boot that should have dropped it. A `.tmp` is a write
    the cut interrupted (the firmware removes it at boot); `.tmp-vb` is the virtual board's own
    mirror copy in progress. Returns how many files were read."""
    data = Path(flash_dir) / "data"
    n = 0
    for path in sorted(data.rglob("*")) if data.exists() else []:
        if not path.is_file() or path.name.endswith((".tmp", ".tmp-vb")):
            continue
        if path.name.endswith(".bad"):
            raise Mismatch(f"{path}: a file the firmware set aside as damaged")
        try:
            if path.name == "game.log" or path.suffix == ".jsonl":
                lines, dropped = store.load_lines(str(path))
                if dropped:
                    raise Mismatch(f"{path}: {dropped} (after the boot that should have done so)")
                read_log(lines)
            else:
                store.load(str(path))
        except (store.CorruptFile, LogError) as e:
            raise Mismatch(f"{path}: {e}") from e
        n += 1
    return n


# ---- console fuzz ---------------------------------------------------------------------------------
# Commands that change the game (new, press) or the settings (set) are only sent malformed.
SAFE = ("status", "state", "sensors", "masses", "logs", "settings", "help")
REFUSED = ("tare", "calibrate", "egg")  # known commands the board refuses for now


def fuzz_line(rng, invalid_utf8=True):
    """One random console line (bytes, no CR/LF and no Ctrl-C inside, never empty). Garbage is
    raw bytes, out-of-sequence UTF-8 included, unless `invalid_utf8` is False (valid UTF-8 only:
    random code points, control characters included)."""
    kind = rng.randrange(12)
    if kind == 0 and invalid_utf8:    # garbage bytes
        data = bytes(rng.choice([b for b in range(256) if b not in (3, 10, 13)])
                     for _ in range(rng.randint(1, 80)))
    elif kind in (0, 9) and not invalid_utf8:  # garbage text
        data = "".join(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0x7FF),
                                       rng.randint(0x800, 0xD7FF), rng.randint(0x10000, 0x10FFFF)]))
                       for _ in range(rng.randint(1, 40))).encode()
    elif kind == 1:  # JSON of the wrong type
        data = json.dumps(rng.choice([[1, 2], 3, "status", None, True, 2.5, {"cmd": 7},
                                      {"cmd": ["status"]}, {"cmd": None}, {}])).encode()
    elif kind == 2:  # unknown commands
        data = json.dumps({"cmd": rng.choice(["fly", "STATUS", "", "new ", "reset", "exec", "\u00e9"]),
                           "id": rng.randint(0, 99)}).encode()
    elif kind == 3:  # over-long lines
        pad = "x" * rng.randint(500, 1500)
        data = json.dumps({"cmd": "status", "pad": pad}).encode()
    elif kind == 4:  # missing or bad fields in state-changing commands: must be refused
        data = json.dumps(rng.choice([
            {"cmd": "press"}, {"cmd": "press", "button": "purple"}, {"cmd": "press", "button": 1},
            {"cmd": "new", "players": 99}, {"cmd": "new", "players": 1}, {"cmd": "new", "variant": "slow"},
            {"cmd": "new", "players": "2"}, {"cmd": "new", "seed": -1}, {"cmd": "new", "players": True},
            {"cmd": "set", "key": "players"}, {"cmd": "set", "key": "colour", "value": 1},
            {"cmd": "set", "key": "volume", "value": 101}, {"cmd": "set", "key": "players", "value": 9},
            {"cmd": "set", "key": "variant", "value": None}, {"cmd": "new", "extra": 1},
            {"cmd": "leds"}, {"cmd": "buzz", "freq": 1}, {"cmd": "log"}, {"cmd": "log", "name": "../x"},
        ])).encode()
    elif kind == 5:  # valid commands that must be refused
        data = json.dumps(rng.choice([{"cmd": rng.choice(REFUSED)}, {"cmd": "calibrate", "grams": 100},
                                      {"cmd": "egg", "colour": "R"}, {"cmd": "log", "name": "9999.jsonl"},
                                      {"cmd": "set", "key": "players", "value": 2.5}])).encode()
    elif kind == 6:  # harmless valid commands
        data = json.dumps({"cmd": rng.choice(SAFE), "id": rng.choice([1, "x", 10**6])}).encode()
    elif kind == 7:  # bad ids
        data = json.dumps({"cmd": "status", "id": rng.choice([[1], {"a": 1}, True, 1.5])}).encode()
    elif kind == 8:  # truncated JSON
        text = json.dumps({"cmd": rng.choice(SAFE + ("new", "press")), "players": 3})
        data = text[:rng.randint(1, len(text) - 1)].encode()
    elif kind == 9:  # non-UTF-8 inside JSON strings
        data = b'{"cmd": "stat\xff\xfeus"}'
    elif kind == 10:  # LED and buzzer tests (no game state)
        data = json.dumps(rng.choice([{"cmd": "leds", "pattern": "red"}, {"cmd": "leds", "pattern": "game"},
                                      {"cmd": "buzz", "freq": 440, "ms": 5}])).encode()
    else:            # random printable noise that looks a bit like JSON
        alphabet = '{}[]":,0123456789abcdefcmdstatusnewpress \\ntruefalsenull'
        data = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))).encode()
    data = data.replace(b"\n", b" ").replace(b"\r", b" ").replace(b"\x03", b" ")
    return data or b"?"


def fuzz_console(nest, rng, count, window=16, invalid_utf8=True):
    """Send `count` random lines; each must get exactly one answer line in order, none may be a
    crash, and the game must be exactly as it was. Returns counts by answer."""
    before = nest.status()
    log_before = nest.fetch_log("current")
    n_actions = len(nest.actions)
    stats = {"sent": 0, "ok": 0, "refused": 0}
    answers = []
    sent = 0
    while sent < count or len(answers) < sent:
        while sent < count and sent - len(answers) < window:
            line = fuzz_line(rng, invalid_utf8)
            nest.port.write(line + b"\n")
            sent += 1
        ev = nest.wait(lambda ev: "re" in ev or ev.get("ev") in ("crash", "ready", "stopped"), 30)
        if "re" not in ev:
            raise Mismatch(f"the board said {ev} during the fuzz")
        answers.append(ev)
        stats["ok" if ev["ok"] else "refused"] += 1
        if not ev["ok"] and not isinstance(ev.get("error"), str):
            raise Mismatch(f"a refusal without a reason: {ev}")
    stats["sent"] = sent
    n_seen = len(nest.seen)
    nest.drain(0.5)
    extra = [ev for ev in nest.seen[n_seen:] if "re" in ev]
    if extra:
        raise Mismatch(f"more answers than lines: {extra}")
    after = nest.status()
    for key in ("state", "phase", "prompt", "fault"):
        if after[key] != before[key]:
            raise Mismatch(f"the fuzz changed {key}: {before[key]} -> {after[key]}")
    if nest.fetch_log("current") != log_before:
        raise Mismatch("the fuzz changed the game log")
    if len(nest.actions) != n_actions:
        raise Mismatch(f"actions reported during the fuzz: {nest.actions[n_actions:]}")
    return stats


# ---- sensor faults ------------------------------------------------------------------------------
def sensor_faults(nest, seed=3):
    """HX711 unplugged and replugged, a noisy cell (spikes, 50 Hz), a reed stuck open: each fault is
    shown, none is judged as an egg or an alarm, and play goes on afterwards. Returns what was seen."""
    ctl = nest.ctl
    seen = {}
    nest.new(2, "standard", seed)
    nest.pick("reveal")                       # an attempt is under way: the worst time for a fault
    n = len(nest.actions)
    ctl.fault("hx711_unplugged", True)
    nest.wait(lambda ev: ev.get("ev") == "fault" and ev.get("what") == "hx711", 10)
    ctl.fault("hx711_unplugged", False)
    nest.wait(lambda ev: ev.get("ev") == "fault_cleared", 10)
    seen["hx711"] = "fault shown and cleared"
    ctl.fault("noisy", True)
    nest.drain(3.0)
    ctl.fault("noisy", False)
    nest.drain(1.5)
    if len(nest.actions) != n:
        raise Mismatch(f"a verdict during the sensor faults: {nest.actions[n:]}")
    st = nest.status()
    if st["state"]["demand"] != nest.game.demand or st["fault"] is not None:
        raise Mismatch(f"after the faults: {st}")
    seen["noisy"] = "3 s of noise, no verdict"
    nest.take(nest.game.demand, "roll")       # recovery: the attempt is judged normally
    seen["after"] = nest.outcomes[-1]["event"]
    nest.wait_phase("pick")
    try:
        with nest.prompts_held():
            ctl.fault("reed_stuck", 1)        # reads "pole out" whatever the pole does
            nest.wait(lambda ev: nest.prompt == POLE_BACK, 10)
            ctl.fault("reed_stuck", None)
            nest.wait_phase("pick")
    finally:
        ctl.fault("reed_stuck", None)
    if len(nest.actions) != n + 1:
        raise Mismatch(f"a verdict from the stuck reed: {nest.actions[n + 1:]}")
    seen["reed_stuck"] = "asked for the pole, no penalty, play resumed"
    nest.check_log("current")
    return seen


# ---- deploys cut at random points ---------------------------------------------------------------
DEPLOY_STEPS = ("manifest", "staged", "journal", "committed")


def firmware_trees(folder):
    """Two deployable copies of firmware/ that differ in every file (a marker constant "A" or "B"
    appended), so which one a board holds, or a mix of both, shows in the deployed hashes.
    Returns {"A": path, "B": path}."""
    trees = {}
    for mark in ("A", "B"):
        tree = Path(folder) / f"fw-{mark}"
        (tree / "gulo").mkdir(parents=True, exist_ok=True)
        for src in [FIRMWARE / "main.py", *sorted((FIRMWARE / "gulo").glob("*.py"))]:
            rel = src.relative_to(FIRMWARE)
            (tree / rel).write_text(src.read_text() + f"\n_DRILL_TREE = {mark!r}\n")
        trees[mark] = tree
    return trees


def wait_ready(board, timeout=30.0):
    """Press EN and wait for the app's ready line; returns it."""
    with serial.Serial(board.port, 115200, timeout=0.05) as port:
        board.control.reset()
        return Console(port).wait(lambda ev: ev.get("ev") in ("ready", "crash"), timeout)[-1]


def board_tree(board, trees):
    """Which tree the board's flash holds: "A" or "B" (every deployed file hashes as that tree's,
    nothing else left over), else Mismatch naming the files that differ from each."""
    from nest.boardlink import BoardLink
    from nest.deploy import deploy
    differ = {}
    with BoardLink.open(board.port) as link:
        for mark, tree in trees.items():
            r = deploy(board.port, tree, dry_run=True, link=link)
            if not r.send and not r.delete:
                return mark
            differ[mark] = r.send + r.delete
    raise Mismatch(f"the board holds neither tree whole (a mix?): {differ}")


def deploy_cut_and_check(board, trees, rng, target):
    """Deploy tree `target` and cut it at a random point: a random byte offset in the transfer
    (the port closed there, or the power cut a few ms later, in the middle of a chunk) or at a
    random `on_step` point (port closed or power cut). Then the board must boot to the app's ready
    line holding the old tree or the new one whole, and the next deploy of `target` must complete
    (ready again, the board holding `target`). Returns what was seen."""
    from nest.boardlink import BoardLink
    from nest.deploy import deploy
    from nest.errors import NestError

    class Cut(Exception):
        pass

    how = rng.choice(("close", "power"))
    where = rng.choice(("bytes", "step"))
    step = rng.choice(DEPLOY_STEPS)
    link = BoardLink.open(board.port)
    state = {"fired": False, "offset": None}

    def cut():
        state["fired"] = True
        if how == "close":
            link.serial.close()
        else:
            board.control.power_cut(off_ms=rng.choice((0, 50, 200)), in_ms=rng.randint(0, 20))
        raise Cut()

    def progress(done, total):
        # any byte offset 1..total, the last included (deploy reports done == total once the
        # final chunk is through: a cut there lands before the journal)
        if state["offset"] is None:
            state["offset"] = rng.randint(1, max(1, total))
            state["total"] = total
        if not state["fired"] and done >= state["offset"]:
            if how == "close":
                cut()
            # the power dies a few ms on, inside the next chunk; the USB serial of a board that
            # loses its power goes with it, so the host sees the port fail soon after
            state["fired"] = True
            in_ms = rng.randint(0, 20)
            board.control.power_cut(off_ms=rng.choice((0, 50, 200)), in_ms=in_ms)
            threading.Timer((in_ms + 150) / 1000, link.serial.close).start()

    def on_step(name):
        if where == "step" and name == step and not state["fired"]:
            cut()

    try:
        deploy(board.port, trees[target], link=link, progress=progress if where == "bytes" else None,
               on_step=on_step)
        completed = True
    except (Cut, NestError, OSError, serial.SerialException, TypeError):
        completed = False   # TypeError: pyserial reading a port closed under it by the timer
    finally:
        with contextlib.suppress(Exception):
            link.close()
    time.sleep(0.5)                   # the power back on (at most 200 ms off)
    ready = wait_ready(board)
    if ready.get("ev") != "ready":
        raise Mismatch(f"after a deploy cut ({how} at {where} {step}): {ready}")
    held = board_tree(board, trees)
    deploy(board.port, trees[target])
    ready2 = wait_ready(board)
    if ready2.get("ev") != "ready" or board_tree(board, trees) != target:
        raise Mismatch(f"the deploy after the cut did not complete: {ready2}")
    return {"how": how, "where": f"{where}:{step if where == 'step' else state['offset']}",
            "fired": state["fired"], "completed_anyway": completed, "after_cut": held, "target": target,
            "at_end": state["offset"] is not None and state["offset"] == state.get("total")}


@contextlib.contextmanager
def deploy_board(folder):
    """A virtual board with an empty flash (unthrottled) and the two trees; tree A deployed."""
    from nest.deploy import deploy
    trees = firmware_trees(folder)
    board = VirtualBoard(flash_dir=Path(folder) / "flash", baud=0, timing="host",
                         log_path=Path(folder) / "vboard.log").start()
    try:
        deploy(board.port, trees["A"])
        if wait_ready(board).get("ev") != "ready" or board_tree(board, trees) != "A":
            raise Mismatch("the first deploy did not boot tree A")
        yield board, trees
    finally:
        board.stop()
