"""Planted faults for firmware/tests/test_weigher_sums.py (the weigher's running window sums and the
limits kept with them), which
a constant cannot plant: the shipped gulo/weigher.py with one line changed must fail the checks
the shipped one passes."""

from pathlib import Path

import pytest

from nest.weigh import load_weigher
from testkit.weigher_versions import firmware_tests

SOURCE = Path(__file__).resolve().parents[2] / "firmware/gulo/weigher.py"

# (what goes wrong, the shipped text, the planted text)
FAULTS = {
    "the sample leaving the window is not taken out of the squares":
        ("            s2 += v * v - o * o\n", "            s2 += v * v\n"),
    "turning busy keeps the sums of the last disturbance":
        ("                self._state = _BUSY\n                self._s2 = -1\n"
         "                self._limits()\n                self._t_q = -1\n",
         "                self._state = _BUSY\n                self._limits()\n"
         "                self._t_q = -1\n"),
    "turning busy keeps the limits of the last disturbance":
        ("                self._s2 = -1\n                self._limits()\n                self._t_q = -1\n",
         "                self._s2 = -1\n                self._t_q = -1\n"),
    "a window of another length keeps the old limits":
        ("            self._w = w\n            self._limits()\n", "            self._w = w\n"),
    "a window of another length keeps the old sums":
        ("            self._buf = [self._buf[self._w - 1]] * w\n            self._s2 = -1\n",
         "            self._buf = [self._buf[self._w - 1]] * w\n"),
}


def planted(tmp_path, shipped, fault):
    src = SOURCE.read_text()
    assert src.count(shipped) == 1, "the shipped line moved: update the planted fault"
    p = tmp_path / "weigher_planted.py"
    p.write_text(src.replace(shipped, fault))
    return load_weigher(p)


@pytest.mark.parametrize("what", sorted(FAULTS))
def test_the_sums_check_fails_on_a_planted_fault(tmp_path, what):
    cases = firmware_tests("test_weigher_sums")
    _, _, _, wrong, _ = cases.sums_checked(planted(tmp_path, *FAULTS[what]))
    assert wrong, what
    assert not cases.sums_checked()[3]   # the same check passes on the shipped weigher


def test_a_reference_that_never_moves_breaks_the_pour_back(tmp_path):
    # Sums kept against a reference that stays where the disturbance began agree with the window
    # added up afresh against it (both clipped alike), so the sums check cannot see it; the
    # decisions can: the 34 g pour-back is clipped to 30 g, and the nest is not full at once.
    cases = firmware_tests("test_weigher_sums")
    Fault = planted(tmp_path, "        if s2 >= 0 and -_CLAMP <= v <= _CLAMP:\n", "        if s2 >= 0:\n")
    _, _, _, _, events = cases.sums_checked(Fault)
    assert not (cases.names(events) == ["R", "B", "full", "Y"] and events[2]["t_ms"] < 9000), events
    _, moved, _, _, events = cases.sums_checked()
    assert moved >= 1 and cases.names(events) == ["R", "B", "full", "Y"]


# (what goes wrong, the shipped text, the planted text): a place that moves _state without the
# flags kept with it
FLAG_FAULTS = {
    "the pole lifted leaves the nest at rest":
        ("                self._state = _BUSY\n                self.at_rest = False\n",
         "                self._state = _BUSY\n"),
    "a disturbance leaves the nest at rest":
        ("                self.at_rest = False   # first: tests/test_weigh_sums.py plants faults below\n",
         ""),
    "the nest settled is not at rest":
        ("        self._state = _IDLE\n        self.at_rest = True\n", "        self._state = _IDLE\n"),
    "a reset keeps the nest ready":
        ("        self.ready = False     # _state != _INIT, kept with it",
         "        self.ready = getattr(self, 'ready', False)  # kept"),
}


@pytest.mark.parametrize("what", sorted(FLAG_FAULTS))
def test_the_flags_check_fails_on_a_planted_fault(tmp_path, what):
    cases = firmware_tests("test_weigher_sums")
    _, wrong = cases.flags_checked(planted(tmp_path, *FLAG_FAULTS[what]))
    assert wrong, what
    assert not cases.flags_checked()[1]
