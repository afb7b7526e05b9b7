"""The board harness reads the board's notes by kind (gulo.vocab.NOTES: a note's kind is the first
of them it has as a key): a refusal names the phase it came in, and must not pass for a phase note.
Before this, a refused button press during a pick reset the harness's phase to ("pick", None, None)
(its turn and demand gone) and dropped a pending prompt (seen by the uncalibrated-resume work,
2026-11-23). No board: the harness's note handling alone."""

from testkit.boardkit import NestUnderTest


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
