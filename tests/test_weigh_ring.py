"""Planted faults a constant cannot plant, for issue 13's third round: the shipped weigher before
it (0b05b99, from git) must fail the checks of firmware/tests/test_weigher_ring.py that the
shipped one passes (spans of the physics model where a ring or a pole's knock met a waiting level)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

from nest.weigh import load_weigher

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "0b05b99"   # a single sample below a waiting level dropped it; any rise was a new hand


def _ring_tests():
    tests = ROOT / "firmware/tests"
    sys.path.insert(0, str(tests))   # the module imports its neighbours, as in the VM
    try:
        spec = importlib.util.spec_from_file_location("weigher_ring_cases", tests / "test_weigher_ring.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(tests))
    return mod


def _before(tmp_path):
    src = subprocess.run(["git", "show", f"{BEFORE}:firmware/gulo/weigher.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    p = tmp_path / "weigher_before.py"
    p.write_text(src)
    return load_weigher(p)


def test_the_weigher_before_fails_the_ring_and_knock_checks(tmp_path):
    cases = _ring_tests()
    Old = _before(tmp_path)
    assert cases.names(cases.replay("knocked_hold", Old)[0]) == ["P"]          # early, wrong
    assert cases.names(cases.replay("ring_before_roll", Old)[0]) == ["out 2"]  # folded
    assert cases.replay("rung_level", Old)[0] == []                            # not yet said
    assert not cases.knocked_hold_ok(Old)
    assert not cases.ring_before_roll_ok(Old)
    assert not cases.rung_level_ok(Old)
    # and the shipped weigher passes them (the same functions can succeed)
    assert cases.knocked_hold_ok() and cases.ring_before_roll_ok() and cases.rung_level_ok()


def test_the_weigher_before_took_a_resting_hand_for_the_full_nest(tmp_path):
    # firmware/tests/test_weigher_full.py's check fails on the weigher before the rule
    tests = ROOT / "firmware/tests"
    sys.path.insert(0, str(tests))
    try:
        spec = importlib.util.spec_from_file_location("weigher_full_cases", tests / "test_weigher_full.py")
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
    finally:
        sys.path.remove(str(tests))
    Old = _before(tmp_path)
    wrong = 0
    for rate in (11, 90):
        for i, press in enumerate(cases._PRESSES):
            s = cases._samples(rate, [(1500, 14.0, 1.0, 0)], 6500, i + 1, adds=[(4000, press, 500)])
            wrong += cases._names(cases._run(Old(), s)) != ["Y"]
    assert wrong > 0
