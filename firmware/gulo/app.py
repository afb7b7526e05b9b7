# The nest's application: the asyncio tasks that join the hardware to the turn flow, the console
# and the flash. Skeleton after peterhinch's asyncio tutorial: everything is built in run(), one
# exception handler, asyncio.run(main), and a fresh event loop in `finally`.
#
# Tasks (each small, none blocks):
#   sampler   polls the HX711 every few ms, feeds grams to the flow (and the weigher in it)
#   pole      woken by the reed IRQ's flag, confirms the state after 20 ms of calm
#   buttons   polls the six buttons every 10 ms (debounced)
#   ticker    lets time pass for the flow (the confirmation window), every 10 ms
#   lights    renders the LED view at ~30 fps
#   sound     follows the current tune on the buzzer PWM
#   console   JSON lines in on the USB serial; everything that happens goes out as JSON lines
#   watchdog  feeds the WDT only while the other tasks show signs of life

import asyncio
import gc
import json
import select
import sys
import time

import machine

from gulo import board, console, sounds
from gulo.calibration import Calibration, CalibrationError
from gulo.gamestore import GameStore, Settings
from gulo.hardware import Hardware
from gulo.hx711 import READY_TIMEOUT_MS, Scale
from gulo.ledview import LedView
from gulo.rules import Game
from gulo.turnflow import CONFIRM, SETTLE, WON, TurnFlow
from gulo.weigher import DEFAULT_MASSES, Weigher

WDT_MS = 8000
CONFIG = {"players": 2, "variant": "standard", "volume": 50, "brightness": 100}
CALIBRATION = {"offset": 0, "counts_per_g": 420.0, "masses": DEFAULT_MASSES}
HEARTBEATS = ("sampler", "console", "ticker")
CALIBRATE = "calibrate"  # the flow's phase while calibrating: the turn flow ignores the weigher


class Clock:
    """Milliseconds since boot that never wrap (ticks_ms wraps after 2**30 ms on the ESP32)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.ms = 0

    def now(self):
        t = time.ticks_ms()
        self.ms += time.ticks_diff(t, self.last)
        self.last = t
        return self.ms


class Nest:
    def __init__(self, data="/data", hw=None):
        self.clock = Clock()
        self.hw = hw or Hardware(time, self.clock.now())
        self.store = GameStore(data)
        self.config = Settings(data + "/config.json", CONFIG)
        self.calib = Settings(data + "/calib.json", CALIBRATION)
        self.scale = Scale(self.calib.values["counts_per_g"], self.calib.values["offset"])
        self.view = LedView()
        self.tune = sounds.Tune()
        self.fault = None          # the HX711 fault being shown, or None
        self.last_grams = None
        self.alive = {}
        self.wdt_started = False
        self.line = bytearray()
        game, problem = self.store.resume()
        for p in (problem, self.config.problem, self.calib.problem):
            if p:
                self.emit({"ev": "fault", "what": "storage", "detail": p})
        for name in self.store.leftovers:
            self.emit({"ev": "recovered", "file": name})
        if game is None:
            game = self._new_game(self.config.values["players"], self.config.values["variant"], None)
            resumed = False
        else:
            resumed = True
        self.flow = TurnFlow(game, Weigher(self.calib.values["masses"]))
        # The calibration stands in for the scale, so its measurements see every raw sample.
        self.cal = Calibration(self.calib.values, self.scale, print, self.clock.now)
        self.scale = self.cal  # type: ignore[assignment]  # same grams(raw) as a Scale
        self.emit({"ev": "ready", "resumed": resumed, "state": game.state()})

    # ---- output ----------------------------------------------------------------------------------

    def emit(self, obj):
        print(json.dumps(obj))

    def handle(self, notes, t_ms):
        """Carry out what the flow said: persist actions, sound, report."""
        for note in notes:
            if "action" in note:
                self.store.record(note["action"], t_ms)
                self.emit({"ev": "action", "action": note["action"], "outcome": note["outcome"]})
                self.emit({"ev": "state", "state": self.flow.game.state()})
                if self.flow.phase == WON:
                    self.store.finish()
            elif "new_game" in note:
                ng = note["new_game"]
                self.start_game(ng["players"], ng["variant"], None, t_ms)
            else:
                self.emit({"ev": "note", "note": note})
            tune = sounds.for_note(note)
            if tune:
                self.tune.play(tune, t_ms)

    def _new_game(self, players, variant, seed):
        if seed is None:
            seed = int.from_bytes(machine.unique_id(), "little") ^ time.ticks_diff(time.ticks_us(), 0)
            seed &= 0x3FFFFFFF
        game = Game.new(players, variant, seed)
        self.store.start(game, seed)
        return game

    def start_game(self, players, variant, seed, t_ms):
        self.store.finish()
        game = self._new_game(players, variant, seed)
        self.config.values["players"] = players
        self.config.values["variant"] = variant
        self.config.save()
        self.handle(self.flow.new_game(game, t_ms), t_ms)
        self.emit({"ev": "state", "state": game.state()})

    # ---- tasks -------------------------------------------------------------------------------------

    async def sampler(self):
        hx = self.hw.hx
        silent_since = self.clock.now()
        while True:
            self.alive["sampler"] = True
            now = self.clock.now()
            try:
                raw = hx.poll()
            except Exception as e:  # a saturated reading: the HX711 module's own fault
                raw = None
                self._hx_fault(str(e), now)
            if raw is not None:
                silent_since = now
                if self.fault:
                    self.fault = None
                    self.emit({"ev": "fault_cleared", "what": "hx711"})
                grams = self.scale.grams(raw)
                self.last_grams = grams
                self.handle(self.flow.sample(now, grams), now)
            elif now - silent_since > READY_TIMEOUT_MS:
                self._hx_fault("no answer from the HX711 (unplugged?)", now)
                silent_since = now  # report again only if it stays silent
            await asyncio.sleep_ms(3)

    def _hx_fault(self, detail, now):
        if self.fault != detail:
            self.fault = detail
            self.emit({"ev": "fault", "what": "hx711", "detail": detail})
            self.tune.play("nope", now)

    async def pole(self, flag):
        reed = self.hw.reed
        while True:
            if not reed.settling():
                await flag.wait()
            await asyncio.sleep_ms(2)
            now = self.clock.now()
            seated = reed.poll(now)
            if seated is not None:
                self.handle(self.flow.pole(seated, now), now)

    async def buttons(self):
        while True:
            now = self.clock.now()
            for name, b in self.hw.buttons:
                if b.poll(now) is True:
                    self.handle(self.flow.button(name, now), now)
            await asyncio.sleep_ms(10)

    async def ticker(self):
        while True:
            self.alive["ticker"] = True
            now = self.clock.now()
            self.handle(self.flow.tick(now), now)
            await asyncio.sleep_ms(10)

    async def lights(self):
        while True:
            self.hw.show(self.view.render(self.flow, self.clock.now()))
            await asyncio.sleep_ms(33)

    async def sound(self):
        pwm = self.hw.buzzer
        playing = 0
        while True:
            f = self.tune.freq_at(self.clock.now())
            if f != playing:
                if f:
                    pwm.freq(f)
                    pwm.duty_u16(self.config.values["volume"] * 327)  # 100 -> half duty: loudest
                else:
                    pwm.duty_u16(0)
                playing = f
            await asyncio.sleep_ms(5)

    async def console(self):
        poller = select.poll()
        poller.register(sys.stdin, select.POLLIN)
        while True:
            self.alive["console"] = True
            while poller.poll(0):
                ch = sys.stdin.read(1)
                if ch in ("\n", "\r"):
                    if self.line:
                        self.command(bytes(self.line))
                        self.line = bytearray()
                elif len(self.line) <= console.MAX_LINE:
                    self.line.extend(ch.encode())
            await asyncio.sleep_ms(20)

    async def watchdog(self):
        wdt = machine.WDT(timeout=WDT_MS)
        self.wdt_started = True
        while True:
            # Fed only if every watched task ran since the last feed: a task stuck in a loop
            # (or the whole scheduler) stops the feeding and the board resets.
            if all([self.alive.get(k) for k in HEARTBEATS]):
                wdt.feed()
                for k in HEARTBEATS:
                    self.alive[k] = False
            await asyncio.sleep_ms(1000)

    # ---- console commands -------------------------------------------------------------------------

    def command(self, line):
        try:
            cmd, args, id = console.parse(line)
        except console.ConsoleError as e:
            print(console.error(e))
            return
        now = self.clock.now()
        flow = self.flow
        if cmd in ("status", "state"):
            print(console.answer(cmd, id, phase=flow.phase, prompt=flow.prompt, fault=self.fault,
                                 state=flow.game.state()))
        elif cmd == "new":
            players = args.get("players", self.config.values["players"])
            variant = args.get("variant", self.config.values["variant"])
            self.start_game(players, variant, args.get("seed"), now)
            print(console.answer(cmd, id, state=flow.game.state()))
        elif cmd == "press":
            notes = flow.button(args["button"], now)
            print(console.answer(cmd, id, notes=notes))
            self.handle(notes, now)
        elif cmd == "sensors":
            w = flow.weigher
            print(console.answer(cmd, id, grams=self.last_grams, at_rest=w.at_rest,
                                 noise_g=w.noise_g(), pole_seated=flow.pole_seated,
                                 hx711=self.fault or "ok", mem_alloc=gc.mem_alloc()))
        elif cmd == "leds":
            self.led_test(args["pattern"])
            print(console.answer(cmd, id))
        elif cmd == "buzz":
            self.buzz(args["freq"], args["ms"])
            print(console.answer(cmd, id))
        elif cmd == "masses":
            print(console.answer(cmd, id, masses=flow.weigher.masses))
        elif cmd == "logs":
            print(console.answer(cmd, id, logs=self.store.logs()))
        elif cmd == "log":
            text = self.store.log_text(args["name"])
            if text is None:
                print(console.refusal(cmd, id, "log: no log named %s" % args["name"]))
            else:
                print(console.answer(cmd, id, name=args["name"], lines=text.split("\n")[:-1]))
        elif cmd == "settings":
            print(console.answer(cmd, id, settings=self.config.values))
        elif cmd == "set":
            self.setting(cmd, args, id)
        elif cmd == "help":
            print(console.answer(cmd, id, commands=sorted(console.COMMANDS)))
        else:  # tare, calibrate, egg, calibration, stream
            try:
                self.calibration(cmd, args, id, now)
            except CalibrationError as e:
                print(console.refusal(cmd, id, str(e)))

    def calibration(self, cmd, args, id, now):
        """The calibration steps (gulo.calibration). While a session is open the flow sits in
        the CALIBRATE phase, so weight changes are never egg events; done/cancel relearn the
        nest (the eggs went around) and the game goes on from SETTLE."""
        cal = self.cal
        flow = self.flow
        if cmd == "stream":
            cal.stream = args["on"]
            print(console.answer(cmd, id, on=cal.stream))
        elif cmd == "tare":
            cal.measure(cmd, id)
        elif cmd == "calibrate":
            cal.measure(cmd, id, args["grams"])
        elif cmd == "egg":
            if "grams" in args:
                print(console.answer(cmd, id, **cal.egg_grams(args["colour"], args["grams"])))
            else:
                cal.measure(cmd, id, (args["colour"], args.get("count", 1)))
        elif args["step"] == "start":
            if flow.phase == CONFIRM:
                raise CalibrationError("calibration: an egg is being judged; try again in a moment")
            flow.phase = CALIBRATE
            flow.prompt = None
            print(console.answer(cmd, id, **cal.start()))
        elif args["step"] == "check":
            print(console.answer(cmd, id, check=cal.check()))
        elif args["step"] == "status":
            print(console.answer(cmd, id, **cal.status()))
        else:  # done / cancel
            if args["step"] == "done":
                check = cal.finish()
                self.calib.save()
                flow.weigher.set_masses(self.calib.values["masses"])
                print(console.answer(cmd, id, saved=self.calib.values, check=check))
            else:
                cal.cancel()
                print(console.answer(cmd, id, saved=None))
            if flow.phase == CALIBRATE:
                flow.weigher.reset()
                flow.phase = SETTLE
                self.handle(flow.tick(now), now)

    def setting(self, cmd, args, id):
        key, value = args["key"], args["value"]
        ok = {"players": lambda v: v in (2, 3, 4, 5, 6), "variant": lambda v: v in ("standard", "fast"),
              "volume": lambda v: v in range(0, 101), "brightness": lambda v: v in range(0, 101)}[key]
        if isinstance(value, bool) or not ok(value):
            print(console.refusal(cmd, id, "set: bad value for %s" % key))
            return
        self.config.values[key] = value
        self.config.save()
        print(console.answer(cmd, id, settings=self.config.values))

    def led_test(self, pattern):
        colours = {"off": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0),
                   "green": (0, 255, 0), "blue": (0, 0, 255)}
        buf = self.view.buf
        cap = board.LED_BRIGHTNESS_CAP
        rgb = colours.get(pattern, (255, 255, 255))
        for i in range(board.LED_COUNT):
            for c in range(3):
                buf[3 * i + c] = rgb[c] * cap // 255
        self.hw.show(buf)

    def buzz(self, freq, ms):
        # Played by the sound task like any tune: the console never blocks the sensors.
        self.tune.tone(freq, ms, self.clock.now())


def _exception(loop, context):
    # One handler for every task: report and stop; the board restarts with main.py.
    print(json.dumps({"ev": "crash", "error": repr(context.get("exception"))}))
    sys.print_exception(context["exception"])
    sys.exit()


async def main(nest):
    loop = asyncio.get_event_loop()
    loop.set_exception_handler(_exception)
    flag = asyncio.ThreadSafeFlag()
    nest.hw.reed_pin.irq(handler=lambda pin: flag.set(),
                         trigger=machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING)
    tasks = [nest.sampler(), nest.pole(flag), nest.buttons(), nest.ticker(), nest.lights(),
             nest.sound(), nest.console(), nest.watchdog()]
    await asyncio.gather(*tasks)


def run(data="/data"):
    nest = None
    try:
        nest = Nest(data)
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
