"""The board harness reads the board's notes by kind (gulo.vocab.NOTES: a note's kind is the first
of them it has as a key): a refusal names the phase it came in, and must not pass for a phase note.
Before this, a refused button press during a pick reset the harness's phase to ("pick", None, None)
(its turn and demand gone) and dropped a pending prompt (seen by the uncalibrated-resume work,
2026-11-23). No board: the harness's note handling alone."""

from gulo.rules import Game
from testkit.boardkit import POUR_CONFIRM, NestUnderTest


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
