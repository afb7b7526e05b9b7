# The buzzer's tunes.

from gulo.sounds import ALARM, UNDO, Tune, for_note


def test_a_tune_plays_its_steps_then_stops():
    t = Tune()
    t.play("success", 1000)
    assert t.freq_at(999) == 0
    assert t.freq_at(1000) == 1319 and t.freq_at(1069) == 1319
    assert t.freq_at(1070) == 1760
    assert t.freq_at(1190) == 0 and t.name is None


def test_the_alarm_is_a_siren_over_a_second_long():
    assert sum([ms for _, ms in ALARM]) >= 1000
    assert len(set([f for f, _ in ALARM if f])) == 2


def test_notes_pick_their_tunes():
    assert for_note({"outcome": {"event": "alarm", "cause": "pole"}}) == "alarm"
    assert for_note({"outcome": {"event": "success", "last_egg": False}}) == "success"
    assert for_note({"outcome": {"event": "success", "last_egg": True}}) == "last_egg"
    assert for_note({"outcome": {"event": "success", "last_egg": False, "winner": 1}}) == "win"
    assert for_note({"outcome": {"event": "junior", "winner": 0}}) == "win"
    assert for_note({"refused": "G"}) == "nope"
    assert for_note({"phase": "pick"}) is None


def test_a_prompt_does_not_cut_the_siren_short():
    t = Tune()
    t.play("alarm", 1000)
    t.play("prompt", 1000)  # a pole alarm: the flow asks for the pole in the same breath
    assert t.freq_at(1000) == ALARM[0][0] and t.name == "alarm"
    t.play("prompt", 1000 + sum([ms for _, ms in ALARM]))  # once the siren is over, prompts sound
    assert t.name == "prompt"


def test_an_undo_has_its_own_tune_and_its_prompt_waits_for_it():
    assert for_note({"undo": 1, "outcome": {"event": "undo", "player": 0, "undone": 1}}) == "undo"
    t = Tune()
    t.play("undo", 500)
    t.play("prompt", 500)   # the undone take wants its egg back: asked in the same breath
    assert t.name == "undo" and t.freq_at(500) == UNDO[0][0]
