# A profiler for the alarm path, run INSIDE the virtual board's VM by lab/alarm_profile.py (never
# deployed to a nest): it wraps the firmware's methods and tasks before gulo.app.run() builds the
# Nest, and records (code, arg, ticks_us) into one array allocated here, but only in a window after
# each reed or button IRQ (WINDOW_US), so the idle firmware is not slowed. Its own bytecode is on
# the ESP32 clock too (about 10 us per event), and its wrappers allocate (the arguments' tuples),
# so it may bring a collection sooner than the firmware alone: its breakdown is an upper bound.
# time.ticks_us is the board's ESP32 clock on ESP32 timing (host_tools/nest/vboard/mpy/_vbboot.py).
import array
import gc
import time

try:
    import _vbjs  # the virtual board's bridge: the world's clock, to tie an IRQ to the world's edge
    _world_ms = _vbjs.world_ms
except ImportError:
    def _world_ms():
        return 0

# event codes (lab/alarm_profile.py reads them by these numbers)
IRQ_REED, IRQ_BUTTON, STEP_IN, STEP_OUT, POLL = 1, 2, 3, 4, 5
HANDLE_IN, HANDLE_OUT, EMIT_IN, EMIT_OUT, PWM_FREQ, PWM_DUTY = 6, 7, 8, 9, 10, 11
SHOW_IN, SHOW_OUT, RENDER_IN, RENDER_OUT, FLOW_IN, FLOW_OUT, RECORD_IN, RECORD_OUT = \
    12, 13, 14, 15, 16, 17, 18, 19
GC_FREED, WORLD_MS, LOOP_IN, LOOP_OUT, SLEEP_IN, SLEEP_OUT = 20, 21, 22, 23, 24, 25

N = 10000  # events: 120 KB, and as much again for the zeros it is made from (30,000 did not fit)
WINDOW_US = 100000  # the outputs come within ~70 ms of the IRQ (before this change)
_buf = array.array("l", bytearray(4 * 3 * N))  # zeros, allocated once
_n = [0]
_until = [0]
_last_alloc = [0]


RING = 32   # the last events before a window opens, kept to see what the IRQ waited for
_ring = array.array("l", bytearray(4 * 3 * RING))
_r = [0]


def rec(code, arg=0):
    t = time.ticks_us()
    if time.ticks_diff(_until[0], t) < 0:
        i = 3 * (_r[0] % RING)
        _ring[i], _ring[i + 1], _ring[i + 2] = code, arg, t
        _r[0] += 1
        if _until[0]:
            # the window is over: did a collection run in it? (gc.mem_alloc walks the heap's
            # table, ~0.5 ms on the ESP32 clock: once per window, not per event)
            _until[0] = 0
            a = gc.mem_alloc()
            if a < _last_alloc[0]:
                _put(GC_FREED, _last_alloc[0] - a, t)
        return
    _put(code, arg, t)


def _put(code, arg, t):
    i = 3 * _n[0]
    if i < 3 * N:
        _buf[i], _buf[i + 1], _buf[i + 2] = code, arg, t
        _n[0] += 1


def _arm(code):
    if not _until[0]:  # a new window: what ran before it first, codes + 100
        for k in range(max(0, _r[0] - RING), _r[0]):
            i = 3 * (k % RING)
            _put(_ring[i] + 100, _ring[i + 1], _ring[i + 2])
    _until[0] = time.ticks_add(time.ticks_us(), WINDOW_US)
    _last_alloc[0] = gc.mem_alloc()
    rec(code)
    rec(WORLD_MS, _world_ms())


def _wrap_method(cls, name, code_in, code_out, arg=None):
    f = getattr(cls, name)

    def wrapped(self, *a):
        rec(code_in, arg(self, *a) if arg else 0)
        r = f(self, *a)
        rec(code_out)
        return r
    setattr(cls, name, wrapped)


def _task(i, coro):
    # A proxy generator around one task's coroutine: STEP_IN/STEP_OUT around each of its steps.
    v = None
    exc = None
    while True:
        rec(STEP_IN, i)
        try:
            y = coro.throw(exc) if exc is not None else coro.send(v)
        except StopIteration as e:
            rec(STEP_OUT, i)
            return e.value
        rec(STEP_OUT, i)
        exc = None
        v = None
        try:
            v = yield y
        except BaseException as e:  # noqa: B036  (passed on to the task, as asyncio threw it)
            exc = e


def install():
    import asyncio

    from gulo import app, debounce, peripherals, turnflow

    irq = debounce.Debounced.irq
    _reed = [None]  # the reed's Debounced, once Peripherals made it

    def traced_irq(self, pin=None):
        _arm(IRQ_REED if self is _reed[0] else IRQ_BUTTON)
        irq(self, pin)
    debounce.Debounced.irq = traced_irq

    init = peripherals.Peripherals.__init__

    def traced_init(self, *a):
        init(self, *a)
        _reed[0] = self.reed
        pwm = self.buzzer
        freq, duty = pwm.freq, pwm.duty_u16

        def f(x=None):
            if x is not None:
                rec(PWM_FREQ, x)
                rec(WORLD_MS, _world_ms())
            return freq(x) if x is not None else freq()

        def d(x=None):
            if x is not None:
                rec(PWM_DUTY, x)
            return duty(x) if x is not None else duty()
        pwm.freq, pwm.duty_u16 = f, d
    peripherals.Peripherals.__init__ = traced_init
    _wrap_method(peripherals.Peripherals, "show", SHOW_IN, SHOW_OUT, lambda self, buf: buf[0])  # LED 0's red
    poll = debounce.Debounced.poll

    def traced_poll(self, now):
        r = poll(self, now)
        # arg: 10 x which (1 the reed, 2 a button) + the result (0 None, 1 True, 2 False)
        rec(POLL, (10 if self is _reed[0] else 20) + (0 if r is None else 1 if r else 2))
        return r
    debounce.Debounced.poll = traced_poll
    _wrap_method(app.Nest, "handle", HANDLE_IN, HANDLE_OUT, lambda self, notes, t: len(notes))
    _wrap_method(app.Nest, "emit", EMIT_IN, EMIT_OUT)
    _wrap_method(turnflow.TurnFlow, "pole", FLOW_IN, FLOW_OUT, lambda self, s, t: 1)
    _wrap_method(turnflow.TurnFlow, "button", FLOW_IN, FLOW_OUT, lambda self, n, t: 2)
    _wrap_method(turnflow.TurnFlow, "sample", FLOW_IN, FLOW_OUT, lambda self, t, g: 3)
    from gulo import gamestore, ledview
    _wrap_method(ledview.LedView, "render", RENDER_IN, RENDER_OUT)
    _wrap_method(gamestore.GameStore, "record", RECORD_IN, RECORD_OUT)

    # the event loop's own passes and its idle sleeps (the virtual board's asyncio.run loop,
    # host_tools/nest/vboard/mpy/_vbboot.py, calls both through their modules' attributes)
    from asyncio import core
    run_iter = core._run_iter

    def traced_run_iter():
        rec(LOOP_IN)
        run_iter()
        rec(LOOP_OUT)
    core._run_iter = traced_run_iter
    try:
        sleep = _vbjs.sleep_ms

        def traced_sleep(ms):
            rec(SLEEP_IN, ms)
            sleep(ms)
            rec(SLEEP_OUT)
        _vbjs.sleep_ms = traced_sleep
    except (NameError, AttributeError, TypeError):
        pass

    count = [0]
    create = asyncio.create_task

    def traced_create(coro):
        count[0] += 1
        return create(_task(count[0] - 1, coro))
    asyncio.create_task = traced_create


def dump():
    """Every event recorded, as lines `E code arg t_us`, then `END n`."""
    for k in range(_n[0]):
        i = 3 * k
        print("E", _buf[i], _buf[i + 1], _buf[i + 2])
    print("END", _n[0])
