"""The board harness reads the board's notes by kind (gulo.vocab.NOTES: a note's kind is the first
of them it has as a key): a refusal names the phase it came in, and must not pass for a phase note.
Before this, a refused button press during a pick reset the harness's phase to ("pick", None, None)
(its turn and demand gone) and dropped a pending prompt (seen by the uncalibrated-resume work,
2026-11-23). No board: the harness's note handling alone."""

from gulo.rules import Game
from testkit.boardkit import EGGS_BACK, POUR_CONFIRM, NestUnderTest


def harness():
    return NestUnderTest(None, auto=False)   # no board: only the note handling


def test_a_refusal_is_not_a_phase_note():
    nut = harness()
    nut.handle({"ev": "note", "note": {"phase": "pick", "turn": 2, "demand": "R"}})
    assert nut.phase == ("pick", 2, "R")
    nut.handle({"ev": "note", "note": {"refused": "reveal", "phase": "pick", "why": "take an egg"}})
    assert nut.phase == ("pick", 2, "R") and nut.prompt is None


def test_a_refusal_does_not_drop_a_pending_prompt():
    nut = harness()
    nut.handle({"ev": "note", "note": {"prompt": "pour every egg back, then press Reveal", "pour": True}})
    nut.handle({"ev": "note", "note": {"refused": "menu", "phase": "attempt", "why": "calibrating"}})
    assert nut.prompt == "pour every egg back, then press Reveal" and nut.phase is None


def test_phase_and_prompt_notes_still_set_them():
    nut = harness()
    nut.handle({"ev": "note", "note": {"phase": "attempt", "turn": 1, "demand": "G"}})
    assert nut.phase == ("attempt", 1, "G")
    nut.handle({"ev": "note", "note": {"prompt": "put the eggs back into the nest"}})
    assert nut.prompt == "put the eggs back into the nest" and nut.phase is None


class ScriptedConsole:
    """The board's lines, as the console would hand them to a wait (no board)."""

    def __init__(self, lines):
        self.lines = list(lines)

    def wait(self, pred, timeout):
        while self.lines:
            if pred(self.lines.pop(0)):
                return
        raise AssertionError("not seen")


class ScriptedNest(NestUnderTest):
    """The harness reading scripted lines, its answers to prompts recorded, not acted."""

    def __init__(self, lines):
        super().__init__(None, auto=False)
        self.console = ScriptedConsole(lines)
        self.answered = []

    def remedy(self, prompt):
        self.answered.append(prompt)


def test_a_first_word_that_comes_while_it_is_awaited_is_answered_once():
    # Answered twice, a resumed uncalibrated nest's pour prompt poured again while the nest learned
    # the full nest at Reveal: the second pour's hand was learned with it, an egg too heavy for good.
    nut = ScriptedNest([{"ev": "note", "note": {"prompt": POUR_CONFIRM, "pour": True}}])
    nut.follow(Game.new(2, "standard", 1), [])
    nut.answer_first_word()
    assert nut.answered == [POUR_CONFIRM]
    assert nut.auto


class WorldScript:
    """A control link whose world is fixed, recording what the harness does to it (no board)."""

    def __init__(self, world):
        self._world = world
        self.done = []

    def world(self):
        return self._world

    def drop(self, colour, in_ms=0):
        self.done.append(("drop", colour, in_ms))

    def pour_back(self, eggs=None):
        self.done.append(("pour", eggs))
        return {"t_ms": self._world["t_ms"], "until_ms": self._world["t_ms"] + 1000}


class NestOnAWorld(NestUnderTest):
    def __init__(self, world):
        super().__init__(None, auto=False)
        self.ctl = WorldScript(world)


def test_an_egg_asked_out_is_taken_once_the_pour_under_way_has_left():
    # A success took an egg of colour c; the bowl has all of c once a pour still under way (until
    # t 2000) lands, so one must come out again. Taken out under the pouring hand, the egg was
    # weighed with the hand and the nest's level was off for good (a CI flake of test_e2e_overrule).
    game = Game.new(2, "standard", 1)
    game.apply({"do": "reveal"})
    c = game.demand
    game.apply({"do": "take", "egg": c})
    nut = NestOnAWorld({"t_ms": 1000, "pole_seated": True, "nest": dict(game.nest),
                        "truth": [{"what": "back", "t_in": 500, "t_ms": 2000, "eggs": {c: 1}}]})
    nut.follow(game, [])
    nut.remedy(EGGS_BACK)
    assert nut.ctl.done == [("drop", c, 1400)]
