"""Power cuts aimed at each flash operation of a save in turn (issue 17, drill d), the flash
keeping only what littlefs keeps (host_tools/nest/vboard/powercut.mjs). The real firmware loses
nothing reported; a planted non-atomic save (the header and the payload written by two opens)
is caught by the same check."""

import random
from pathlib import Path

import pytest
from vboard_fixtures import mpremote

from nest.boardkit import Mismatch, booted_nest, cut_and_check

pytestmark = [pytest.mark.board, pytest.mark.timeout(400)]

# gulo.store with a save that is not atomic: the header and the payload written by two opens of
# the file itself (a later `def save` replaces the real one).
NOT_ATOMIC = (Path(__file__).resolve().parent.parent / "firmware" / "gulo" / "store.py").read_text() + '''

def save(path, data):
    if isinstance(data, str):
        data = data.encode()
    with open(path, "wb") as f:
        f.write(("%s %08x %d\\n" % (MAGIC, crc(data), len(data))).encode())
    with open(path, "ab") as f:
        f.write(data)
'''


def test_cuts_before_each_operation_of_a_save_lose_nothing_reported(tmp_path):
    rng = random.Random(4)
    with booted_nest(tmp_path / "flash") as nest:
        hit = set()
        for at_op in range(1, 6):   # open, write (header), write (payload), close, rename
            r = cut_and_check(nest, rng, seed=40 + at_op, at_op=at_op)
            hit.add(r["cut_op"])
            assert r["resumed"]
        assert hit == {"open", "write", "close", "rename"}


def test_a_planted_non_atomic_save_fails_the_check(tmp_path):
    planted = tmp_path / "store.py"
    planted.write_text(NOT_ATOMIC)
    with booted_nest(tmp_path / "flash") as nest:
        nest.close()
        mpremote(nest.board, "fs", "cp", str(planted), ":gulo/store.py")
        nest.open()
        nest.ctl.reset()
        nest.after_boot()
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        # before the second open of the next save: the file holds a header and no payload
        with pytest.raises(Mismatch, match="damaged"):
            cut_and_check(nest, random.Random(1), seed=9, at_op=4)
