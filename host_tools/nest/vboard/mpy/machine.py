# `machine` for the virtual ESP32: the subset the nest firmware and its drivers use, with the
# ESP32 port's constants and behaviour. State lives in _vbhw (pins, HX711, world) and in the JS
# bridge (LEDs, PWM, watchdog, resets) so the control channel can read it.
import _vbhw
import _vbjs

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5

_freq = 160000000
_irq_state = 1


class Pin:
    IN = _vbhw.IN
    OUT = _vbhw.OUT
    OPEN_DRAIN = _vbhw.OPEN_DRAIN
    PULL_DOWN = _vbhw.PULL_DOWN
    PULL_UP = _vbhw.PULL_UP
    PULL_HOLD = 4
    IRQ_RISING = _vbhw.IRQ_RISING
    IRQ_FALLING = _vbhw.IRQ_FALLING
    WAKE_LOW = 4
    WAKE_HIGH = 5
    DRIVE_0 = 0
    DRIVE_1 = 1
    DRIVE_2 = 2
    DRIVE_3 = 3

    def __new__(cls, id, *args, **kw):
        # As on the ESP32 (machine_pin_obj_table): one static object per GPIO, so Pin(n)
        # returns the same object every time and allocates nothing.
        if not isinstance(id, int) or id not in _PINS:
            raise ValueError("invalid pin")
        return _PINS[id]

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, hold=None):
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, drive=None, hold=None):
        if mode == Pin.OUT and self._id >= 34:
            raise ValueError("pin can only be input")
        if value is not None:
            _vbhw.latch[self._id] = 1 if value else 0
        _vbhw.configure(self._id, None if mode == -1 else mode, None if pull == -1 else pull)
        if value is not None:
            _vbhw.write(self._id, value)

    def value(self, v=None):
        if v is None:
            return _vbhw.level(self._id)
        _vbhw.write(self._id, v)

    __call__ = value

    def on(self):
        _vbhw.write(self._id, 1)

    def off(self):
        _vbhw.write(self._id, 0)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, *, wake=None, hard=False):
        if handler is None:
            _vbhw.irqs.pop(self._id, None)
        else:
            rec = _vbhw.IRQ_RECORDS[self._id]  # static, as the ESP32's handler table
            rec[0] = handler
            rec[1] = trigger
            rec[2] = self
            rec[3] = _vbhw.level(self._id)
            _vbhw.irqs[self._id] = rec
        _vbjs.irq_next(0)  # the bridge: scan at the next chance, which says when the next edge is due
        return self

    def __repr__(self):
        return f"Pin({self._id})"


_PINS = {}
for _n in _vbhw.GPIOS:
    _PINS[_n] = object.__new__(Pin)
    _PINS[_n]._id = _n


class Signal:
    def __init__(self, pin, *args, invert=False, **kw):
        self._pin = pin if isinstance(pin, Pin) else Pin(pin, *args, **kw)
        self._inv = invert

    def value(self, v=None):
        if v is None:
            return self._pin.value() ^ self._inv
        self._pin.value((1 if v else 0) ^ self._inv)

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class PWM:
    def __init__(self, dest, *, freq=None, duty=None, duty_u16=None, duty_ns=None, invert=False):
        self._pin = dest if isinstance(dest, Pin) else Pin(dest, Pin.OUT)
        self._freq = 5000
        self._duty = 32768
        self.init(freq=freq, duty=duty, duty_u16=duty_u16, duty_ns=duty_ns)

    def init(self, *, freq=None, duty=None, duty_u16=None, duty_ns=None, invert=False):
        if freq is not None:
            self._check_freq(freq)
            self._freq = freq
        if duty is not None:
            self._duty = min(1023, max(0, duty)) * 65535 // 1023
        if duty_u16 is not None:
            self._duty = min(65535, max(0, duty_u16))
        if duty_ns is not None:
            self._duty = min(65535, duty_ns * self._freq * 65535 // 1000000000)
        self._report()

    def _check_freq(self, f):
        if not 1 <= f <= 40000000:
            raise ValueError("freq must be from 1Hz to 40MHz")

    def _report(self):
        _vbjs.pwm(self._pin._id, self._freq, self._duty)

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._check_freq(f)
        self._freq = f
        self._report()

    def duty(self, d=None):
        if d is None:
            return self._duty * 1023 // 65535
        self.init(duty=d)

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self.init(duty_u16=d)

    def duty_ns(self, d=None):
        if d is None:
            return self._duty * 1000000000 // (self._freq * 65535)
        self.init(duty_ns=d)

    def deinit(self):
        _vbjs.pwm(self._pin._id, 0, 0)


class WDT:
    """Once started it cannot be stopped; not fed within `timeout` ms, it resets the board
    (checked by the bridge even while Python spins, like the hardware timer)."""

    def __init__(self, id=0, timeout=5000):
        if timeout < 1:
            raise ValueError("WDT timeout too short")
        _vbjs.wdt(timeout)

    def feed(self):
        _vbjs.wdt_feed()


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kw):
        self._rec = None
        if kw:
            self.init(**kw)

    def init(self, *, mode=PERIODIC, period=-1, freq=-1, callback=None):
        self.deinit()
        if freq > 0:
            period = max(1, 1000 // freq)
        self._rec = [_vbjs.world_ms() + period, period if mode == Timer.PERIODIC else 0, callback, self]
        _vbhw.timers.append(self._rec)
        _vbjs.irq_next(0)

    def deinit(self):
        if self._rec in _vbhw.timers:
            _vbhw.timers.remove(self._rec)
        self._rec = None


def bitstream(pin, encoding, timing, buf):
    # WS2812 bytes on the wire; the control channel decodes them as G, R, B per LED
    if _vbhw.planted_raise():
        raise OSError(5, "planted fault: the LED strip's write failed")  # 5: EIO
    _vbjs.leds(pin._id if isinstance(pin, Pin) else pin, bytes(buf).hex())


def _wait_for_reset():
    # the bridge unwinds the VM from its next poll, which ticks_ms() reaches (an empty
    # `while True: pass` calls nothing the bridge can hook)
    import time
    while True:
        time.ticks_ms()


def reset():
    _vbjs.reset(SOFT_RESET)  # esp_restart(): reset_cause() reports SOFT_RESET on the ESP32 too
    _wait_for_reset()


def soft_reset():
    _vbjs.soft_reset()
    _wait_for_reset()


def reset_cause():
    return _vbjs.reset_cause()


def unique_id():
    s = _vbjs.seed()
    return bytes((0x24, 0x0A, 0xC4, (s >> 16) & 0xFF, (s >> 8) & 0xFF, s & 0xFF))


def freq(f=None):
    global _freq
    if f is None:
        return _freq
    if f not in (20000000, 40000000, 80000000, 160000000, 240000000):
        raise ValueError("frequency must be 20MHz, 40MHz, 80Mhz, 160MHz or 240MHz")
    _freq = f


def idle():
    import time
    time.sleep_ms(1)


def disable_irq():
    # The ESP32's interrupts off (MICROPY_BEGIN_ATOMIC_SECTION, extmod/modmachine.c): no GPIO
    # interrupt lands, so the bridge's pin scan waits (_vbhw.isr) until they are back on.
    global _irq_state
    s = _irq_state
    _irq_state = 0
    _vbhw.masked[0] = 1
    return s


def enable_irq(state=1):
    global _irq_state
    _irq_state = state
    _vbhw.masked[0] = 0 if state else 1


def lightsleep(ms=None):
    import time
    time.sleep_ms(ms or 0)


def deepsleep(ms=None):
    import time
    time.sleep_ms(ms or 0)
    _vbjs.reset(DEEPSLEEP_RESET)
    _wait_for_reset()


def time_pulse_us(pin, pulse_level, timeout_us=1000000):
    t0 = _vbjs.ticks_us()
    while pin.value() != pulse_level:
        if (_vbjs.ticks_us() - t0) & 0x3FFFFFFF > timeout_us:
            return -2
    t1 = _vbjs.ticks_us()
    while pin.value() == pulse_level:
        if (_vbjs.ticks_us() - t1) & 0x3FFFFFFF > timeout_us:
            return -1
    return (_vbjs.ticks_us() - t1) & 0x3FFFFFFF


# ---- ESP32 timing (host_tools/nest/vboard/timing.mjs): these are C on the ESP32, so their time
# here is left out of the board clock, and each call is charged what the ESP32's C call costs ----
def _time_shims():
    shim_in, shim_out, timed = _vbjs.shim_in, _vbjs.shim_out, _vbhw.timed
    pin_value, signal_value = Pin.value, Signal.value

    # the pin calls of a bit-banged protocol: no *args, which would allocate on every call
    def value(self, v=None):
        shim_in()
        r = pin_value(self, v)
        shim_out(1)
        return r

    def on(self):
        value(self, 1)

    def off(self):
        value(self, 0)

    def sig_value(self, v=None):
        shim_in()
        r = signal_value(self, v)
        shim_out(1)
        return r

    Pin.value = Pin.__call__ = value
    Pin.on, Pin.off = on, off
    Signal.value = Signal.__call__ = sig_value
    for cls, names in ((Pin, ("init", "irq")), (Signal, ("on", "off")),
                       (PWM, ("init", "freq", "duty", "duty_u16", "duty_ns", "deinit")),
                       (WDT, ("feed",))):
        for name in names:
            setattr(cls, name, timed(getattr(cls, name)))
    g = globals()
    for name in ("bitstream", "time_pulse_us", "unique_id", "reset_cause"):
        g[name] = timed(g[name])
    set_freq = g["freq"]

    def cpu_freq(f=None):
        r = set_freq(f)
        if f is not None:
            _vbjs.cpu_mhz(f // 1000000)  # bytecode runs at the new clock's speed
        return r
    g["freq"] = timed(cpu_freq)


if _vbjs.timed():
    _time_shims()
