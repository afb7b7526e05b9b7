"""The firmware's weigher test modules, for the planted faults a constant cannot plant: an earlier
weigher (nest.weigh.weigher_at) must fail the checks the shipped one passes (tests/test_weigh_rest.py,
tests/test_weigh_ring.py)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE_TESTS = ROOT / "firmware/tests"


def firmware_tests(name):
    """A module of firmware/tests, loaded under another name (its neighbours importable, as in
    the VM), for its trace builders and checks."""
    sys.path.insert(0, str(FIRMWARE_TESTS))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_cases", FIRMWARE_TESTS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(FIRMWARE_TESTS))
    return mod
