# The console commands, carried out on the Nest (gulo.app). Imported by the first console line,
# not at boot (gulo.app.Nest.console says why, with the figure), with everything only the console
# needs: the parser (gulo.console), the calibration and the finished games' reader.
#
# A command that fails answers an error line naming the command and the problem (never an
# exception out of the console task): the parser refuses what is malformed before anything runs,
# each command checks its arguments before it changes anything, and one guard around the
# dispatch answers whatever is still raised.

import binascii
import gc
import json

from gulo import board, calibration, console
from gulo.calibration import CalibrationError
from gulo.ledview import wheel
from gulo.store import CorruptFile
from gulo.turnflow import CALIBRATE
from gulo.vocab import setting_ok

# The solid `leds` test patterns (gulo.vocab.LED_PATTERNS; led_pattern() paints the others).
SOLID = {"off": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0), "green": (0, 255, 0),
         "blue": (0, 0, 255)}


def command(nest, line):
    """Carry out one console line (bytes) on the nest; every answer is one JSON line."""
    try:
        cmd, args, id = console.parse(line)
    except console.ConsoleError as e:
        print(console.error(e))
        return
    try:
        _dispatch(nest, cmd, args, id)
    except CalibrationError as e:
        print(console.refusal(cmd, id, str(e)))
    except Exception as e:  # noqa: BLE001  (any failure is answered; the game goes on)
        print(console.refusal(cmd, id, "%s failed: %s: %s" % (cmd, type(e).__name__, e)))


def _dispatch(nest, cmd, args, id):
    now = nest.clock.now()
    flow = nest.flow
    answer = console.answer
    if cmd in ("status", "state"):
        # the fault: the HX711's (unplugged, saturated) first, else the nest's (gulo.nestfault)
        print(answer(cmd, id, phase=flow.phase, prompt=flow.prompt, need=flow.need,
                     fault=nest.fault or nest.watch.detail(), appeal=flow.appeal(now),
                     state=flow.game.state(), unsaved=nest.store.unsaved()))
    elif cmd == "new":
        values = nest.config.values
        nest.start_game(args.get("players", values["players"]), args.get("variant", values["variant"]),
                        args.get("seed"), now)
        print(answer(cmd, id, state=flow.game.state()))
    elif cmd == "press":
        notes = flow.button(args["button"], now)
        print(answer(cmd, id, notes=notes))
        nest.handle(notes, now)
    elif cmd in ("undo", "call"):
        # The players overrule the nest (docs/rules.md, "The players have the last word"): undo
        # the last verdict, or call the alarm it missed. Refused with the reason, changing nothing.
        notes = flow.undo(now) if cmd == "undo" else flow.call(now)
        if "refused" in notes[0]:
            print(console.refusal(cmd, id, "%s: %s" % (cmd, notes[0]["why"])))
        else:
            print(answer(cmd, id, notes=notes))
            nest.handle(notes, now)
    elif cmd == "sensors":
        w = flow.weigher
        grams = None if nest.last_cg is None else nest.last_cg / 100
        print(answer(cmd, id, grams=grams, at_rest=w.at_rest, noise_g=w.noise_g(), sps=w.rate_sps(),
                     pole_seated=flow.pole_seated, hx711=nest.fault or "ok",
                     nest=nest.watch.word(), mem_alloc=gc.mem_alloc()))
    elif cmd == "io":
        print(answer(cmd, id, **io_state(nest.hw)))
    elif cmd == "leds":
        _led_test(nest, args["pattern"])
        print(answer(cmd, id))
    elif cmd == "buzz":
        # Played by the sound task like any tune: the console never blocks the sensors.
        nest.tune.tone(args["freq"], args["ms"], now)
        nest.sounding.set()
        print(answer(cmd, id))
    elif cmd == "masses":
        print(answer(cmd, id, masses=flow.weigher.masses))
    elif cmd == "logs":
        print(answer(cmd, id, logs=nest.store.logs()))
    elif cmd == "log":
        _send_log(nest, cmd, args["name"], id)
    elif cmd == "settings":
        print(answer(cmd, id, settings=nest.config.values))
    elif cmd == "set":
        key, value = args["key"], args["value"]
        if not setting_ok(key, value):
            print(console.refusal(cmd, id, "set: bad value for %s: %s" % (key, console.wanted(key))))
            return
        nest.config.values[key] = value
        nest.config.save()
        if key == "brightness":
            nest.view.set_brightness(value)  # drawn by the redraw after every console line
        print(answer(cmd, id, settings=nest.config.values))
    elif cmd == "help":
        print(answer(cmd, id, commands=sorted(console.COMMANDS)))
    else:  # tare, calibrate, egg, calibration, stream
        _calibration(nest, cmd, args, id, now)


def _send_log(nest, cmd, name, id):
    # Read through once to check it (a damaged log is refused, never half sent), then sent a line
    # at a time as it is read again: the answer is never one string in RAM. Built whole it failed
    # with MemoryError on the ESP32 memory model (2-4 KB, the largest free block smaller:
    # docs/firmware-budgets.md).
    try:
        found = nest.store.log_each(name, _skip)
    except CorruptFile as e:
        # A damaged archived game is reported, never raised: the game goes on.
        print(console.refusal(cmd, id, "log: %s is damaged: %s" % (e.path, e.reason)))
        return
    if found is None:
        print(console.refusal(cmd, id, "log: no log named %s" % name))
        return
    print(console.answer(cmd, id, name=name)[:-1] + ', "lines": [', end="")
    items = _JsonItems()
    try:
        nest.store.log_each(name, items.send)
    except Exception:
        print()  # the cut answer ends its line, unreadable as JSON; the refusal follows on its own
        raise
    print("]}")


def _skip(text):
    pass


class _JsonItems:
    """Prints the items of a JSON list of strings one at a time, ", " between them."""

    def __init__(self):
        self.n = 0

    def send(self, text):
        if self.n:
            print(", ", end="")
        print(json.dumps(text), end="")
        self.n += 1


def _calibration(nest, cmd, args, id, now):
    """The calibration steps (gulo.calibration). While a session is open the flow sits in
    the CALIBRATE phase, so weight changes are never egg events; done/cancel relearn the
    nest (the eggs went around) and the game goes on from SETTLE."""
    cal = nest.cal
    if cal is None:
        # It updates the Scale's offset and counts_per_g when done.
        cal = calibration.Calibration(nest.calib.values, nest.scale, print, nest.clock.now,
                                      lambda: nest.hw.reed.state,
                                      lambda: (nest.flow.pole_seated, nest.flow.demand_told()))
        nest.use_calibration(cal)
    flow = nest.flow
    answer = console.answer
    if cmd == "stream":
        cal.set_stream(args["on"])
        print(answer(cmd, id, on=cal.stream, told=True))  # the samples say pole and demand
    elif cmd == "tare":
        cal.measure(cmd, id)
    elif cmd == "calibrate":
        cal.measure(cmd, id, args["grams"])
    elif cmd == "egg":
        if "grams" in args:
            print(answer(cmd, id, **cal.egg_grams(args["colour"], args["grams"])))
        else:
            cal.measure(cmd, id, (args["colour"], args.get("count", 1)))
    elif args["step"] == "start":
        if not flow.pause_for_calibration():
            raise CalibrationError("calibration: an egg is being judged; try again in a moment")
        print(answer(cmd, id, **cal.start()))
    elif args["step"] == "check":
        print(answer(cmd, id, check=cal.check()))
    elif args["step"] == "status":
        print(answer(cmd, id, **cal.status()))
    else:  # done / cancel
        masses = None
        if args["step"] == "done":
            check = cal.finish()
            nest.calib.save()
            masses = nest.calib.values["masses"]
            flow.use_tare(nest.calib.values.get("tare_pole"))  # the relearn below checks the nest with it
            if flow.phase != CALIBRATE:  # (done without start: the masses still apply)
                flow.weigher.set_masses(masses)
            print(answer(cmd, id, saved=nest.calib.values, check=check))
        else:
            cal.cancel()
            print(answer(cmd, id, saved=None))
        nest.handle(flow.end_calibration(now, masses), now)


def io_state(hw):
    """The buttons' debounced states (True = pressed) by name, and the LED strip as last
    written to it: `leds` is the RGB bytes of every LED in strip order as hex, read back from
    the strip itself (a `leds` test pattern stays there until the picture changes), `cap` the
    brightness cap every channel was scaled into (full scale on the host: value * 255 // cap)."""
    strip = hw.strip
    rgb = bytearray(3 * len(strip))
    for i in range(len(strip)):
        px = strip[i]  # the neopixel driver gives (r, g, b) back whatever its wire order
        j = 3 * i
        rgb[j] = px[0]
        rgb[j + 1] = px[1]
        rgb[j + 2] = px[2]
    buttons = {}
    for name, b in hw.buttons:
        buttons[name] = b.state
    leds = binascii.hexlify(bytes(rgb)).decode()
    return {"buttons": buttons, "leds": leds, "cap": board.LED_BRIGHTNESS_CAP}


def led_pattern(view, name, flow, t_ms):
    """A `leds` test pattern (gulo.vocab.LED_PATTERNS) in the LED view's buffer: a solid colour or
    a rainbow over the whole strip at the power budget's cap whatever the brightness setting, or
    "game": the game's picture. Here, not in gulo.ledview: only the console needs it (heap)."""
    if name == "game":
        return view.render(flow, t_ms)
    buf = view.buf
    cap = board.LED_BRIGHTNESS_CAP
    n = len(buf) // 3
    for i in range(n):
        rgb = wheel(i * 256 // n) if name == "rainbow" else SOLID[name]
        for c in range(3):
            buf[3 * i + c] = rgb[c] * cap // 255
    return buf


def _led_test(nest, pattern):
    # shown at once; the lights task leaves it there until the game's picture changes
    nest.hw.show(led_pattern(nest.view, pattern, nest.flow, nest.clock.now()))
