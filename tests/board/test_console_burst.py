"""A burst of console lines at line speed (issue 17, hole 2): 1,000 `status` lines in one write at
115200 baud starved the other tasks (the console loop handled every pending line without
yielding: no egg was judged until the burst was through; on the device the watchdog reset the
board). Now the console handles one line per pass and lets the others run: an egg taken during
the burst is judged while status answers are still going out. Checked by order, not by time (the
machine is shared): the verdict's line comes before the burst's last answer. The board must stay
up (no second `ready`) and answer and play on afterwards."""

import pytest

from testkit.boardkit import booted_nest

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]
BURST = 1000


def test_a_burst_of_status_lines_does_not_starve_the_sampler(tmp_path):
    with booted_nest(tmp_path / "flash", baud=115200) as nest:
        nest.new(2, "standard", 4)
        nest.pick("reveal")
        nest.wait_phase("attempt")
        start = len(nest.seen)
        nest.port.write(b'{"cmd": "status"}\n' * BURST)
        nest.ctl.drop(nest.game.demand)   # the egg rolls out while the burst is under way
        n = len(nest.actions)
        nest.wait(lambda ev: len(nest.actions) > n, timeout=200)
        answered_before = sum(1 for ev in nest.seen[start:] if ev.get("re") == "status")
        nest.wait(lambda ev: sum(1 for e in nest.seen[start:] if e.get("re") == "status") >= BURST,
                  timeout=200)
        seen = nest.seen[start:]
        assert not [ev for ev in seen if ev.get("ev") in ("ready", "crash", "stopped")], "the board reset"
        assert answered_before < BURST * 0.9, f"the egg was judged only after {answered_before} answers"
        assert nest.status()["ok"]
        nest.check_log("current")
