"""A full flash during play (issue 17, hole 1): store.save raising OSError(28) once stopped the game
at the next move (and at every boot after). On the virtual board, whose flash is the ESP32's 2 MB
and answers ENOSPC when full (vboard/flash.mjs), the flash is filled to the last block with the
app stopped; after the boot the game must go on: a storage fault reported, every action still
judged and reported (the host engine checks each), the game in RAM; and when the nest owns
something it can spare (a deploy's stage with no journal, old finished games) it is deleted and
the game saved after all."""

import pytest

from testkit.boardkit import booted_nest
from testkit.vboard_fixtures import mpremote

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]

# Fill the flash from the REPL: a stage file a deploy left behind (optional), then /fill grows
# until ENOSPC.
FILL = """
import os
{stage}
f = open('/fill', 'wb')
try:
    while True:
        f.write(b'x' * 512)
except OSError as e:
    print('full', e.args[0])
f.close()
"""
STAGE = """
for p in ('/.nest', '/.nest/stage'):
    try: os.mkdir(p)
    except OSError: pass
with open('/.nest/stage/0', 'wb') as s: s.write(b'y' * 16384)
"""


def fill_flash(nest, stage):
    """Stop the app once the game is on flash, fill the flash (a stage file first if `stage`),
    boot again; the ready line."""
    nest.wait_saved()
    nest.close()
    out = mpremote(nest.board, "exec", FILL.format(stage=STAGE if stage else ""))
    assert "full 28" in out.stdout, out.stdout + out.stderr
    nest.open()
    nest.ctl.reset()
    return nest.after_boot()


def storage_events(nest, mark):
    """The storage lines (faults included) seen from nest.seen[mark] on."""
    return [ev for ev in nest.seen[mark:] if ev.get("what") == "storage" or ev.get("ev") == "storage"]


def test_a_full_flash_reports_a_fault_and_the_game_goes_on_in_ram(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        ready = fill_flash(nest, stage=False)
        assert ready["resumed"] is True
        mark = len(nest.seen)
        for _ in range(3):
            nest.play_turn("roll")   # every action judged and checked against the host engine
        faults = [ev for ev in storage_events(nest, mark) if ev.get("ev") == "fault"]
        assert len(faults) == 1 and faults[0]["detail"].startswith("flash full: /data/game.log not saved")
        st = nest.status()
        assert st["state"] == nest.game.state()
        assert not [ev for ev in nest.seen[mark:] if ev.get("ev") in ("crash", "stopped", "ready")]
        nest.check_log("current")    # the game in RAM holds every action


def test_a_full_flash_frees_a_deploys_stage_and_saves(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        fill_flash(nest, stage=True)
        mark = len(nest.seen)
        nest.play_turn("roll")
        nest.wait_saved()  # the room made and the turn written (reported before `unsaved` is 0)
        events = storage_events(nest, mark)
        assert {"ev": "storage", "freed": ["/.nest/stage/0"]} in events
        assert not [ev for ev in events if ev.get("ev") == "fault"]
        nest.check_log("current")
        # what is on flash after a power cut is the whole game (read back by the firmware)
        nest.ctl.power_cut(off_ms=0)
        ready = nest.after_boot()
        assert ready["resumed"] and ready["state"] == nest.game.state()
