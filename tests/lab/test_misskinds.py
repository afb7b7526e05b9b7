"""lab.misskinds sorts the scorer's wrong changes; its totals are the scorer's own (the same
changes, the pole's left out the same way), so a row never counts what the scorer did not."""

from gulo.turnflow import AFTER_HAND_MS
from gulo.weigher import Weigher
from lab import misskinds, weighscore


def test_the_rows_add_up_to_the_scorers_changes_and_misses():
    seeds = range(1001, 1004)
    rows, _ = misskinds.kinds("table", 80, seeds)
    tot = weighscore.evaluate(lambda w: Weigher(masses=w.masses, pole_g=w.pole_g), seeds,
                              model="table", rate=80, merge_ms=AFTER_HAND_MS)
    assert sum(r[1] for r in rows.values()) == tot["changes"]
    assert sum(r[0] for r in rows.values()) == tot["changes"] - tot["right"]
    assert all(0 <= wrong <= n for wrong, n in rows.values())


def test_the_last_hand_before_a_change_is_the_latest_to_leave():
    truth = [{"what": "out", "cause": "take", "t_in": 0, "t_ms": 500, "t_away": 900, "colour": "R"},
             {"what": "touch", "t_in": 1000, "t_ms": 1400},
             {"what": "out", "cause": "drop", "t_in": 1500, "t_ms": 1600, "colour": "G"},
             {"what": "out", "cause": "take", "t_in": 2000, "t_ms": 2600, "t_away": 2900, "colour": "B"}]
    assert misskinds._hand_left_before(truth, 2000) == 1400   # the touch; a rolling egg is no hand
    assert misskinds._hand_left_before(truth, 950) == 900
    assert misskinds._hand_left_before(truth, 0) is None


def test_a_false_event_is_named_by_what_a_hand_was_doing():
    truth = [{"what": "touch", "t_in": 1000, "t_ms": 2500, "lifted": True},
             {"what": "touch", "t_in": 3000, "t_ms": 3500, "lifted": False},
             {"what": "back", "t_in": 4000, "t_ms": 5000, "eggs": 2}]
    assert misskinds.false_kind(truth, {"t_ms": 2700}) == "lifted and held"   # 200 ms after it
    assert misskinds.false_kind(truth, {"t_ms": 3200}) == "touch"
    assert misskinds.false_kind(truth, {"t_ms": 4500}) == "pour-back"
    assert misskinds.false_kind(truth, {"t_ms": 2900}) == "none"
    assert misskinds.false_kind(truth, {"t_ms": 6000}) == "none"
