# The memory model's session, run by MicroPython's unix port (`micropython -X heapsize=N heaprun.py
# CONFIG.json`, started by lab.heapmodel): the nest firmware as `nest deploy` builds it (.mpy),
# booted as gulo.app.run() boots it, on the virtual board's own shims (machine, neopixel, select,
# the simulated HX711, reed switch and world), on a virtual clock that moves only while the
# firmware waits. A driver plays games through the hardware (buttons, eggs, the pole) and the
# console, as testkit.boardkit does through the board's control channel. The GC here collects
# while the firmware runs and the heap is fixed: an allocation that does not fit raises
# MemoryError in the firmware, which its exception handler reports as a crash.
#
# Output: lines "HM {json}" (figures), and after each "HM-MEMINFO" line the port's
# micropython.mem_info() (the host reads its "max free sz": the largest free block).
import gc
import json
import sys

import micropython

cfg = json.load(open(sys.argv[1]))

import _vbjs  # noqa: E402

_vbjs.hw_config[0] = json.dumps(cfg["hw"])
_vbjs.world_seed[0] = cfg.get("seed", 1)
import _hmtime  # noqa: E402

sys.modules["time"] = _hmtime
import _hmsys  # noqa: E402

sys.modules["sys"] = _hmsys.SYS
import _vbhw  # noqa: E402


def _soft_irq(fn, arg):
    # Pin edges found by _vbhw.service() are handled at once, between two tasks (where the
    # ESP32 would run a micropython.schedule'd soft IRQ): the handlers only set flags.
    if fn is not None:
        fn(arg)


_vbhw._schedule = _soft_irq
import machine  # noqa: E402

_kept = []


def _bitstream(pin, encoding, timing, buf):
    # C on the ESP32 (no heap). A planted leak (cfg "leak": bytes per LED write) makes it a
    # driver that keeps something of every frame it sends: the heap check must catch it.
    if _leak[0]:
        _kept.append(bytearray(_leak[0]))


_leak = [cfg.get("leak", 0)]
machine.bitstream = _bitstream
import _vbselect  # noqa: E402
import neopixel  # noqa: E402, F401  (takes machine.bitstream above)

sys.modules["select"] = _vbselect
import asyncio  # noqa: E402
from asyncio import core  # noqa: E402

_POLLIN, _POLLOUT = 1, 4


def _wait_io_event(self, dt):
    # The loop would block dt ms (-1: until I/O). Virtual time instead: move the clock to the
    # next due task or the next foreseen pin edge (HX711 conversion, pole change), deliver the
    # edges, then look at the flags without waiting. The streams here are the firmware's
    # ThreadSafeFlags (Python objects with ioctl); the port's poll would sleep 1 ms per call for
    # such objects (a real millisecond for every virtual step), so they are asked directly.
    _vbjs.sync()
    if dt != 0:
        step = dt if dt > 0 else 20
        scan = _vbhw.scan_in_ms()
        if scan is not None:
            step = max(1, min(step, scan))
        _vbjs.advance_us(step * 1000)
    _vbhw.service()
    ready = None
    for k in self.map:
        sm = self.map[k]
        ev = sm[2].ioctl(3, _POLLIN | _POLLOUT)  # MP_STREAM_POLL
        if ev:
            if ready is None:
                ready = []
            ready.append((sm, ev))
    if ready is None:
        return
    for sm, ev in ready:  # as core.IOQueue.wait_io_event does with the poller's answers
        s = sm[2]
        if ev & ~_POLLOUT and sm[0] is not None:
            core._task_queue.push(sm[0])
            sm[0] = None
        if ev & ~_POLLIN and sm[1] is not None:
            core._task_queue.push(sm[1])
            sm[1] = None
        if sm[0] is None and sm[1] is None:
            self._dequeue(s)
        elif sm[0] is None:
            self.poller.modify(s, _POLLOUT)
        else:
            self.poller.modify(s, _POLLIN)


core.IOQueue.wait_io_event = _wait_io_event
_SEED = cfg.get("seed", 1)
_PLAYERS = cfg.get("players", 2)
_VARIANT = cfg.get("variant", "standard")
_CONSOLE = [line.encode() for line in cfg["console"]]  # sent in turn, one every LINE_MS
_LINE_MS = cfg.get("line_ms", 1500)
_CHECK_MS = cfg.get("checkpoint_ms", 10000)
_GAME_MAX_MS = 600000               # a game takes ~50 virtual seconds here
_BUTTON = cfg["hw"]["buttons"]     # "REVEAL" -> GPIO, from firmware/gulo/board.py
_PICK_BUTTON = {"reveal": "REVEAL", "G": "GREEN", "Y": "YELLOW", "R": "RED", "B": "BLUE"}


def report(**fields):
    print("HM", json.dumps(fields))


def checkpoint(what, base, **extra):
    """The heap now, its garbage collected: in use (the harness's own share taken off), free,
    and the largest free block (mem_info's "max free sz", read by the host)."""
    gc.collect()
    report(what=what, t_ms=_vbjs.world_ms(), alloc=gc.mem_alloc() - base, free=gc.mem_free(),
           **extra)
    print("HM-MEMINFO")
    micropython.mem_info()


def now_ms():
    return _vbjs.world_ms()  # the world's time: what its actions are scheduled in


def settle_world(w):
    """Forget the world's finished actions, their masses folded into its base load (creep, under
    0.2 % of a change, is dropped): they would pile up over a session, and they are the
    simulator's memory, not the firmware's. Done in place, so the simulator does not scatter new
    objects among the firmware's at every turn."""
    for a in w.actions:
        w.base += a.dm
    del w.actions[:]
    del w.truth[:]
    del w._pole_changes[:]
    w._reset_cache()


def best_pick(game):
    # as testkit.boardkit: reveal while a tile is face down, else the colour ahead that goes furthest
    if game.can_reveal():
        return "reveal"
    pos = game.position()
    best, reach = None, -1
    for c in game.colours_ahead():
        k = game.path.index(c, pos) + 1
        if k > reach:
            best, reach = c, k
    return best


async def until(cond, ms):
    end = now_ms() + ms
    while not cond() and now_ms() < end:
        await asyncio.sleep_ms(20)


async def driver(nest, base, games):
    from gulo.turnflow import ATTEMPT, PICK, SETTLE, WON
    flow = nest.flow
    played = turns = attempts = lines = 0
    next_line = now_ms() + _LINE_MS
    next_check = now_ms() + _CHECK_MS
    _vbjs.console.append(b'{"cmd": "new", "players": %d, "variant": "%s", "seed": %d}\n'
                         % (_PLAYERS, _VARIANT, _SEED))
    game_start = now_ms()
    while played < games:
        t = now_ms()
        if t - game_start > _GAME_MAX_MS:  # a game that does not move on: say so, do not spin
            report(what="stuck", t_ms=t, games=played, turns=turns, phase=flow.phase, prompt=flow.prompt)
            break
        if t >= next_line:
            _vbjs.console.append(_CONSOLE[lines % len(_CONSOLE)])
            lines += 1
            next_line = t + _LINE_MS
        if t >= next_check:
            checkpoint("during", base, games=played, turns=turns)
            next_check = now_ms() + _CHECK_MS
        world = _vbhw._world
        phase = flow.phase
        if phase == PICK:
            if world.actions and world.pole_seated and world.busy_until() < t:
                settle_world(world)
            pin = _BUTTON[_PICK_BUTTON[best_pick(flow.game)]]
            _vbjs.press(pin, 0)
            await until(lambda: flow.phase != PICK, 1000)
            _vbjs.press(pin, None)
            turns += 1
        elif phase == ATTEMPT and world.busy_until() < t:
            colour = flow.game.demand
            attempts += 1
            if not world.nest.get(colour):
                # the nest and the game disagree (an egg judged as another): every egg back
                world.pour_back(t)
            elif not world.pole_seated:
                world.seat_pole(t)
            elif attempts % 7 == 0:
                world.knock_pole(t)          # an EGG ALARM now and then
            elif attempts % 2:
                world.take(t, colour, "steady")
            else:
                world.drop(t, colour)        # an egg that rolls out: the quickest clean egg
            await until(lambda: flow.phase != ATTEMPT, 5000)
        elif phase == SETTLE and world.busy_until() < t:
            # as testkit.boardkit.remedy: the nest uncalibrated, a game under way is taken up on
            # the family's word (every egg back, then Reveal), then its eggs asked out by name
            prompt = flow.prompt or ""
            if not world.pole_seated:
                world.seat_pole(t)
            elif prompt.startswith("pour every egg back"):
                if any(world.nest[c] < world.full[c] for c in world.full):
                    world.pour_back(t)
                await until(lambda w=world: w.busy_until() < now_ms(), 5000)
                await asyncio.sleep_ms(500)     # the pouring hand has left
                pin = _BUTTON["REVEAL"]
                _vbjs.press(pin, 0)
                await asyncio.sleep_ms(300)
                _vbjs.press(pin, None)
            elif "eggs" in prompt:
                want, have = flow.game.nest, world.nest
                if any(have[c] < want[c] for c in want):
                    world.pour_back(t, {c: want[c] - have[c] for c in want if have[c] < want[c]})
                else:
                    at = t
                    for c in want:
                        for _ in range(have[c] - want[c]):
                            world.drop(at, c)
                            at += 500
            await asyncio.sleep_ms(200)
        elif phase == WON:
            played += 1
            checkpoint("game", base, games=played, turns=turns)
            if world.busy_until() < t:
                world.pour_back(t)
            await until(lambda w=world: w.busy_until() < now_ms(), 5000)
            _vbjs.console.append(b'{"cmd": "new", "players": %d, "variant": "%s", "seed": %d}\n'
                                 % (_PLAYERS, _VARIANT, _SEED + played))
            await until(lambda: flow.phase != WON, 3000)
            archived = nest.store.logs()
            if archived:  # an archive read: the won game's whole log, as `nest logs pull` asks
                _vbjs.console.append(b'{"cmd": "log", "name": "%s"}\n' % archived[-1].encode())
            game_start = now_ms()
        await asyncio.sleep_ms(50)
    return turns, lines


async def session(app, nest, base):
    asyncio.create_task(app.main(nest))
    await asyncio.sleep_ms(1000)  # every task started and run for a second, as HEAP_BOOT does
    checkpoint("boot", base)
    turns, lines = await driver(nest, base, cfg["games"])
    checkpoint("end", base, games=cfg["games"], turns=turns, lines=lines)


def main():
    gc.collect()
    base = gc.mem_alloc()  # the harness, the shims and the world: not the firmware's
    report(what="harness", alloc=base, total=gc.mem_alloc() + gc.mem_free())
    if cfg.get("imports"):
        # each gulo module imported alone (after the ones it needs), as lab/heap_report.py
        # does on the WebAssembly VM: the word ratio's second, independent state
        import gulo  # noqa: F401
        checkpoint("import", base, module="")
        for name in cfg["imports"]:
            __import__("gulo." + name)
            checkpoint("import", base, module=name)
        return
    import gulo.app as app

    nest = app.Nest(cfg["data"])
    checkpoint("built", base)
    if cfg["games"] < 0:  # a probe: the boot figure only
        return
    asyncio.run(session(app, nest, base))
    report(what="done")


main()
