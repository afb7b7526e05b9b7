"""Faults on the virtual board (issue 4 "done when", issue 8 drills at test size): power cuts at
random instants during play, thousands of random and malformed console lines, sensor faults.
`make drills` runs the same functions (tests/e2e_kit.py) at full size."""

import random

import pytest
from e2e_kit import booted_nest, cut_and_check, fuzz_console, sensor_faults

pytestmark = pytest.mark.board

POWER_CUTS = 5          # the drill: 200
FUZZ_LINES = 2000       # the drill: 10,000


@pytest.fixture(scope="module")
def nest(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-faults")
    with booted_nest(folder / "flash", log_path=folder / "vboard.log") as n:
        yield n


def test_console_fuzz_changes_nothing(nest):
    nest.new(2, "standard", 4)
    nest.play_turn("roll")
    nest.pick("reveal")                       # mid-attempt: a demand is standing
    stats = fuzz_console(nest, random.Random(2026), FUZZ_LINES)
    assert stats["sent"] == FUZZ_LINES == stats["ok"] + stats["refused"]
    assert stats["refused"] > FUZZ_LINES // 2 and stats["ok"] > 0
    nest.take(nest.game.demand, "roll")       # and the game goes on
    nest.check_log("current")


def test_console_survives_bytes_that_are_not_utf8(tmp_path):
    with booted_nest(tmp_path / "flash", log_path=tmp_path / "vboard.log") as n:
        n.port.write(b'{"cmd": "st\xbbatus"}\n')
        ans = n.ask("status", timeout=5)
        assert ans["ok"]


def test_power_cuts_at_random_instants_lose_nothing_reported(nest):
    rng = random.Random(8)
    results = [cut_and_check(nest, rng, seed=100 + i) for i in range(POWER_CUTS)]
    assert nest.boots >= POWER_CUTS
    assert sum(r["reported"] for r in results) > 0     # cuts did land in the middle of games


def test_sensor_faults_are_shown_without_false_alarms(nest):
    seen = sensor_faults(nest)
    assert seen["after"] == "success"
