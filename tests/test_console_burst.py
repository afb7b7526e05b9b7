"""A burst of console lines at line speed (issue 17, hole 2): 1,000 `status` lines in one write
at 115200 baud must not starve the other tasks (the board reset through its watchdog: the console
loop handled every pending line without yielding). The board must stay up (no second `ready`),
keep judging eggs, and answer the console afterwards."""

import time

import pytest
from e2e_kit import booted_nest

pytestmark = [pytest.mark.board, pytest.mark.timeout(240)]


def test_a_burst_of_status_lines_does_not_reset_the_board(tmp_path):
    with booted_nest(tmp_path / "flash", baud=115200) as nest:
        nest.new(2, "standard", 4)
        nest.pick("reveal")
        boots = len([ev for ev in nest.seen if ev.get("ev") == "ready"])
        nest.port.write(b'{"cmd": "status"}\n' * 1000)
        # while the burst is under way, an egg is taken: the sampler must still judge it
        nest.take(nest.game.demand, "roll")
        end = time.monotonic() + 60
        while time.monotonic() < end:
            nest.drain(2.0)
            if not nest.port.in_waiting:
                break
        assert len([ev for ev in nest.seen if ev.get("ev") == "ready"]) == boots, "the board reset"
        assert not [ev for ev in nest.seen if ev.get("ev") in ("crash", "stopped")]
        assert nest.status()["ok"]
        nest.check_log("current")
