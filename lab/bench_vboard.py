"""Benchmarks of the virtual board, for docs/virtual-board.md (not tests: figures depend on the host).

    .venv/bin/python -m lab.bench_vboard [--repeat N]
    .venv/bin/python -m lab.bench_vboard --idle-vs REV [--seconds S] [--rounds N]

Prints: start to REPL prompt, CPU share of an idle asyncio app (of one reading the HX711 at 80 SPS,
and of the nest firmware itself), and 50 KB `mpremote fs cp` times each way at 115200 baud and
unthrottled. `--idle-vs REV` only compares the idle CPU of the firmware in the working tree with
the firmware of git revision REV, measured alternately in the same run (firmware_idle_cpu()).
These are the simulator's own costs on this machine, so its boards run with host timing
(`--timing esp32` to see them with the ESP32 clock's pacer on).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import serial

from nest.appboard import FIRMWARE, start_app_board
from nest.vboard import VirtualBoard

MPREMOTE = Path(sys.executable).with_name("mpremote")
TIMING = "host"  # --timing
IDLE_APP = """import asyncio
async def blink():
    while True:
        await asyncio.sleep_ms(500)
async def main():
    asyncio.create_task(blink())
    while True:
        await asyncio.sleep(1)
asyncio.run(main())
"""
HX711_APP = """import asyncio
from machine import Pin
from gulo_board import HX711_SCK, HX711_DOUT
sck = Pin(HX711_SCK, Pin.OUT, value=0)
dout = Pin(HX711_DOUT[0], Pin.IN)
def read():
    v = 0
    for _ in range(25):
        sck(1)
        sck(0)
        v = (v << 1) | dout()
    return v >> 1
async def weigh():
    while True:
        if dout() == 0:
            read()
        await asyncio.sleep_ms(12)
asyncio.run(weigh())
"""


def cpu_s(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mp(board, *args):
    subprocess.run([str(MPREMOTE), "connect", board.port, *args], check=True, capture_output=True,
                   timeout=300)


def start_to_prompt():
    t0 = time.monotonic()
    with VirtualBoard(baud=115200, timing=TIMING) as board:
        with serial.Serial(board.port, 115200, timeout=0.05) as port:
            port.write(b"\r")
            seen = b""
            while b">>> " not in seen:
                seen += port.read(64)
        return time.monotonic() - t0


def idle_cpu_share(app, seconds=10.0):
    with tempfile.TemporaryDirectory() as tmp:
        main = Path(tmp) / "main.py"
        main.write_text(app)
        board_py = Path(__file__).resolve().parent.parent / "firmware" / "gulo" / "board.py"
        with VirtualBoard(baud=0, timing=TIMING) as board:
            mp(board, "fs", "cp", str(board_py), ":gulo_board.py")
            mp(board, "fs", "cp", str(main), ":main.py")
            board.control.reset()  # boots into main.py
            time.sleep(1.0)
            c0, t0 = cpu_s(board.proc.pid), time.monotonic()
            time.sleep(seconds)
            return (cpu_s(board.proc.pid) - c0) / (time.monotonic() - t0)


def firmware_cpu_share(seconds=10.0, root=None):
    """The nest firmware itself (firmware/main.py + gulo/), idle at the start of a game: CPU
    seconds of the board's node process per wall second. `root`: another firmware folder."""
    with tempfile.TemporaryDirectory() as tmp:
        board = start_app_board(Path(tmp) / "flash", firmware=root or FIRMWARE, baud=0, timing=TIMING)
        try:
            board.control.reset()
            time.sleep(3.0)
            c0, t0 = cpu_s(board.proc.pid), time.monotonic()
            time.sleep(seconds)
            return (cpu_s(board.proc.pid) - c0) / (time.monotonic() - t0)
        finally:
            board.stop()


def firmware_at(rev, dest):
    """Extract firmware/ of git revision `rev` into `dest`; returns the firmware folder."""
    repo = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "firmware"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return Path(dest) / "firmware"


def firmware_idle_cpu(rev, seconds=10.0, rounds=2):
    """Idle CPU share of the working tree's firmware and of revision `rev`'s, measured turn about
    (old, new, old, new, ...) so host load hits both alike. Returns (old shares, new shares)."""
    old, new = [], []
    with tempfile.TemporaryDirectory() as tmp:
        old_root = firmware_at(rev, tmp)
        for _ in range(rounds):
            old.append(firmware_cpu_share(seconds, old_root))
            new.append(firmware_cpu_share(seconds))
    return old, new


def transfer_times(baud, size=50 * 1024):
    with tempfile.TemporaryDirectory() as tmp:
        src, back = Path(tmp) / "blob.bin", Path(tmp) / "back.bin"
        blob = os.urandom(size)
        src.write_bytes(blob)
        with VirtualBoard(baud=baud, timing=TIMING) as board:
            t0 = time.monotonic()
            mp(board, "fs", "cp", str(src), ":blob.bin")
            t1 = time.monotonic()
            mp(board, "fs", "cp", ":blob.bin", str(back))
            t2 = time.monotonic()
        assert back.read_bytes() == blob, "round trip not byte-exact"
        return t1 - t0, t2 - t1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="start-up measurements (median reported)")
    ap.add_argument("--idle-vs", metavar="REV", help="only: idle firmware CPU, working tree vs REV")
    ap.add_argument("--seconds", type=float, default=10.0, help="idle measurement length")
    ap.add_argument("--rounds", type=int, default=2, help="idle measurements per firmware")
    ap.add_argument("--timing", default="host", choices=("esp32", "esp32-worst", "host"),
                    help="the boards' timing (default: %(default)s)")
    args = ap.parse_args()
    global TIMING
    TIMING = args.timing
    if args.idle_vs:
        old, new = firmware_idle_cpu(args.idle_vs, args.seconds, args.rounds)
        o, n = statistics.median(old), statistics.median(new)
        print(f"nest firmware idle, {args.rounds} x {args.seconds:.0f} s each, node process CPU:")
        print(f"  {args.idle_vs}: {o * 100:.1f} % of one core ({', '.join(f'{x * 100:.1f}' for x in old)})")
        print(f"  working tree: {n * 100:.1f} % of one core ({', '.join(f'{x * 100:.1f}' for x in new)})")
        print(f"  ratio new/old: {n / o:.2f}")
        return
    starts = [start_to_prompt() for _ in range(args.repeat)]
    print(f"start to REPL prompt: median {statistics.median(starts) * 1000:.0f} ms "
          f"(min {min(starts) * 1000:.0f}, max {max(starts) * 1000:.0f}, n={len(starts)})")
    print(f"idle asyncio app: {idle_cpu_share(IDLE_APP) * 100:.1f} % of one core (node process, 10 s)")
    share = idle_cpu_share(HX711_APP)
    print(f"asyncio app reading the HX711 at 80 SPS: {share * 100:.1f} % of one core")
    print(f"the nest firmware (main.py, gulo.app) idle: {firmware_cpu_share() * 100:.1f} % of one core")
    for baud in (115200, 0):
        up, down = transfer_times(baud)
        name = f"{baud} baud" if baud else "unthrottled"
        print(f"50 KB mpremote fs cp at {name}: to board {up:.1f} s, back {down:.1f} s")


if __name__ == "__main__":
    main()
