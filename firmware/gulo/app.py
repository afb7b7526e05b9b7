# The nest's application: the asyncio tasks that join the hardware to the turn flow, the console
# and the flash. Skeleton after peterhinch's asyncio tutorial: everything is built in run(), every
# task started with create_task, one exception handler (a crash is reported and the board resets:
# the game resumes from flash), asyncio.run(main), and a fresh event loop in `finally`.
#
# Tasks (each small, none blocks; idle, only the sampler (10-94/s) wakes often):
#   sampler   looks at the HX711's DOUT about when a conversion is due (10-94/s), feeds
#             centigrams to the flow (and the weigher in it); a silent HX711 is a fault
#   pole      woken by the reed IRQ's flag, confirms the state after 20 ms of calm (one sleep)
#   buttons   woken by the buttons' IRQ flag, sleeps out the calm of the one settling, and polls
#             every 10 ms while Menu is held (a long press undoes the last verdict:
#             gulo.debounce.LONG_PRESS_MS)
#   ticker    closes the flow's confirmation window on time, even with no samples; sleeps otherwise
#   lights    redraws the LED view when the flow changes, at ~30 fps only while something moves
#             (an action's first picture is drawn by Nest.handle itself, before its report);
#             waiting for a blink, it looks for a change once a frame
#   sound     follows the current tune on the buzzer PWM (a tune's first note is written by
#             Nest.play itself); sleeps while nothing plays
#   console   JSON lines in on the USB serial, woken by the bytes; everything that happens goes
#             out as JSON lines
#   watchdog  feeds the WDT only while the sampler shows signs of life
#
# Every IRQ handler (the reed's, the buttons') only sets a flag (gulo.debounce); the work is
# done in the tasks.

import asyncio
import gc
import json
import os
import select
import sys
import time

import machine
from micropython import const

from gulo import sounds
from gulo.clock import Clock
from gulo.debounce import Hold
from gulo.gamestore import GameStore, Settings, calibration_ok
from gulo.hx711 import DEFAULT_COUNTS_PER_G, HX711Fault, Scale, Silence
from gulo.ledview import FRAME_MS, LedView, brightness_cap
from gulo.nestfault import NestWatch
from gulo.peripherals import Peripherals
from gulo.rules import Game
from gulo.turnflow import CONFIRM, WON, TurnFlow
from gulo.vocab import MAX_LINE as _MAX_LINE  # longer input is refused unread
from gulo.vocab import setting_ok
from gulo.weigher import DEFAULT_MASSES, Weigher

# The settings' defaults (config.json, calib.json on flash).
CONFIG = {"players": 2, "variant": "standard", "volume": 50, "brightness": 100}
# tare_pole: the reed at the tare (None: never tared by this firmware, the zero is not trusted)
CALIBRATION = {"offset": 0, "counts_per_g": DEFAULT_COUNTS_PER_G, "masses": DEFAULT_MASSES,
               "tare_pole": None}


_WDT_MS = const(8000)
# The writer waits at most this long (ms) for the lights and the buzzer to show an action before
# it writes the action to flash anyway (the lights redraw in one pass: ~3 ms for 25 LEDs at
# 30 us each, WS2812B datasheet; the sound task follows its tune every 5 ms).
_WRITE_WAIT_MS = const(100)
# How often the buttons task looks at a Menu held down (a long press: gulo.debounce.LONG_PRESS_MS).
_HOLD_POLL_MS = const(10)


class Nest:
    # Annotations without a value (MicroPython compiles them to nothing): for the type-checker,
    # which cannot tell from __init__'s None what else these hold.
    fault: str | None
    last_cg: int | None

    def __init__(self, data="/data", hw=None):
        """Everything the tasks use, once per boot: the flash (storage, settings, calibration),
        the game on flash resumed or a new one dealt, the hardware brought up (`hw`: given by a
        test, else built from the pin map)."""
        self.clock = Clock()
        self.hw = hw or Peripherals(time, self.clock.now())
        self.store = GameStore(data)
        # Settings are written like the game: a full flash is a reported fault, not an exception.
        self.config = Settings(data + "/config.json", CONFIG, self.store, setting_ok)
        self.calib = Settings(data + "/calib.json", CALIBRATION, self.store, calibration_ok)
        self.storage_shown = None
        self.scale = Scale(self.calib.values["counts_per_g"], self.calib.values["offset"])
        self.view = LedView(cap=brightness_cap(self.config.values["brightness"]))
        self.tune = sounds.Tune()
        self.fault = None          # the HX711 fault being shown, or None
        self.watch = NestWatch()   # the nest's own fault: never at rest, or a noisy cell
        self.last_cg = None   # the last sample, centigrams
        self.sampler_ran = False  # since the watchdog's last feed
        self.wdt_started = False
        self.line = bytearray()
        # Wake-ups for the tasks that sleep until there is something to do.
        self.redraw = asyncio.Event()    # the flow changed: the lights draw it
        self.timed = asyncio.Event()     # the flow may have a deadline: the ticker keeps it
        self.sounding = asyncio.Event()  # a tune started
        self.writing = asyncio.Event()   # actions queued: the writer puts them on flash
        self.buzzing = 0                 # Hz the buzzer plays now (Nest.buzz)
        self.shown = bytearray(len(self.view.buf))  # what the strip shows (Nest.draw)
        self.drawn_once = False
        self.cal = None  # the gulo.calibration.Calibration made by the first calibration command
        game, problem = self.store.resume()
        for p in (problem, self.config.problem, self.calib.problem):
            if p:
                self.emit({"ev": "fault", "what": "storage", "detail": p})
        for event in self.store.recovered:
            self.emit(event)
        resumed = game is not None
        if game is None:
            game = self.deal(self.config.values["players"], self.config.values["variant"])
        self.flow = TurnFlow(game, Weigher(self.calib.values["masses"]), self.calib.values["tare_pole"],
                             self.hw.reed.state)
        self.emit({"ev": "ready", "resumed": resumed, "state": game.state()})

    # ---- output ----------------------------------------------------------------------------------

    def emit(self, obj):
        print(json.dumps(obj))

    def handle(self, notes, t_ms):
        """Carry out what the flow said: the buzzer and the LEDs are written here, in this call,
        before any console line, any JSON and any flash write (the sound and lights tasks only
        follow the tune and the animation afterwards: waiting for their turn put the other tasks'
        steps, and this call's own reports, between the pole and the siren: lab/alarm_profile.py,
        docs/firmware-budgets.md). Then the report, then the actions queued for the writer task,
        which puts them on flash once the siren and the LEDs have run: a flash write (an append,
        or a block erase on littlefs: 45 ms typ., W25Q32JV tSE) never stands between the pole and
        the alarm. A power cut loses at most the action in flight."""
        for note in notes:
            tune = sounds.for_note(note)
            if tune:
                self.play(tune, t_ms)
        if notes:
            self.draw(t_ms)
            self.changed()
        for note in notes:
            if "action" in note:
                self.emit({"ev": "action", "action": note["action"], "outcome": note["outcome"]})
                self.emit({"ev": "state", "state": self.flow.game.state()})
                self.store.record(note["action"], t_ms)
                if self.flow.phase == WON:
                    self.store.close()  # archived by the writer after the last line
                self.writing.set()
            elif "undo" in note:
                # The players undid the last verdict (and the picks after it): those lines leave
                # the log together, in one atomic rewrite.
                self.store.drop_last(note["undo"])
                self.emit({"ev": "undo", "outcome": note["outcome"]})
                self.emit({"ev": "state", "state": self.flow.game.state()})
            elif "new_game" in note:
                ng = note["new_game"]
                self.start_game(ng["players"], ng["variant"], None, t_ms)
            else:
                self.emit({"ev": "note", "note": note})

    def changed(self):
        """The flow (or what the LEDs show) may have changed: wake the lights and the ticker."""
        self.redraw.set()
        self.timed.set()
        self.storage()

    def storage(self):
        """Report what the last writes to flash did: files deleted to make room, a write that
        failed (the flash full: the game goes on in RAM) and when writing works again."""
        store = self.store
        freed = store.take_freed()
        if freed:
            self.emit({"ev": "storage", "freed": freed})
        if store.problem != self.storage_shown:
            self.storage_shown = store.problem
            if store.problem:
                self.emit({"ev": "fault", "what": "storage", "detail": store.problem})
            else:
                self.emit({"ev": "fault_cleared", "what": "storage"})

    def use_calibration(self, cal):
        """The first calibration command's gulo.calibration.Calibration: it stands in for the
        scale from now on, so its measurements see every raw sample (same grams(raw))."""
        self.cal = self.scale = cal

    def play(self, tune, t_ms):
        """Start a tune: its first note is on the buzzer when this returns (the sound task, woken,
        follows the rest)."""
        self.tune.play(tune, t_ms)
        self.buzz(t_ms)
        self.sounding.set()

    def buzz(self, t_ms):
        """The buzzer set to what the tune says at t_ms (the PWM written only on a change);
        returns that frequency (0: silent). Allocates nothing (firmware/tests/test_alarm_path.py)."""
        f = self.tune.freq_at(t_ms)
        if f != self.buzzing:
            pwm = self.hw.buzzer
            if f:
                pwm.freq(f)
                pwm.duty_u16(self.config.values["volume"] * 327)  # 100 -> half duty: loudest
            else:
                pwm.duty_u16(0)
            self.buzzing = f
        return f

    def draw(self, t_ms):
        """The LED view of the flow at t_ms onto the strip, if it changed since the last one
        written. Allocates nothing (firmware/tests/test_alarm_path.py)."""
        buf = self.view.render(self.flow, t_ms)
        if self.drawn_once and buf == self.shown:
            return
        self.hw.show(buf)
        self.shown[:] = buf
        self.drawn_once = True

    def deal(self, players, variant, seed=None):
        """A new Game, with its set-up line written to flash (seed None: a fresh one from the
        chip's id and the time)."""
        if seed is None:
            seed = int.from_bytes(machine.unique_id(), "little") ^ time.ticks_diff(time.ticks_us(), 0)
            seed &= 0x3FFFFFFF
        game = Game.new(players, variant, seed)
        self.store.start(game, seed)
        return game

    def start_game(self, players, variant, seed, t_ms):
        """Archive the running game and start a new one (seed None: a fresh one); the settings
        remember the players and the variant; the flow waits for a full nest before the first
        turn. From the menu and from the console."""
        self.store.finish()
        game = self.deal(players, variant, seed)
        self.config.values["players"] = players
        self.config.values["variant"] = variant
        self.config.save()
        self.handle(self.flow.new_game(game, t_ms), t_ms)
        self.emit({"ev": "state", "state": game.state()})

    # ---- tasks -------------------------------------------------------------------------------------

    async def sampler(self, silence):
        # Looks at DOUT when Silence.look_in_ms says (a conversion is ready once it has fallen),
        # on a sleep, not on DOUT's interrupt: asyncio wakes a task on an interrupt only through
        # a ThreadSafeFlag, whose every wait allocates (a generator, the IO queue's entry and the
        # poller's record: extmod/asyncio/event.py, core.py IOQueue._enqueue, extmod/modselect.c
        # poll_set_add_obj), 80-94 times a second; sleep_ms allocates nothing (core.py's
        # SingletonGenerator). A silent HX711 is found by the same looks.
        hx = self.hw.hx
        while True:
            self.sampler_ran = True
            now = self.clock.now()
            if hx.ready():
                silence.heard(now)
                self._conversion(hx, now)
            elif silence.over(now):
                self._hx_fault("no answer from the HX711 (unplugged?)", now)
            await asyncio.sleep_ms(silence.look_in_ms(self.clock.now()))

    def _conversion(self, hx, now):
        # A conversion is waiting (the look found DOUT low): read it and give it to the flow (and
        # the weigher in it).
        try:
            raw = hx.take()
        except HX711Fault as e:  # a saturated reading. Only the driver's own fault: any other
            self._hx_fault(str(e), now)  # exception is a bug, for the crash handler (_crash)
            return
        if raw is None:
            return   # one of the reads discarded after the power-up
        if self.fault:
            self.fault = None
            self.emit({"ev": "fault_cleared", "what": "hx711"})
        cg = self.scale.centigrams(raw)   # no float: nothing allocated at rest
        self.last_cg = cg
        self.handle(self.flow.sample_cg(now, cg), now)
        if self.watch.check(self.flow.weigher, now):
            self._nest_fault(now)

    def _nest_fault(self, now):
        # The nest cannot weigh (gulo.nestfault), or can again: said like the HX711's faults.
        detail = self.watch.detail()
        if detail:
            self.emit({"ev": "fault", "what": "nest", "detail": detail})
            self.play("nope", now)
        else:
            self.emit({"ev": "fault_cleared", "what": "nest"})

    def _hx_fault(self, detail, now):
        if self.fault != detail:
            self.fault = detail
            self.emit({"ev": "fault", "what": "hx711", "detail": detail})
            self.play("nope", now)

    async def pole(self, flag):
        # Asleep until the reed's IRQ; then a poll at once (the calm starts at the edge, not a
        # poll period later) and one sleep for the rest of the calm, not a poll every few ms:
        # each wake-up is a pass of the event loop, and any task's step may come before it.
        reed = self.hw.reed
        while True:
            if not reed.settling():
                await flag.wait()
            now = self.clock.now()
            seated = reed.poll(now)
            if seated is not None:
                self.handle(self.flow.pole(seated, now), now)
            elif reed.settling():
                await asyncio.sleep_ms(reed.calm_left(now))

    async def buttons(self, flag):
        buttons = self.hw.buttons
        held = Hold()  # Menu held for LONG_PRESS_MS: the players undo the last verdict
        while True:
            # Asleep until an edge on any button; then polled at once, and again when the
            # soonest calm is over (the debouncer wants 20 ms of calm before it confirms a
            # press), or every 10 ms while Menu is held down.
            await flag.wait()
            settling = True
            while settling:
                now = self.clock.now()
                settling = False
                wait = _HOLD_POLL_MS
                for name, b in buttons:
                    pressed = b.poll(now)
                    if pressed is True:
                        self.handle(self.flow.button(name, now), now)
                    if name == "menu":
                        if pressed is not None:
                            held.change(pressed, now)
                        if held.poll(now):
                            self.handle(self.flow.menu_held(now), now)
                        settling = settling or held.waiting()
                    if b.settling():
                        settling = True
                        wait = min(wait, b.calm_left(now))
                if settling:
                    await asyncio.sleep_ms(wait)

    async def ticker(self):
        # Samples already let time pass for the flow 10-94 times a second (TurnFlow.sample ticks
        # it); this ends the attempt on time even while the HX711 is silent.
        while True:
            self.timed.clear()
            flow = self.flow
            if flow.phase != CONFIRM:
                await self.timed.wait()
                continue
            now = self.clock.now()
            left = flow.due_in(now)
            if left:
                await asyncio.sleep_ms(left)
                continue
            self.handle(flow.tick(now), now)

    async def lights(self):
        view = self.view
        while True:
            self.redraw.clear()
            now = self.clock.now()
            self.draw(now)  # (handle has drawn an action's picture already: this one is the same)
            ms = view.still_ms(self.flow, now)
            if ms is None:
                await self.redraw.wait()  # still until the flow changes
                continue
            # The next frame or blink, or sooner if the flow changes (an action, which handle has
            # drawn already, or a console command): the frames follow from it. Looked at once a
            # frame, on sleeps: a wait on the event with a timeout (wait_for_ms) allocates a task
            # and its runner on every blink (extmod/asyncio/funcs.py), a sleep nothing.
            while ms > 0 and not self.redraw.is_set():
                step = min(ms, FRAME_MS)
                await asyncio.sleep_ms(step)
                ms -= step

    async def sound(self):
        while True:
            f = self.buzz(self.clock.now())
            if not f and not self.tune.steps:
                self.sounding.clear()
                await self.sounding.wait()  # silent until the next tune
            else:
                await asyncio.sleep_ms(5)

    async def console(self):
        # Bytes, not text: a stray byte that is not UTF-8 must be refused like any garbage
        # (console.parse says so), not raise UnicodeError out of a text read and stop the app.
        # One line per pass, then the other tasks run: a burst of lines (1,000 in one write)
        # would otherwise keep this loop busy until the watchdog reset the board. What has not
        # been read waits in the port's own bounded buffer (the ESP32's stdin ring: 260 bytes,
        # micropython ports/esp32/mphalport.c, stdin_ringbuf_array; more is dropped there).
        # Asleep between lines in asyncio's IO queue until the line brings a byte (a StreamReader
        # over stdin, as micropython-lib's aiorepl reads it), not woken every few ms to look.
        stdin = sys.stdin.buffer
        poller = select.poll()
        poller.register(stdin, select.POLLIN)
        woken = asyncio.StreamReader(stdin)
        first = None
        while True:
            line = self._read_line(poller, stdin, first)
            first = None
            if line is None:
                first = await woken.read(1)
                continue
            # The firmware's one on-demand import: the console's code (gulo.commands with the
            # parser and the calibration) comes with the first line, not at boot: they hold about
            # 12 KB of heap (their rows of `.venv/bin/python -m lab.heap_report --games 0`), which
            # at boot would put the heap after boot further over its budget of 55,968 B
            # (docs/firmware-budgets.md, "What is loaded when").
            from gulo.commands import command

            command(self, line)
            self.changed()  # a command may change the game, the flow or the LEDs (brightness)
            await asyncio.sleep_ms(0)  # every other task that is ready runs before the next line

    def _read_line(self, poller, stdin, ch=None):
        """The next whole console line (bytes), or None once nothing more is waiting; `ch`: a
        byte read already. Reads at most one line's worth (bytes past _MAX_LINE are dropped: the
        line is refused as too long), so one pass is bounded whatever arrives."""
        for _ in range(_MAX_LINE + 2):
            if ch is None:
                if not poller.poll(0):
                    return None
                ch = stdin.read(1)
            if ch in (b"\n", b"\r"):
                if self.line:
                    line = bytes(self.line)
                    self.line = bytearray()
                    return line
            elif len(self.line) <= _MAX_LINE:
                self.line.extend(ch)
            ch = None
        return None

    async def writer(self):
        # The game log's writer: woken by handle once actions are queued, it lets the sound and
        # the lights (which handle woke first) show the action before the flash write
        # (gulo.gamestore.GameStore.flush), so the write never delays the siren or the LEDs.
        while True:
            await self.writing.wait()
            self.writing.clear()
            # Until the lights task has drawn the change (it clears `redraw` in the pass that
            # shows it) and the buzzer plays what the tune says, bounded: a stuck task never
            # keeps the game off flash for more than _WRITE_WAIT_MS.
            for _ in range(_WRITE_WAIT_MS):
                if not self.redraw.is_set() and self.buzzing == self.tune.freq_at(self.clock.now()):
                    break
                await asyncio.sleep_ms(1)
            self.store.flush()
            self.storage()

    async def watchdog(self):
        wdt = machine.WDT(timeout=_WDT_MS)
        self.wdt_started = True
        while True:
            # Fed only if the sampler ran since the last feed. It is the task that runs at least
            # once a second whatever happens (it looks at DOUT at least every SILENCE_MAX_MS:
            # gulo.hx711), and one task stuck in a loop stops them all (the scheduler is
            # cooperative): its beat stands for every task. No beat, no feed: the board resets.
            if self.sampler_ran:
                wdt.feed()
                self.sampler_ran = False
            await asyncio.sleep_ms(1000)


def _report(e):
    """A crash as one JSON line, its traceback after it."""
    print(json.dumps({"ev": "crash", "error": repr(e)}))
    if e is not None:
        sys.print_exception(e)


def _crash(loop, context):
    """The one exception handler of every task (peterhinch's asyncio tutorial, "set_global_
    exception"): the crash goes out as one JSON line (its traceback after it) and the board
    resets, so main.py boots again and the game resumes from flash, where every action is."""
    try:
        _report(context.get("exception"))
    finally:
        machine.reset()  # even if the report itself fails (a MemoryError leaves little heap)


# A start that failed (Nest() raised) is remembered here until the next start, so that a second
# failure in a row ends in safe mode instead of a reset loop. /.nest holds the nest's own files
# (gulo.gamestore, nest deploy's journal): never firmware, never game data.
_START_FAILED = "/.nest/start-failed"


def _start_failed(e):
    """Nest() raised, before the tasks and their handler (_crash) exist: the crash goes out as
    the handler's line would. The first time the board resets, as after any crash (a fault of the
    moment passes, the game resumes); when the start after that fails too, the board stays at the
    REPL in safe mode, as with Menu held at boot (main.py): mpremote and `nest deploy` reach it."""
    try:
        _report(e)
    except Exception:  # noqa: BLE001 - a report that fails (no heap) must not decide the rest
        pass
    why = _remember_failure()
    if why is None:
        machine.reset()
    print(json.dumps({"ev": "safe_mode", "why": why}))


def _remember_failure():
    """None once this failure is remembered (the board may reset); else why it must not reset:
    the start before failed too (the note is removed, so EN tries again), or nothing can be
    written to remember it (a reset could then loop)."""
    try:
        os.stat(_START_FAILED)
    except OSError:
        try:
            try:
                os.mkdir("/.nest")
            except OSError:
                pass  # there already
            with open(_START_FAILED, "w"):
                pass
            return None
        except OSError as e:
            return "the app failed to start, and the flash cannot remember it: %r" % (e,)
    _started()
    return "the app failed to start twice in a row"


def _started():
    try:
        os.remove(_START_FAILED)
    except OSError:
        pass  # the usual case: the start before did not fail


async def main(nest):
    asyncio.get_event_loop().set_exception_handler(_crash)
    reed, buttons = asyncio.ThreadSafeFlag(), asyncio.ThreadSafeFlag()
    nest.hw.arm(reed, buttons)  # IRQ handlers that only set these flags
    # Each task on its own (create_task), none awaited: an exception a task raises reaches the
    # handler above. (Under asyncio.gather it went to the gather instead, which ended the app
    # and left the board at the REPL with no game.)
    silence = Silence(nest.clock.now())  # the HX711 was powered up in Nest()
    for task in (nest.sampler(silence), nest.pole(reed),
                 nest.buttons(buttons), nest.ticker(), nest.lights(), nest.sound(), nest.console(),
                 nest.writer(), nest.watchdog()):
        asyncio.create_task(task)
    await asyncio.Event().wait()  # never set: the tasks run until a reset or Ctrl-C


def run(data="/data"):
    nest = None
    try:
        try:
            nest = Nest(data)
        except Exception as e:  # noqa: BLE001 - every failure to start takes the crash path
            _start_failed(e)
            return
        _started()
        gc.collect()
        asyncio.run(main(nest))
    except KeyboardInterrupt:
        print(json.dumps({"ev": "stopped"}))
    finally:
        if nest is not None:
            nest.hw.deinit()
            if nest.wdt_started:
                # The ESP32's watchdog cannot be stopped, only slowed: give the REPL a day.
                machine.WDT(timeout=24 * 3600 * 1000)
        asyncio.new_event_loop()
