"""The drills' fuzzers at test size (`make drills` runs 2,000 of each): mangled game logs through
`nest replay`, fuzzed page messages to a `nest web` on loopback. And the fuzzers' own check shown
to fail: a replay that lets a RecursionError out is caught."""

import random

import pytest

import nest.replay
from testkit.fuzz_kit import FuzzFailure, fuzz_replay, fuzz_web


def test_mangled_logs_are_replayed_or_refused_with_file_and_line(tmp_path):
    stats = fuzz_replay(tmp_path, random.Random(7), 150, cli_every=75)
    assert stats["logs"] == 150 and stats["replayed"] > 0 and stats["refused"] > 0 and stats["cli"] == 2


def test_the_replay_fuzz_catches_a_traceback(tmp_path, monkeypatch):
    def deep_trouble(path):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("testkit.fuzz_kit.replay_file", deep_trouble)
    with pytest.raises(FuzzFailure, match="RecursionError"):
        fuzz_replay(tmp_path, random.Random(7), 3, cli_every=1000)
    assert nest.replay.replay_file is not deep_trouble


@pytest.mark.board
@pytest.mark.timeout(200)
def test_fuzzed_page_messages_are_all_refused(tmp_path):
    stats = fuzz_web(tmp_path, random.Random(7), 150)
    assert stats["sent"] == 150 == stats["refused"] + stats["too_big"]
