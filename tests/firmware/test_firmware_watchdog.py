"""The nest firmware deployed as .mpy (mpy-cross 1.29, as `nest deploy` does) on the virtual
board: its heap after boot against the ESP32 budget, and a task that hangs mid-game is reset by
the watchdog, after which the game resumes exactly where it was (a flash folder keeps the files
over the reset)."""

import json
from pathlib import Path

import pytest
import serial

from testkit.boardkit import status_when_saved
from testkit.vboard_fixtures import HEAP_BOOT, Console, compile_gulo, mpremote
from testkit.vboard_fixtures import heap as measure_heap

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
# gc.mem_alloc() after gc.collect(), after boot, against the ESP32's first GC area: the ESP32_GENERIC
# port starts its GC with 56 KB of which 55,968 B are usable and grows only on demand
# (docs/firmware-budgets.md, "ESP32 memory", with the port's source lines). Booting within it means
# the heap never has to grow at boot. (The long-session peak against the same figure is
# tests/firmware/test_heap_esp32.py's, on the unix port's collecting GC.)
HEAP_BUDGET = 55_968
# Not met since issue 16 (docs/firmware-budgets.md: freezing the package takes the bytecode off
# the heap). Until it is, the heap after boot must not grow past the highest figure seen plus
# 512 B, a guard against growth, not a budget. The highest: 64,192 B in a CI run on a fresh clone
# (9faa7ab; this measure moves by some 500 B between runs of one firmware), carried forward by each
# growth since, each read side by side with `.venv/bin/python -m lab.heap_report --games 0`: 67,008 B.
HEAP_CEILING = 67_520


def ask_status(console):
    console.send(cmd="status", id=3)
    return console.wait(lambda ev: ev.get("re") == "status")[-1]


def deploy_mpy(board, tmp_path):
    pkg = compile_gulo(tmp_path / "mpy")
    mpremote(board, "fs", "cp", "-r", str(pkg), ":")
    listing = mpremote(board, "fs", "ls", ":gulo").stdout
    assert "app.mpy" in listing and "app.py" not in listing


def firmware_heap(board):
    """Heap the firmware holds after boot, every task started: the VM's shims (machine, the
    simulated world) hold heap an ESP32 does not, so they are taken off."""
    heap = measure_heap(board, HEAP_BOOT)
    shims = board.control.request("mem")["mem"]["shims"]
    print(f"heap after boot: {heap - shims} B firmware ({heap} B with the VM's shims, {shims} B)")
    return heap - shims


_MEASURED = {}  # one board deployed and measured for both checks below


def heap_after_boot(vboard_factory, tmp_path):
    if "heap" not in _MEASURED:
        board = vboard_factory()
        deploy_mpy(board, tmp_path)
        _MEASURED["heap"] = firmware_heap(board)
    return _MEASURED["heap"]


def test_heap_after_boot_does_not_grow_past_the_measured_ceiling(vboard_factory, tmp_path):
    assert 0 < heap_after_boot(vboard_factory, tmp_path) <= HEAP_CEILING


@pytest.mark.xfail(strict=True, reason="issue 16: with every module kept loaded the heap after boot is "
                                       "over half of the ESP32_GENERIC's GC heap (docs/firmware-budgets.md)")
def test_heap_after_boot_is_within_the_budget(vboard_factory, tmp_path):
    assert 0 < heap_after_boot(vboard_factory, tmp_path) <= HEAP_BUDGET


def test_a_hang_mid_game_is_reset_by_the_watchdog_and_the_game_resumes(vboard_factory, tmp_path):
    board = vboard_factory(flash_dir=tmp_path / "flash")
    deploy_mpy(board, tmp_path)

    # 1. A game in progress: a reveal and a clean egg.
    mpremote(board, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")
    with serial.Serial(board.port, 115200, timeout=0.1) as port:
        board.control.reset()
        console = Console(port)
        console.wait(lambda ev: ev.get("ev") == "ready")
        console.send(cmd="new", players=3, variant="standard", seed=23, id=1)
        console.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")
        console.send(cmd="press", button="reveal", id=2)
        seen = console.wait(lambda ev: ev.get("ev") == "action" and ev["action"] == {"do": "reveal"})
        demand = [ev for ev in seen if ev.get("ev") == "state"] or \
            console.wait(lambda ev: ev.get("ev") == "state")
        colour = demand[-1]["state"]["demand"]
        board.control.take(colour)
        console.wait(lambda ev: ev.get("ev") == "action" and ev["action"]["do"] == "take")
        before = status_when_saved(lambda: ask_status(console))["state"]  # the take on flash
        assert before["positions"][0] == 1 and before["nest"][colour] == 4
        name = "current"  # the running game's log
        console.send(cmd="log", name=name, id=5)
        log_before = console.wait(lambda ev: ev.get("re") == "log")[-1]["lines"]
        assert [json.loads(line)["do"] for line in log_before[1:]] == ["reveal", "take"]

        # 2. The sampler hangs inside its HX711 read: nothing feeds the watchdog any more.
        board.control.fault("hang")
        seen = console.wait(lambda ev: ev.get("ev") == "ready", timeout=30)
        ready = seen[-1]
        assert board.control.request("ping")["reset_cause"] == 3  # machine.WDT_RESET
        assert not [ev for ev in seen if ev.get("ev") == "action"]  # nothing was judged meanwhile

        # 3. The same game, the same log.
        assert ready["resumed"] is True and ready["state"] == before
        console.send(cmd="log", name=name, id=6)
        assert console.wait(lambda ev: ev.get("re") == "log")[-1]["lines"] == log_before
        port.write(b"\x03")
        console.wait(lambda ev: ev.get("ev") == "stopped")
