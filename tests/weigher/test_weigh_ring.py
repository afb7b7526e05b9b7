"""Planted faults a constant cannot plant, for issue 13's third round: the shipped weigher before
it (0b05b99, from git) must fail the checks of firmware/tests/test_weigher_ring.py and
test_weigher_full.py that the shipped one passes (spans of the physics model where a ring or a
pole's knock met a waiting level; a hand resting with about the weight of the eggs out)."""

from nest.weigh import weigher_at
from testkit.weigher_versions import firmware_tests

BEFORE = "0b05b99"   # one sample below a waiting level dropped it; any rise was a new hand; any fit full


def test_the_weigher_before_fails_the_ring_and_knock_checks():
    cases = firmware_tests("test_weigher_ring")
    Old = weigher_at(BEFORE)
    assert cases.names(cases.replay("knocked_hold", Old)[0]) == ["P"]          # early, wrong
    assert cases.names(cases.replay("ring_before_roll", Old)[0]) == ["out 2"]  # folded
    assert cases.replay("rung_level", Old)[0] == []                            # not yet said
    assert not cases.knocked_hold_ok(Old)
    assert not cases.ring_before_roll_ok(Old)
    assert not cases.rung_level_ok(Old)
    # and the shipped weigher passes them (the same functions can succeed)
    assert cases.knocked_hold_ok() and cases.ring_before_roll_ok() and cases.rung_level_ok()


def test_the_third_round_before_its_half_lift_rule_fails_the_half_lift_checks():
    # 31bfa95: the waiting yellow egg and the blue one held half out folded into `out: 2` while
    # the hand held it (the sweep's early verdicts). The second round's weigher (0b05b99) named
    # the yellow egg on the hand's first press and passes them.
    cases = firmware_tests("test_weigher_ring")
    Old = weigher_at("31bfa95")
    assert cases.names(cases.replay("half_lift_after_wait", Old)[0]) == ["out 2"]
    assert not cases.half_lift_ok("half_lift_after_wait", Old)
    assert not cases.half_lift_ok("half_lift_rung", Old)
    assert cases.half_lifts_ok(weigher_at(BEFORE)) and cases.half_lifts_ok()


def test_the_weigher_before_took_a_resting_hand_for_the_full_nest():
    cases = firmware_tests("test_weigher_full")
    Old = weigher_at(BEFORE)
    wrong = 0
    for rate in (11, 90):
        for i, press in enumerate(cases._PRESSES):
            wrong += cases._names(cases._pressing_hand(rate, press, i + 1, Old)) != ["Y"]
    assert wrong > 0


def test_main_before_the_fourth_round_took_an_exact_press_for_the_full_nest():
    # 63b2d91 (the third round, merged): a hand pressing with the yellow egg's very weight, no
    # landing's jolt, was `full` at once, and its leaving a second yellow egg, at both settings
    cases = firmware_tests("test_weigher_full")
    assert cases._exact_presses_wrong(weigher_at("63b2d91")) == 6
    assert cases._exact_presses_wrong() == 0
