# The device's turn flow: what the nest does between the sensors, the buttons and the turn engine.
#
# Pure logic, like the engine and the weigher it joins: the board feeds it confirmed reed states,
# load-cell samples, button presses and the time; it applies game actions to the engine and says
# what happened as notes (dicts) that the board turns into log lines, console lines, sounds and
# LED animations. The host tests feed it the nest model (nest.world) the same way.
#
# Phases:
#   SETTLE   waiting for the nest to be at rest with the eggs it should hold and the pole seated
#            (after an alarm the eggs go back first; after a success the egg stays in the bag)
#   PICK     the player to act reveals or chooses with the buttons
#   ATTEMPT  a colour is demanded: the nest is watched
#   CONFIRM  one egg came out; until the attempt ends (docs/attempt-end.md: AFTER_HAND_MS after
#            the hand left, and never while the nest still moves) a second egg or the pole still
#            turns it into an alarm, and the egg put back makes it nothing (ATTEMPT again); then
#            the demanded colour is a success, another an alarm (the engine's "wrong egg")
#   WON      the game is over
#   MENU     players / variant / new game (the menu button)
#   CALIBRATE  a calibration is open (pause_for_calibration / end_calibration): weights on the
#            bowl are test weights and eggs going around, never egg events; the pole and the
#            buttons change nothing. Leaving it relearns the nest and goes on from SETTLE (or WON).
#   (the players' appeal, docs/rules.md "The players have the last word": undo() takes back the
#   last verdict from SETTLE, PICK or ATTEMPT and goes on from SETTLE, where the existing prompts
#   name the egg to put back in or take out again; call() sounds an alarm in ATTEMPT or CONFIRM, as
#   Menu then Blue does on the device: the menu opens in CONFIRM too and holds the verdict; or it
#   replaces a success judged less than CALL_AFTER_MS ago)
#
# Only this class sets its phase: the menu and the calibration's pause are its own methods.

from gulo import nestcheck
from gulo.clock import diff, later
from gulo.rules import EGG_COLOURS, NEST_FULL, RuleError
from gulo.vocab import BUTTONS
from gulo.weigher import Weigher, centigrams

SETTLE = "settle"
PICK = "pick"
ATTEMPT = "attempt"
CONFIRM = "confirm"
WON = "won"
MENU = "menu"
CALIBRATE = "calibrate"
# An attempt under way (a tuple built once: `in (ATTEMPT, CONFIRM)` builds one on every call).
ATTEMPTING = (ATTEMPT, CONFIRM)

# The end of an attempt follows the physical event, not the verdict (docs/attempt-end.md): what
# leaves the nest within AFTER_HAND_MS of the hand leaving it (an egg rolling out 0.5 s later, a
# shaken pole falling 0.8 s later) fell during the turn. The hand left when the calm that decided
# the egg began (Weigher.t_calm). If the nest is moving at that moment (an egg on its way over the
# rim), the attempt waits for it to come to rest, at most MOVING_MAX_MS more.
AFTER_HAND_MS = 1000
MOVING_MAX_MS = 3000
# The players may call the EGG ALARM the nest missed this long after it judged a take a success
# (the call replaces that verdict): a parent sees the egg knock the pole as the nest chimes, and
# reaches for the button after it. Not a measured figure: a few seconds, long enough for a
# reaching hand, short enough that the next player has not started (a pick ends it anyway).
CALL_AFTER_MS = 5000
_POLL_MS = 20     # while the nest moves past the end: look again this often
EGGS_BACK = "put the eggs back into the nest"   # the prompt; its note names the eggs (back, out)


class TurnFlow:
    def __init__(self, game, weigher=None, tare_pole=None, pole_seated=True):
        self.game = game
        self.weigher = weigher or Weigher()
        self.phase = WON if game.winner is not None else SETTLE
        self.pole_seated = bool(pole_seated)  # the reed at boot: a pole left on the table is asked for
        self.weigher.set_pole(self.pole_seated)
        self.tare_pole = tare_pole  # the pole at the calibration's tare (None: no tare to trust)
        self.checking = None        # the game whose nest is still to be weighed against the bowl
        self.checked_g = None       # the settled level that check last weighed
        self.word = None            # no tare, a game under way: the family's word on a full nest,
        #                             False while asked (its prompt), True once given (Reveal)
        self.pending = None         # the colour that came out, while CONFIRM runs
        self.out_said = 0           # the weigher's eggs out when it said that one
        self.told = None            # the demand the weigher was last given (ATTEMPT only)
        self.confirm_until = 0      # when the attempt may end (moved on while the nest moves)
        self.confirm_last = 0       # when it ends whatever the nest does
        self.prompt = None          # what the device asks for while it waits (SETTLE, pole out)
        self.need = None            # with an eggs prompt: {"back": {c: n}} / {"out": {c: n}}, or None
        self.need_for = None        # (grams off, the game's nest, what _need found) last worked out
        self.last = None            # the last engine outcome, with "t_ms", for the animations
        self.menu = {}              # {"players": n, "variant": v, "back": phase} while in MENU
        self.back = SETTLE          # where end_calibration() goes after CALIBRATE
        self.relearn()

    def relearn(self, keep_noise=True):
        """Let the weigher learn the nest anew (at boot, after a calibration) as the game says it
        holds it (eggs in the bag after a power cut are rightly out); once it has, the bowl is
        weighed against the game (_check_nest), which asks for whatever differs. Without a tare,
        a game under way (a tile face up) needs the family's word on a full nest first. The
        cell's noise is kept unless `keep_noise` is False (a calibration changed the scale)."""
        self.weigher.reset(self.bag_grams(), keep_noise)
        self.checking = self.game
        self.checked_g = None
        g = self.game
        self.word = False if self.tare_pole is None and g.revealed and g.winner is None else None

    def _check_nest(self, t_ms):
        """After a relearn, the nest at rest: do the eggs in the bowl weigh what the game's nest
        does? The calibration's tare makes the weight absolute (the pole's mass added if it is
        seated now and was not at the tare, or taken away the other way round). The fewest eggs
        that explain a difference are asked for (gulo.nestcheck); a weight no single change
        explains asks for every egg back and the game's eggs out. Weighed again at every new
        rest until the bowl holds the game's nest. Without a tare the absolute weight means
        nothing (docs/play-page.md "Resuming on an uncalibrated nest"): a game under way asks for
        every egg back and Reveal; the full nest the weigher then learns is the
        reference instead, and the game's eggs are asked out by name, each one weighed. A game
        not under way yet (its nest must be full anyway) is taken as it is, and a note says so."""
        w = self.weigher
        if self.word is False:
            # (the prompt's text only here: a module constant cost 32 B of heap after boot,
            # lab/heap_report.py; the host's copy is testkit.boardkit.POUR_CONFIRM)
            return self._ask("pour every egg back, then press Reveal", t_ms, {"pour": True})
        if self.tare_pole is None and self.word is None:
            self.checking = None
            note = {"unchecked": "no calibration: the nest is taken as the game's"}
            return [note] + self._maybe_ready(t_ms)
        level = w.level_g()
        tol = w.tolerance_g()
        if self.checked_g is not None and abs(level - self.checked_g) < tol / 2:
            return []  # weighed already: nothing moved since
        self.checked_g = level
        nest = self.game.nest
        if self.word:
            # grams the bowl holds beyond the game's nest, from the full nest learned at Reveal
            off = self.bag_grams() - w.deficit_g()
        else:
            pole = int(self.pole_seated) - int(bool(self.tare_pole))
            off = level - pole * w.pole_g - nestcheck.nest_grams(nest, w.masses)
        d = nestcheck.differ(off, nest, NEST_FULL, w.masses, tol)
        if d != {}:
            return self._ask(EGGS_BACK, t_ms, nestcheck.asked(d, nest, NEST_FULL))
        self.checking = None
        if abs(w.deficit_g() - self.bag_grams()) >= tol:
            self.relearn()  # learned at boot from another nest: learn the right one
            self.checking = None
            return []
        return self._maybe_ready(t_ms)

    # ---- what the nest should hold ---------------------------------------------------------------

    def bag_grams(self):
        """Mass of the eggs taken this round (in the bag, not in the nest)."""
        masses = self.weigher.masses
        return sum([(NEST_FULL[c] - self.game.nest[c]) * masses[c] for c in EGG_COLOURS])

    def nest_ready(self):
        """At rest, holding the eggs it should (full, or full but for the bag)."""
        w = self.weigher
        if not (w.ready and w.at_rest):
            return False
        # The weigher's own class tolerance: a missing egg is never "ready".
        return abs(w.deficit_g() - self.bag_grams()) < w.tolerance_g()

    # ---- inputs --------------------------------------------------------------------------------------

    def pole(self, seated, t_ms):
        """The reed switch's confirmed (debounced) state changed."""
        seated = bool(seated)
        self.pole_seated = seated
        self.weigher.set_pole(seated)
        if seated:
            return self._maybe_ready(t_ms)
        if self.phase in ATTEMPTING:
            return self._act({"do": "alarm", "cause": "pole"}, t_ms)
        if self.phase == PICK:
            # Between turns the pole costs nothing: ask for it and wait.
            self.phase = SETTLE
        if self.phase == SETTLE:
            return self._ask("put the pole back", t_ms)
        return []

    def demand_told(self):
        """The colour the weigher is told is demanded with the next sample: the game's demand while
        an attempt is open, else None."""
        return self.game.demand if self.phase == ATTEMPT else None

    def sample(self, t_ms, grams):
        """One load-cell sample in grams (the tests, the host's models); returns the notes it led
        to. The board's sampler calls sample_cg."""
        return self.sample_cg(t_ms, centigrams(grams))

    def sample_cg(self, t_ms, cg):
        """One sample in centigrams (the board's path): returns the notes it led to, the empty
        tuple when nothing happened and no phase waits on time, so a nest at rest allocates
        nothing here (firmware/tests/test_turnflow.py)."""
        demand = self.demand_told()
        if demand != self.told:
            # the weigher waits out a still hold only while a colour is demanded (docs/weigher.md)
            self.told = demand
            self.weigher.set_demand(demand)
        ev = self.weigher.feed_cg(t_ms, cg)
        if ev is None and self.phase != CONFIRM and self.phase != SETTLE:
            return ()   # tick() acts only in CONFIRM and SETTLE
        notes = []
        if ev is not None:
            notes.append({"nest": ev})
            notes += self._egg_event(ev, t_ms)
        return notes + self.tick(t_ms)

    def due_in(self, t_ms):
        """ms until tick() may end the attempt (0: now); the board's ticker sleeps that long."""
        left = diff(self.confirm_until, t_ms)
        return left if left > 0 else 0

    def put_back(self):
        """In CONFIRM: the egg said out came back, alone (egg_back)."""
        return egg_back(self.weigher, self.pending, self.out_said)

    def tick(self, t_ms):
        """Time passes: ends the attempt (docs/attempt-end.md), notices a nest that is ready."""
        if self.phase == CONFIRM and self.put_back():
            # the egg came back before the attempt ended (lifted clear, then put back): nothing
            # was taken, the attempt goes on (docs/rules.md)
            self.phase = ATTEMPT
            self.pending = None
            return [{"phase": ATTEMPT, "demand": self.game.demand}]
        if self.phase == CONFIRM and self.due_in(t_ms) == 0:
            if not self.weigher.at_rest and diff(t_ms, self.confirm_last) < 0:
                self.confirm_until = later(t_ms, _POLL_MS)   # something is still moving: wait for it
                return []
            return self._act({"do": "take", "egg": self.pending}, t_ms)
        return self._maybe_ready(t_ms)

    def button(self, name, t_ms):
        if name not in BUTTONS:
            return [{"error": "unknown button %r" % (name,)}]
        if name == "reveal" and self.word is False and self.phase == SETTLE and self.pole_seated:
            # The family's word: every egg is in the bowl. The weigher learns it at its next rest
            # as the full nest; the check (_check_nest) then asks the game's eggs out by name.
            self.word = True
            self.weigher.reset(0)
            return []
        if name == "B" and self.phase == MENU and (self.menu["back"] in ATTEMPTING
                                                   or self._late_call(t_ms)):
            # Menu, then Blue: the players call the EGG ALARM the nest missed (the menu (_menu_press)
            # offers G, Y, R and Reveal; Blue is free). The menu closes, the attempt is judged.
            self.phase = self.menu["back"]
            self.menu = {}
            return [{"menu": "closed"}] + self.call(t_ms)
        if name == "menu" or self.phase == MENU:
            return self._menu_press(name)
        if self.phase != PICK:
            return [{"refused": name, "phase": self.phase, "why": self._why_not()}]
        if name == "reveal":
            return self._act({"do": "reveal"}, t_ms)
        return self._act({"do": "choose", "colour": name}, t_ms)

    # ---- the menu (players and variant for a new game) --------------------------------------------

    def _menu_press(self, name):
        """A button while the menu is open, or the menu button itself: the notes it leads to."""
        if name == "menu":
            return self._menu_button()
        # G / Y: fewer / more players; R: the other variant; reveal: a new game with these.
        m = self.menu
        if name == "G":
            m["players"] = max(2, m["players"] - 1)
        elif name == "Y":
            m["players"] = min(6, m["players"] + 1)
        elif name == "R":
            m["variant"] = "fast" if m["variant"] == "standard" else "standard"
        elif name == "reveal":
            return [{"new_game": _menu_view(m)}]
        return [{"menu": _menu_view(m)}]

    def _menu_button(self):
        # Open in CONFIRM too: the verdict waits while the menu is open, so the players can call
        # the alarm the nest missed (Menu, then Blue: button()) before the egg is judged a
        # success, as call() does from the console; Menu again closes it and the verdict comes.
        if self.phase == MENU:
            self.phase = self.menu["back"]
            self.menu = {}
            return [{"menu": "closed"}]
        if self.phase == CALIBRATE:
            return [{"refused": "menu", "why": "calibrating"}]
        self.menu = {"players": self.game.players, "variant": self.game.variant, "back": self.phase}
        self.phase = MENU
        return [{"menu": _menu_view(self.menu)}]

    # ---- a calibration (gulo.calibration, through the console) -----------------------------------

    def pause_for_calibration(self):
        """Enter CALIBRATE: verdicts pause. False (nothing changes) while an egg is judged."""
        if self.phase == CONFIRM:
            return False
        if self.phase != CALIBRATE:
            self.menu = {}
            self.back = WON if self.phase == WON else SETTLE
            self.phase = CALIBRATE
            self.prompt = None
            self.need = None
        return True

    def use_tare(self, tare_pole):
        """A calibration's tare saved: whether the pole was in the bowl then (None: no tare to
        trust). The next relearn weighs the nest against the game with it (_check_nest)."""
        self.tare_pole = tare_pole

    def end_calibration(self, t_ms, masses=None):
        """Leave CALIBRATE (a calibration done, with its egg `masses`, or cancelled): the eggs
        went around, so the weigher learns the nest anew and the game goes on from SETTLE (or WON)."""
        if self.phase != CALIBRATE:
            return []
        if masses is not None:
            self.weigher.set_masses(masses)
        self.phase = self.back
        self.relearn(keep_noise=masses is None)  # a calibration done: grams on a new scale
        return self.tick(t_ms)

    # ---- the nest --------------------------------------------------------------------------------------

    def _egg_event(self, ev, t_ms):
        if self.phase == ATTEMPT:
            if ev.get("out") == 1:
                # judged when the attempt ends, the demanded colour or not (the engine makes a
                # wrong egg an alarm): an egg put back before then was not taken
                colour = ev["colour"]
                self.phase = CONFIRM
                self.pending = colour
                self.out_said = self.weigher.out
                # the attempt ends AFTER_HAND_MS after the hand left (the calm's start); the game
                # acts once the weigher has seen the nest at that moment (an egg put back then)
                left = AFTER_HAND_MS + self.weigher.lag_ms() - diff(t_ms, self.weigher.t_calm)
                self.confirm_until = later(t_ms, left) if left > 0 else t_ms
                self.confirm_last = later(self.confirm_until, MOVING_MAX_MS)
                return [{"phase": CONFIRM, "egg": colour}]
            if ev.get("out", 0) >= 2:
                return self._act({"do": "alarm", "cause": "egg"}, t_ms)
        elif self.phase == CONFIRM and ev.get("out"):
            return self._act({"do": "alarm", "cause": "egg"}, t_ms)
        elif self.phase == PICK and ev.get("out"):
            # An egg taken before a colour was picked: no penalty, but nothing starts until the
            # nest holds what it should again.
            self.phase = SETTLE
            colour = ev.get("colour")
            return self._ask(EGGS_BACK, t_ms, {"back": {colour: 1}} if colour else self._need())
        return []

    def _maybe_ready(self, t_ms):
        if self.phase != SETTLE:
            return []
        if not self.pole_seated:
            return self._ask("put the pole back", t_ms)
        w = self.weigher
        if not (w.ready and w.at_rest):
            return []  # a hand or a ring-down: wait quietly
        if self.checking is self.game:
            return self._check_nest(t_ms)
        if not self.nest_ready():
            # At rest but not holding what it should: after an alarm or a last egg every egg
            # goes back; otherwise an egg is missing that should not be (or something lies in it).
            return self._ask(EGGS_BACK, t_ms, self._need())
        self.prompt = None
        self.need = None
        self.phase = PICK if self.game.demand is None else ATTEMPT
        return [{"phase": self.phase, "turn": self.game.turn, "demand": self.game.demand}]

    def _ask(self, what, t_ms, need=None):
        # Asked again only when it changes: what, or which eggs.
        if self.prompt == what and self.need == need:
            return []
        self.prompt = what
        self.need = need
        note = {"prompt": what}
        if need:
            note.update(need)
        return [note]

    def _need(self):
        """What the prompt names, as nestcheck.asked gives it: the eggs the bowl lacks ({"back"})
        or holds too many ({"out"}: eggs of this round put back), from the weight it is off by.
        Eggs can be missing only of those the game has in the nest, and too many only of those it
        has out this round (the players' bags). A weight that more than one change explains
        (nestcheck.differ) names none: {"pour": True, "out": the round's eggs}, every egg back
        and the round's eggs out again, never eggs that may not be on the table."""
        w = self.weigher
        off = self.bag_grams() - w.deficit_g()   # grams the bowl holds beyond the game's nest
        nest = self.game.nest
        tol = w.tolerance_g()
        # Worked out again only when the bowl or the game changed: the flow asks at every sample
        # while it waits, and the search takes 5-170 ms on the board (docs/play-page.md).
        last = self.need_for
        if last is not None and abs(last[0] - off) < tol / 2 and last[1] == nest:
            return last[2]
        need = nestcheck.asked(nestcheck.differ(off, nest, NEST_FULL, w.masses, tol), nest, NEST_FULL)
        self.need_for = (off, dict(nest), need or None)
        return need or None

    def _why_not(self):
        if self.phase == CALIBRATE:
            return "calibrating"
        if self.phase == SETTLE:
            return self.prompt or "waiting for the nest"
        if self.phase in ATTEMPTING:
            return "take a %s egg" % self.game.demand
        if self.phase == WON:
            return "the game is over: menu for a new one"
        return ""

    # ---- the engine ------------------------------------------------------------------------------------

    def _act(self, action, t_ms):
        try:
            outcome = self.game.apply(action)
        except RuleError as e:
            return [{"refused": action, "why": str(e)}]
        outcome["t_ms"] = t_ms
        self.last = outcome
        self.pending = None
        notes = [{"action": action, "outcome": outcome}]
        if self.game.winner is not None:
            self.phase = WON
        elif self.game.demand is not None:
            self.phase = ATTEMPT
        else:
            # After an egg or an alarm the nest must settle (eggs back after an alarm) first.
            self.phase = SETTLE
            self.prompt = None
            self.need = None
            notes += self._maybe_ready(t_ms)
        return notes

    # ---- the players' appeal (docs/rules.md, "The players have the last word") ----------------

    def appeal(self, t_ms):
        """What the players may overrule now (the play page's buttons; undo and call refuse the
        rest with the reason): {"undo": bool, "call": bool}."""
        return {"undo": self.phase in (SETTLE, PICK, ATTEMPT) and self.game.can_undo(),
                "call": self.phase in ATTEMPTING or self._late_call(t_ms)}

    def _late_call(self, t_ms):
        """The last verdict was a success, judged less than CALL_AFTER_MS ago, and nothing was
        picked since (a pick is the engine's last outcome then): a call replaces it."""
        last = self.last
        phase = self.menu["back"] if self.phase == MENU else self.phase
        return (phase in (SETTLE, PICK) and last is not None and last["event"] == "success"
                and last.get("winner") is None and self.game.can_undo()
                and 0 <= diff(t_ms, last["t_ms"]) < CALL_AFTER_MS)  # a verdict of a boot before: none

    def undo(self, t_ms):
        """Take back the last verdict (and the picks after it): the note {"undo": n, "outcome"}
        tells the board to drop the last n log lines. Then the nest settles to the game as it
        was: an undone take wants its egg back in, an undone alarm or last egg wants the eggs of
        the round out again (the prompts of SETTLE say which, when the weight names them)."""
        why = None
        if self.phase == CONFIRM:
            why = "an egg is being judged: undo once the verdict is in"
        elif self.phase == WON:
            why = "the game is over (and archived): start a new one"
        elif self.phase in (MENU, CALIBRATE):
            why = "close the %s first" % ("menu" if self.phase == MENU else "calibration")
        if why is None:
            try:
                outcome = self.game.undo()
            except RuleError as e:
                why = str(e)
        if why is not None:
            return [{"refused": "undo", "phase": self.phase, "why": why}]
        outcome["t_ms"] = t_ms
        self.last = outcome
        self.pending = None
        self.phase = SETTLE
        self.prompt = None
        self.need = None
        return [{"undo": outcome["undone"], "outcome": outcome}] + self._maybe_ready(t_ms)

    def menu_held(self, t_ms):
        """Menu held down for LONG_PRESS_MS (gulo.debounce.Hold): its press opened (or closed) the
        menu; the hold closes it and undoes the last verdict."""
        notes = []
        if self.phase == MENU:
            self.phase = self.menu["back"]
            self.menu = {}
            notes.append({"menu": "closed"})
        return notes + self.undo(t_ms)

    def call(self, t_ms):
        """An alarm the nest missed, called by the players: judged like any EGG ALARM. Called
        within CALL_AFTER_MS of a success, it replaces that success: the note {"undo": 1} drops
        its log line (its outcome says "replaced"), and the alarm is judged on the attempt."""
        if self._late_call(t_ms):
            self.phase = self.menu.get("back", self.phase) if self.phase == MENU else self.phase
            self.menu = {}
            outcome = self.game.undo()
            outcome["t_ms"] = t_ms
            outcome["replaced"] = True
            return [{"undo": outcome["undone"], "outcome": outcome}] + \
                self._act({"do": "alarm", "cause": "called"}, t_ms)
        if self.phase not in ATTEMPTING:
            why = "no attempt is under way: undo the last verdict first" if self.game.can_undo() \
                else "no attempt is under way"
            return [{"refused": "call", "phase": self.phase, "why": why}]
        return self._act({"do": "alarm", "cause": "called"}, t_ms)

    def new_game(self, game, t_ms):
        """Start `game` (built by the board with a fresh seed): the nest must be full first."""
        self.game = game
        self.menu = {}
        self.last = None
        self.pending = None
        self.prompt = None
        self.need = None
        self.phase = SETTLE
        if self.word is False:
            self.checking = game  # the full nest is not known yet: still the family's word first
        return [{"started": {"players": game.players, "variant": game.variant}}] + self._maybe_ready(t_ms)


def egg_back(weigher, colour, out_said):
    """The egg of `colour` the weigher said out, when it counted `out_said` eggs out, came back
    alone: it counts one fewer out and the weight that came in is that egg's (not a pour-back of
    the round's eggs). The flow's CONFIRM asks it; so does the host's replay (nest.weigh)."""
    return (weigher.out < out_said
            and abs(weigher.last_change_g() + weigher.masses[colour]) < weigher.tolerance_g())


def _menu_view(m):
    return {"players": m["players"], "variant": m["variant"]}
