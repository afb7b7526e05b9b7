"""Planted faults for firmware/tests/test_weigher_putback.py (an egg lifted clear and put back is
weighed back before the next take), which a constant cannot plant: the shipped gulo/weigher.py
with one line changed must fail a check the shipped one passes."""

import pytest
from test_weigh_sums import planted
from weigher_versions import firmware_tests

RULE = "        if (k >= _T_ADD and self._w >= 6 and self.out > 0 and self._last16 > tol\n"

# (what goes wrong, the shipped text, the planted text, the check that must fail)
FAULTS = {
    "no rule: one egg back waits the long calm (the weigher before)":
        (RULE, "        if (False and self.out > 0 and self._last16 > tol\n", "put_back_failures"),
    "no wait: a hand resting with the egg's weight is the egg back at once":
        (RULE, "        if (self._w >= 6 and self.out > 0 and self._last16 > tol\n", "rest_failures"),
    "no rate gate: at 10 SPS a hand resting 1.1 s is the egg back":
        (RULE, "        if (k >= _T_ADD and self.out > 0 and self._last16 > tol\n", "rest_10_failures"),
}


@pytest.mark.parametrize("what", sorted(FAULTS))
def test_the_put_back_checks_fail_on_a_planted_fault(tmp_path, what):
    cases = firmware_tests("test_weigher_putback")
    shipped, fault, check = FAULTS[what]
    assert getattr(cases, check)() == []        # the shipped weigher passes the check
    assert getattr(cases, check)(planted(tmp_path, shipped, fault)), what
