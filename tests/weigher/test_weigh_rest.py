"""Planted faults for the weigher's rest rules that a constant cannot plant: the weigher before
issue 13's second round (9a4e8c7, from git) must fail the checks that the shipped one passes
(firmware/tests/test_weigher_rate.py)."""

from nest.weigh import weigher_at
from testkit.weigher_versions import firmware_tests

BEFORE = "9a4e8c7"   # a hand resting learned after 675 ms; `full` waited out a held egg


def _rate_tests():
    return firmware_tests("test_weigher_rate")


def test_the_weigher_before_learned_a_resting_hand():
    cases = _rate_tests()
    Old = weigher_at(BEFORE)
    for rate in (11, 90):
        events = cases._resting_hand_case(Old(), rate)
        assert [e.get("colour") for e in events] == ["Y", "R", "G"], (rate, events)


def test_the_weigher_before_waited_out_a_held_egg_for_full():
    cases = _rate_tests()
    events, back = cases._back_after_ring_case(weigher_at(BEFORE)())
    assert [("full" if "full" in e else e.get("colour")) for e in events] == ["Y", "full"], events
    assert events[1]["t_ms"] - back > 900, events
