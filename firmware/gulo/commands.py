# The console commands, carried out on the Nest (gulo.app). Imported by the first console line,
# not at boot: in family play the console is rarely used, and as a .mpy on the filesystem this
# module's bytecode, constants and the console parser's (gulo.console) sit in RAM once imported.
# gulo.calibration is imported later still, by the first calibration command.

import binascii
import gc

from gulo import board, console
from gulo.ledview import brightness_cap
from gulo.store import CorruptFile
from gulo.turnflow import CALIBRATE

# Settings the `set` command accepts: key -> the test its value must pass.
_OK = {"players": lambda v: v in (2, 3, 4, 5, 6), "variant": lambda v: v in ("standard", "fast"),
       "volume": lambda v: v in range(0, 101), "brightness": lambda v: v in range(0, 101)}
_PATTERNS = {"off": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0),
             "green": (0, 255, 0), "blue": (0, 0, 255)}


def command(nest, line):
    """Carry out one console line (bytes) on the nest; every answer is one JSON line."""
    try:
        cmd, args, id = console.parse(line)
    except console.ConsoleError as e:
        print(console.error(e))
        return
    now = nest.clock.now()
    flow = nest.flow
    answer = console.answer
    if cmd in ("status", "state"):
        print(answer(cmd, id, phase=flow.phase, prompt=flow.prompt, need=flow.need, fault=nest.fault,
                     state=flow.game.state()))
    elif cmd == "new":
        values = nest.config.values
        nest.start_game(args.get("players", values["players"]), args.get("variant", values["variant"]),
                        args.get("seed"), now)
        print(answer(cmd, id, state=flow.game.state()))
    elif cmd == "press":
        notes = flow.button(args["button"], now)
        print(answer(cmd, id, notes=notes))
        nest.handle(notes, now)
    elif cmd == "sensors":
        w = flow.weigher
        print(answer(cmd, id, grams=nest.last_grams, at_rest=w.at_rest, noise_g=w.noise_g(), sps=w.rate_sps(),
                     pole_seated=flow.pole_seated, hx711=nest.fault or "ok", mem_alloc=gc.mem_alloc()))
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
        try:
            lines = nest.store.log_lines(args["name"])
        except CorruptFile as e:
            # A damaged archived game is reported, never raised: the game goes on.
            print(console.refusal(cmd, id, "log: %s is damaged: %s" % (e.path, e.reason)))
            return
        if lines is None:
            print(console.refusal(cmd, id, "log: no log named %s" % args["name"]))
        else:
            print(answer(cmd, id, name=args["name"], lines=lines))
    elif cmd == "settings":
        print(answer(cmd, id, settings=nest.config.values))
    elif cmd == "set":
        key, value = args["key"], args["value"]
        if isinstance(value, bool) or not _OK[key](value):
            print(console.refusal(cmd, id, "set: bad value for %s" % key))
            return
        nest.config.values[key] = value
        nest.config.save()
        if key == "brightness":
            nest.view.cap = brightness_cap(value)  # drawn by the redraw after every console line
        print(answer(cmd, id, settings=nest.config.values))
    elif cmd == "help":
        print(answer(cmd, id, commands=sorted(console.COMMANDS)))
    else:  # tare, calibrate, egg, calibration, stream: gulo.calibration is imported only now
        from gulo.calibration import CalibrationError

        try:
            _calibration(nest, cmd, args, id, now)
        except CalibrationError as e:
            print(console.refusal(cmd, id, str(e)))


def _calibration(nest, cmd, args, id, now):
    """The calibration steps (gulo.calibration). While a session is open the flow sits in
    the CALIBRATE phase, so weight changes are never egg events; done/cancel relearn the
    nest (the eggs went around) and the game goes on from SETTLE."""
    from gulo import calibration
    from gulo.calibration import CalibrationError

    cal = nest.cal
    if cal is None:
        # The calibration stands in for the scale from now on, so its measurements see
        # every raw sample (it updates the Scale's offset and counts_per_g when done).
        cal = nest.cal = calibration.Calibration(nest.calib.values, nest.scale, print, nest.clock.now)
        nest.scale = cal  # same grams(raw) as a Scale
    flow = nest.flow
    answer = console.answer
    if cmd == "stream":
        cal.stream = args["on"]
        print(answer(cmd, id, on=cal.stream))
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
        if not calibration.pause(flow):
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
            if flow.phase != CALIBRATE:  # (done without start: the masses still apply)
                flow.weigher.set_masses(masses)
            print(answer(cmd, id, saved=nest.calib.values, check=check))
        else:
            cal.cancel()
            print(answer(cmd, id, saved=None))
        nest.handle(calibration.resume(flow, now, masses), now)


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


def _led_test(nest, pattern):
    buf = nest.view.buf
    cap = board.LED_BRIGHTNESS_CAP
    rgb = _PATTERNS.get(pattern, (255, 255, 255))
    for i in range(board.LED_COUNT):
        for c in range(3):
            buf[3 * i + c] = rgb[c] * cap // 255
    nest.hw.show(buf)
