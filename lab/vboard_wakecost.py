"""The host CPU one asyncio pass of the firmware costs on the virtual board: after a sleep to the
tick (`sleep_ms(1)`, `sleep_ms(20)`) against back to back (`sleep_ms(0)`), per pass, from the
ESP32 clock's counters ({"op":"timing"}). What the board's WAKE_US rests on (docs/virtual-board.md,
"ESP32 timing"): `firmware_host_us` is charged, `cold_host_us` is what the wake rule took off.

    .venv/bin/python -m lab.vboard_wakecost [--passes 100] [--timing esp32|host]
"""

import argparse

from nest.vboard import VirtualBoard
from testkit.vboard_fixtures import mpremote

LOOP = """import asyncio
async def main(ms, n):
    for _ in range(n):
        await asyncio.sleep_ms(ms)
asyncio.run(main(MS, N))
"""
COUNTERS = ("firmware_host_us", "cold_host_us", "shim_host_us", "slept_us", "stalled_us")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=100)
    ap.add_argument("--timing", default="esp32", choices=("esp32", "host"))
    a = ap.parse_args(argv)
    board = VirtualBoard(baud=0, timing=a.timing).start()
    try:
        for ms in (0, 1, 0, 1, 20, 0, 1):
            before = board.board_request({"op": "timing"})["clock"]
            mpremote(board, "exec", LOOP.replace("MS", str(ms)).replace("N", str(a.passes)))
            after = board.board_request({"op": "timing"})["clock"]
            per = {k: round((after.get(k, 0) - before.get(k, 0)) / a.passes, 1) for k in COUNTERS}
            print(f"sleep_ms({ms}): per pass {per}", flush=True)
    finally:
        board.stop()


if __name__ == "__main__":
    main()
