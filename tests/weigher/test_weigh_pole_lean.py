"""Planted faults for firmware/tests/test_weigher_pole_lean.py (after a knocked pole leaning on the
rim, the nest is ready once the pole is seated): the shipped gulo/weigher.py with one line changed
must fail the check the shipped one passes. A constant cannot plant them."""

import pytest
from test_weigh_sums import planted

from testkit.weigher_versions import firmware_tests

SEAT = "        if self._pole_now and not self._pole_level:\n"
LEARN = "                self._full16 = mean16\n            self.out = 0\n"

# (what goes wrong, the shipped text, the planted text)
FAULTS = {
    "the full nest learned with the pole out (its share on the rim taken for eggs)":
        (LEARN, "                self._full16 = mean16\n            else:\n"
                "                self._full16 = mean16 + self._pole16\n            self.out = 0\n"),
    "no judgement at the seat: a level off by the pole's share waits the long calm":
        (SEAT, "        if False:\n"),
}


@pytest.mark.parametrize("what", sorted(FAULTS))
def test_the_leaning_pole_check_fails_on_a_planted_fault(tmp_path, what):
    shipped, fault = FAULTS[what]
    cases = firmware_tests("test_weigher_pole_lean")
    assert cases.lean_failures() == []
    assert cases.lean_failures(planted(tmp_path, shipped, fault)), what
