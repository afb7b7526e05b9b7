"""Where the ESP32's time goes while the firmware sits idle at 80 SPS (issue 36's headroom), on
the virtual board's ESP32 clock (host_tools/nest/vboard/timing.mjs).

    .venv/bin/python -m lab.sampler_cpu [--seconds 8] [--rounds 2] [--firmware DIR/firmware]

One board, the firmware as .mpy (as lab/bench_firmware.py builds it; `--firmware`: another
checkout's, e.g. a `git worktree` of an older commit, for the same figures before a change),
booted `rounds` times into each variant of main.py and measured for `seconds` at the start of a
game (a new nest, the pick phase: lab.bench's "ESP32 CPU busy, firmware idle"):
  app            the firmware as it ships;
  app, a tile blinking   the same with the player to act's Gulo on tile 2 (its tile blinks);
  no weighing    the sampler task reads each conversion (its looks, readout, scale) but gives it
                 to nobody: no weigher, no turn flow, no nest watch;
  no sampler     the sampler task sleeps: no HX711 readout at all;
  no sampler, no console   and the console task replaced by one that only sleeps;
  repl           the board at the REPL (the floor).
Each line: the board clock's busy share (bytecode x factor + machine calls + I/O) and its parts;
the differences between lines are what each stage costs.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import serial

from lab.bench_firmware import _reset_to, esp32_clock, mpremote
from nest.appboard import write_file
from nest.vboard import VirtualBoard
from testkit.vboard_fixtures import compile_gulo

PARTS = ("firmware_us", "shim_us", "io_us")

RUN = "import gulo.app\ngulo.app.run()\n"
NO_WEIGHING = """import asyncio
import gulo.app

async def sampler(self, silence):
    hx = self.hw.hx
    while True:
        self.sampler_ran = True
        now = self.clock.now()
        if hx.ready():
            silence.heard(now)
            raw = hx.take()
            if raw is not None:
                self.last_cg = self.scale.centigrams(raw)
        await asyncio.sleep_ms(silence.look_in_ms(self.clock.now()))

gulo.app.Nest.sampler = sampler
""" + RUN
NO_SAMPLER = """import asyncio
import gulo.app

async def sampler(self, *_args):
    while True:
        self.sampler_ran = True
        await asyncio.sleep_ms(200)

gulo.app.Nest.sampler = sampler
""" + RUN
NO_CONSOLE = NO_SAMPLER.replace("gulo.app.Nest.sampler = sampler", """gulo.app.Nest.sampler = sampler

async def console(self):
    while True:
        await asyncio.sleep_ms(200)

gulo.app.Nest.console = console""")
# The app with the player to act's Gulo on a tile (every egg in the nest): its tile blinks, the
# lights task wakes for it.
BLINKING = """import gulo.app

_init = gulo.app.Nest.__init__

def _init_blinking(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.flow.game.positions[self.flow.game.turn] = 2

gulo.app.Nest.__init__ = _init_blinking
""" + RUN.replace("import gulo.app\n", "")
VARIANTS = {"app": RUN, "app, a tile blinking": BLINKING, "no weighing": NO_WEIGHING,
            "no sampler": NO_SAMPLER, "no sampler, no console": NO_CONSOLE}


def shares(board, seconds):
    c0, t0 = esp32_clock(board), time.monotonic()
    time.sleep(seconds)
    c1, wall = esp32_clock(board), (time.monotonic() - t0) * 1e6
    return {k: (c1[k] - c0[k]) / wall for k in PARTS}, (c1["shim_calls"] - c0["shim_calls"]) * 1e6 / wall


def line(name, runs):
    busy = [sum(s.values()) for s, _ in runs]
    parts = "  ".join(f"{k[:-3]} {statistics.median(s[k] for s, _ in runs) * 100:4.1f} %" for k in PARTS)
    calls = statistics.median(c for _, c in runs)
    return (f"| {name} | {statistics.median(busy) * 100:.1f} % ({min(busy) * 100:.1f}-{max(busy) * 100:.1f}) "
            f"| {parts} | {calls:,.0f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--firmware", type=Path, default=None, help="a firmware/ folder (default: this one)")
    a = ap.parse_args(argv)
    runs = {name: [] for name in (*VARIANTS, "repl")}
    with tempfile.TemporaryDirectory() as tmp, VirtualBoard(baud=0, timing="esp32") as board:
        mpremote(board, "fs", "cp", "-r", str(compile_gulo(tmp, firmware=a.firmware)), ":")
        for _ in range(a.rounds):
            for name, main_py in VARIANTS.items():
                write_file(board, "main.py", main_py.encode())
                with serial.Serial(board.port, 115200, timeout=0.05) as port:
                    _reset_to(board, port, b'"ev": "ready"')
                    time.sleep(1.0)
                    runs[name].append(shares(board, a.seconds))
                    port.write(b"\x03")
                    time.sleep(0.5)
            mpremote(board, "fs", "rm", ":main.py")
            with serial.Serial(board.port, 115200, timeout=0.05) as port:
                _reset_to(board, port, b">>> ")
            time.sleep(0.5)
            runs["repl"].append(shares(board, a.seconds))
    where = f" --firmware {a.firmware}" if a.firmware else ""
    print(f"`.venv/bin/python -m lab.sampler_cpu --seconds {a.seconds:g} --rounds {a.rounds}{where}`\n")
    print("| main.py | ESP32 busy: median (runs) | of it: bytecode, machine calls, I/O | machine calls / s |")
    print("|---|---|---|---|")
    for name in runs:
        print(line(name, runs[name]))


if __name__ == "__main__":
    main()
