"""Planted faults for firmware/tests/test_weigher_start.py's hand after a reset (the noise learned at
rest survives reset()), which a constant cannot plant: the shipped gulo/weigher.py with one line
changed must fail the check the shipped one passes."""

import pytest
from test_weigh_sums import planted

from testkit.weigher_versions import firmware_tests

# (what goes wrong, the shipped text, the planted text)
FAULTS = {
    "a reset forgets the noise (the start learns it from the hand)":
        ("        self._mad_kept = self._mad16 if self.ready and keep_noise else 0\n",
         "        self._mad_kept = 0\n"),
    "the start's restart forgets the kept noise":
        ("        self._n = 1\n        self._mad16 = self._mad_kept\n",
         "        self._n = 1\n        self._mad16 = 0\n"),
}


@pytest.mark.parametrize("what", sorted(FAULTS))
def test_the_reset_check_fails_on_a_planted_fault(tmp_path, what):
    cases = firmware_tests("test_weigher_start")
    weigher = planted(tmp_path, *FAULTS[what])
    outcomes = [cases.word_then_hand(weigher, word_ms) for word_ms in (2600, 2700, 2800)]
    shipped = [cases.word_then_hand(word_ms=word_ms) for word_ms in (2600, 2700, 2800)]
    def right(events, learned):
        return events == [] and learned and -0.3 < learned[0] < 0.3 and learned[1] > 3600 and \
            0.9 < learned[2] < 1.1

    assert all(right(*o) for o in shipped), shipped
    assert not all(right(*o) for o in outcomes), (what, outcomes)
