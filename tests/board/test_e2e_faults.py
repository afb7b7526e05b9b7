"""Faults on the virtual board (issue 4 "done when", issue 8 drills at test size): power cuts at
random instants during play (the resumed game goes on), thousands of random and malformed console
lines, sensor faults, deploys cut at random points. `make drills` runs the same functions
(testkit.boardkit) at full size."""

import random

import pytest

from testkit.boardkit import (
    booted_nest,
    cut_and_check,
    deploy_board,
    deploy_cut_and_check,
    fuzz_console,
    sensor_faults,
)

pytestmark = pytest.mark.board

POWER_CUTS = 5          # the drill: 200
FUZZ_LINES = 2000       # the drill: 10,000
DEPLOY_CUTS = 2         # the drill: 50


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
    # the resumed game went on: a cut that began no game carried every action logged at the last
    assert all(r["resumed"] for r in results)
    for before, after in zip(results, results[1:]):
        if after["new_games"] == 0:
            assert after["reported"] >= before["logged"], (before, after)
    assert all(r["files"] > 0 for r in results)         # the flash's files were read back


def test_sensor_faults_are_shown_without_false_alarms(nest):
    seen = sensor_faults(nest)
    assert seen["after"] == "success"


def test_a_phase_that_never_comes_is_reported_with_the_boards_state(nest):
    # A nest that waits for the weigher says nothing: the failure names what the board and the
    # world said then (CI once saw 30 s of silence after `new`, and nothing to go on).
    nest.new(2, "standard", 5)
    said = (r"no attempt phase: not seen within 1.0 s.*; the last lines before: \[.*; status: \{.*"
            r"'phase': 'pick'.*; sensors: \{.*'at_rest': .*; world: \{.*; board log: ")
    with pytest.raises(AssertionError, match=said):
        nest.wait_phase("attempt", timeout=1.0)


def test_deploys_cut_at_random_points_boot_one_tree_whole_and_the_next_completes(tmp_path):
    rng = random.Random(5)
    with deploy_board(tmp_path) as (board, trees):
        held = "A"
        for _ in range(DEPLOY_CUTS):
            target = "B" if held == "A" else "A"
            r = deploy_cut_and_check(board, trees, rng, target)
            assert r["fired"] and r["after_cut"] in ("A", "B")
            held = target
