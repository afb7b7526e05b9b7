# The virtual board's JS bridge (`_vbjs`), for MicroPython's unix port: the memory model runs the
# board's own shims (machine, neopixel, select, the simulated HX711 and world in _vbhw) here, on a
# virtual clock that moves only when the firmware waits. Nothing is reported anywhere: LEDs, PWM,
# pin states and the watchdog are the board's business, not the heap's.
import time as _time

# asyncio's C task queue (modasyncio.c) keys a task pushed without a time with the port's real
# ticks_ms, so the virtual clock must never be behind the real one: it starts a day ahead (a
# session of 50 games is 42 virtual minutes), and sync() is only a safeguard. Ahead, a task pushed
# "now" is simply due. Ticks keep the port's period (2**62, as the C queue compares them); the
# world's time (its noise is a function of it) counts from the start: a session is the same
# from run to run.
now_us = [_time.ticks_us() + 86400 * 1000000]
_T0_US = now_us[0]


def sync():
    real = _time.ticks_us()
    if real > now_us[0]:
        now_us[0] = real


hw_config = ["{}"]  # the pin map as JSON, set by heaprun before _vbhw is imported
world_seed = [1]    # the world's seed, set by heaprun before _vbhw is imported
console = []        # bytes objects waiting on the "serial line" (sys.stdin of the firmware)
stats = {"wdt_feeds": 0, "wdt_timeout": 0, "resets": 0}


def advance_us(us):
    now_us[0] += int(us)


def config():
    return hw_config[0]


def seed():
    return world_seed[0]


def world_ms():
    return (now_us[0] - _T0_US) // 1000


def world_len():
    return 0  # the driver scripts the world directly (_vbhw._world), not through a log


def world_log(start):
    return "[]"


inputs = [0]


def inputs_version():
    return inputs[0]


def ticks_us():
    return now_us[0]


def board_us():
    return now_us[0] - _T0_US


def busy_us(us):
    now_us[0] += int(us)


def sleep_ms(ms):
    now_us[0] += int(ms) * 1000
    return 0


def exited():
    pass


def mem_base(alloc):
    pass


def mem(alloc):
    pass


def stdin_ready():
    return 1 if console else 0


_overrides = {}


def override(pin):
    return _overrides.get(pin, -1)


def press(pin, level):
    """A button held (level 0) or let go (level None), as the control channel's press."""
    if level is None:
        _overrides.pop(pin, None)
    else:
        _overrides[pin] = level
    inputs[0] += 1


def pin_state(pin, mode, pull, value):
    pass


def leds(pin, hexdata):
    pass


def pwm(pin, freq, duty):
    pass


def wdt(timeout):
    stats["wdt_timeout"] = timeout


def wdt_feed():
    stats["wdt_feeds"] += 1


def reset(cause):
    stats["resets"] += 1
    raise SystemExit("machine.reset() in the memory model")


def soft_reset():
    reset(5)


def reset_cause():
    return 1


def __getattr__(name):
    # A call the board's bridge gained later (e.g. for ESP32 timing) means nothing to the heap:
    # answer it with a no-op rather than stop the model.
    return _nothing


def _nothing(*args):
    return 0

