"""Power cuts aimed at each flash operation of an action's append in turn (issue 17, drill d;
issue 16: one sealed line appended per action), the flash keeping only what littlefs keeps
(host_tools/nest/vboard/powercut.mjs). The real firmware loses at most the action in flight; a
planted append that leaves a torn line (written by two opens) read back by a reader that trusts
every line is caught by the same check."""

import random
from pathlib import Path

import pytest

from nest.boardkit import Mismatch, boot_planted, booted_nest, cut_and_check

pytestmark = [pytest.mark.board, pytest.mark.timeout(400)]

# gulo.store with an append written by two opens (a cut between them leaves half a line on
# flash, which littlefs never does) and a reader that trusts every line (no seal checked, the torn
# end kept): later `def`s replace the real ones.
STORE = Path(__file__).resolve().parent.parent / "firmware" / "gulo" / "store.py"
TORN_AND_TRUSTED = STORE.read_text() + '''

def append(path, line):
    data = line.encode() + b"\\n"
    with open(path, "ab") as f:
        f.write(data[:len(data) // 2])
    with open(path, "ab") as f:
        f.write(data[len(data) // 2:])


def load_lines(path):
    data = _read(path)
    if data is None:
        return None, None
    return [t for t in data.decode().split("\\n") if t], None
'''


def test_cuts_before_each_operation_of_an_append_lose_at_most_the_action_in_flight(tmp_path):
    rng = random.Random(4)
    with booted_nest(tmp_path / "flash") as nest:
        hit = set()
        for at_op in range(1, 5):   # open, write, close (an append), then the next one's open
            r = cut_and_check(nest, rng, seed=40 + at_op, at_op=at_op)
            hit.add(r["cut_op"])
            assert r["resumed"]
        assert hit == {"open", "write", "close"}


def test_a_planted_torn_append_read_by_a_trusting_reader_fails_the_check(tmp_path):
    planted = tmp_path / "store.py"
    planted.write_text(TORN_AND_TRUSTED)
    with booted_nest(tmp_path / "flash") as nest:
        boot_planted(nest, planted, ":gulo/store.py")
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        # before the second open of the next append: half a line on flash, trusted at boot
        with pytest.raises(Mismatch, match="damaged|unreadable|does not replay"):
            cut_and_check(nest, random.Random(1), seed=9, at_op=4)
