"""The nest firmware playing on the virtual board: buttons pressed and eggs taken in the simulated
world, verdicts read from the console, as a family at the table would cause them."""

import time
from pathlib import Path

import pytest
import serial

from gulo import sounds
from gulo.rules import deal
from testkit.vboard_fixtures import Console, mpremote

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def boot(vboard, port):
    mpremote(vboard, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    mpremote(vboard, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")
    vboard.control.reset()
    console = Console(port)
    console.wait(lambda ev: ev.get("ev") == "ready")
    return console


def click(vboard, button):
    vboard.control.press(button)
    time.sleep(0.15)  # held longer than the 20 ms debounce, as a finger does
    vboard.control.release(button)


def test_a_turn_a_pole_alarm_and_the_console(vboard):
    path, _deck = deal(11)
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        console = boot(vboard, port)
        console.send(cmd="new", players=2, variant="standard", seed=11, id=1)
        # The nest is full and still: the game is ready to play (said before the answer line).
        console.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")

        # Player 0 reveals tile 1 with the button and takes that colour cleanly.
        click(vboard, "REVEAL")
        console.wait(lambda ev: ev.get("ev") == "action" and ev["action"] == {"do": "reveal"})
        vboard.control.take(path[0])
        seen = console.wait(lambda ev: ev.get("ev") == "action" and ev["action"]["do"] == "take")
        take = seen[-1]
        assert take["outcome"]["event"] == "success" and take["outcome"]["to"] == 1

        # Player 1 reveals, then the pole falls: an EGG ALARM, and the device asks for the pole.
        console.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")
        click(vboard, "REVEAL")
        console.wait(lambda ev: ev.get("ev") == "action" and ev["action"] == {"do": "reveal"})
        knocked = vboard.control.knock_pole()["t_ms"]
        seen = console.wait(lambda ev: ev.get("ev") == "action" and ev["action"]["do"] == "alarm")
        assert seen[-1]["action"] == {"do": "alarm", "cause": "pole"}
        assert vboard.control.sounded(sounds.ALARM[0][0], knocked) is not None  # the siren sounded

        # A garbled console line gets an error and changes nothing.
        console.send(cmd="new", players=99, id=2)
        err = console.wait(lambda ev: ev.get("re") == "new" and ev.get("id") == 2)[-1]
        assert err["ok"] is False and "players" in err["error"]
        console.send(cmd="status", id=3)
        status = console.wait(lambda ev: ev.get("re") == "status")[-1]
        assert status["state"]["positions"] == [1, 0] and status["state"]["turn"] == 0
        assert status["prompt"] == "put the pole back"
        port.write(b"\x03")
        console.wait(lambda ev: ev.get("ev") == "stopped")


def test_a_nest_that_never_rests_is_a_fault_until_it_rests_and_play_goes_on(vboard):
    # gulo.nestfault: the cell's noisy fault (2 g rms and 50 Hz pickup, nest.world) keeps the
    # nest from resting; after UNSETTLED_MS (30 s) the board says so, with no verdict, and clears
    # the fault once the nest rests again (the flow's own times: the virtual board keeps time
    # for the firmware, docs/virtual-board.md)
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        console = boot(vboard, port)
        console.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")
        console.send(cmd="press", button="reveal", id=1)       # an attempt is under way
        seen = console.wait(lambda ev: ev.get("ev") == "action")
        vboard.control.fault("noisy", True)
        seen += console.wait(lambda ev: ev.get("ev") == "fault" and ev.get("what") == "nest", 60)
        assert "keeps moving and cannot weigh (30 s of motion)" in seen[-1]["detail"]
        console.send(cmd="sensors", id=2)
        seen += console.wait(lambda ev: ev.get("re") == "sensors")
        assert seen[-1]["nest"] == "unsettled" and seen[-1]["hx711"] == "ok"
        console.send(cmd="status", id=3)
        seen += console.wait(lambda ev: ev.get("re") == "status")
        assert "keeps moving" in seen[-1]["fault"]
        vboard.control.fault("noisy", False)
        seen += console.wait(lambda ev: ev.get("ev") == "fault_cleared" and ev.get("what") == "nest", 15)
        console.send(cmd="status", id=4)
        seen += console.wait(lambda ev: ev.get("re") == "status")
        status = seen[-1]
        assert [ev["action"] for ev in seen if ev.get("ev") == "action"] == [{"do": "reveal"}]   # no verdict
        assert status["fault"] is None and status["state"]["demand"] is not None
        assert status["state"]["turn"] == 0


def test_an_unplugged_hx711_is_shown_and_causes_no_alarm(vboard):
    with serial.Serial(vboard.port, 115200, timeout=0.1) as port:
        console = boot(vboard, port)
        console.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")
        console.send(cmd="press", button="reveal", id=1)       # an attempt is under way
        console.wait(lambda ev: ev.get("ev") == "action")
        vboard.control.fault("hx711_unplugged", True)
        seen = console.wait(lambda ev: ev.get("ev") == "fault" and ev.get("what") == "hx711")
        vboard.control.fault("hx711_unplugged", False)
        seen += console.wait(lambda ev: ev.get("ev") == "fault_cleared")
        time.sleep(1.5)  # the weigher picks up again: still nothing may be judged
        console.send(cmd="status", id=2)
        seen += console.wait(lambda ev: ev.get("re") == "status")
        status = seen[-1]
        assert not [ev for ev in seen if ev.get("ev") == "action"]   # no verdict, no alarm
        assert status["state"]["demand"] is not None and status["state"]["turn"] == 0
        assert status["fault"] is None
