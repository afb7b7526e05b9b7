# HX711 load-cell amplifier(s), bit-banged: one shared PD_SCK, one DOUT per cell, cells summed.
#
# Channel A, gain 128, always: one extra clock pulse after the 24 data bits selects it for the
# next conversion and it is never switched (switching costs a settling period). The chip powers
# down when PD_SCK stays high for over 60 us, so each read runs with interrupts off (it lasts well
# under a millisecond). Nothing here waits without a bound: a silent or unplugged HX711 (DOUT
# never falls: the module's pull-up or a broken wire) is a fault, and so is a saturated reading.
#
# The Pin objects come from the caller (gulo.peripherals builds them from gulo.board); `clock` is the
# `time` module on the board and a fake in tests, and `critical` a (disable, enable) pair: on the
# board machine.disable_irq/enable_irq (gulo.peripherals passes them), in tests none.

from gulo.clock import diff, later

try:
    from micropython import const
except ImportError:  # CPython (tests): const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

_WRAP = const(0x3FFFFFFF)   # gulo.clock.WRAP: the board's clock wraps at 2**30 ms
_BITS = const(24)
_GAIN_A128_PULSES = const(1)
_FULL_SCALE = const(0x7FFFFF)
_MIN_SCALE = const(-0x800000)
SETTLE_READS = 4      # conversions discarded after power-up (the datasheet's settling time at 80 SPS)
# A blocking read waits this long for one conversion: 2.5 periods at the slowest rate (the "10 SPS"
# setting gives 10-12 conversions/s on the internal oscillator: lab/notebooks/weigher-research.md,
# "The HX711's rate on the device").
READY_TIMEOUT_MS = 250
# After power-up (or a power-down) the first conversion comes only once the chip has settled:
# 50 ms at 80 SPS, 400 ms at 10 SPS (datasheet); silence is not a fault before that.
POWER_UP_MS = 400
# The async sampler's silence that makes a fault: SILENCE_PERIODS conversion periods at the
# MEASURED rate (86-94/s at "80 SPS", 10-12/s at "10 SPS"), within [SILENCE_MIN_MS, SILENCE_MAX_MS].
# Until a period is measured, the slowest setting's (100 ms): 400 ms, so an HX711 unplugged at
# boot is shown within POWER_UP_MS + 400 = 800 ms, inside the 1 s budget.
SILENCE_PERIODS = 4
SILENCE_MIN_MS = 150
SILENCE_MAX_MS = 500
SLOWEST_PERIOD_MS = 100


class HX711Fault(Exception):
    """The HX711 did not answer in time, or its reading is saturated; `cell` names which one."""

    def __init__(self, reason, cell=None):
        super().__init__(reason if cell is None else "cell %d: %s" % (cell, reason))
        self.reason = reason
        self.cell = cell


def _no_guard(state=None):
    return 0


_NO_GUARD = (_no_guard, _no_guard)  # tests: no interrupts to hold off


class HX711:
    def __init__(self, sck, douts, clock, critical=_NO_GUARD):
        self.sck = sck
        self.douts = tuple(douts)
        self.clock = clock
        self._disable, self._enable = critical
        self.values = [0] * len(self.douts)  # last raw reading per cell, allocated once
        self._discard = 0
        self.power_up()

    def power_up(self):
        self.sck.value(0)
        self._discard = SETTLE_READS

    def power_down(self):
        self.sck.value(1)  # held high > 60 us: the chip sleeps

    def ready(self):
        """Every cell has a conversion waiting (DOUT low)."""
        for d in self.douts:
            if d.value():
                return False
        return True

    def wait_ready(self, timeout_ms=READY_TIMEOUT_MS):
        """Block until ready, at most timeout_ms; HX711Fault naming the silent cell otherwise.
        (The async sampler never blocks: it looks at ready() when Silence.look_in_ms says.)"""
        clock = self.clock
        start = clock.ticks_ms()
        while not self.ready():
            if clock.ticks_diff(clock.ticks_ms(), start) > timeout_ms:
                raise HX711Fault("no answer (unplugged, unpowered or DOUT broken)", self._silent())
            clock.sleep_ms(1)

    def _silent(self):
        for i, d in enumerate(self.douts):
            if d.value():
                return i
        return None

    def read_raw(self):
        """Clock one conversion out of every cell (they must be ready); returns self.values."""
        sck = self.sck
        douts = self.douts
        values = self.values
        for i in range(len(values)):
            values[i] = 0
        state = self._disable()
        try:
            for _ in range(_BITS):
                sck.value(1)
                sck.value(0)
                for i in range(len(douts)):
                    values[i] = (values[i] << 1) | douts[i].value()
            for _ in range(_GAIN_A128_PULSES):
                sck.value(1)
                sck.value(0)
        finally:
            self._enable(state)
        for i in range(len(values)):
            v = values[i]
            if v & 0x800000:
                v -= 0x1000000
            if v == _FULL_SCALE or v == _MIN_SCALE:
                raise HX711Fault("saturated reading (a wire off the load cell?)", i)
            values[i] = v
        return values

    def poll(self):
        """Non-blocking: the summed conversion if one is waiting and settled, else None."""
        return self.take() if self.ready() else None

    def take(self):
        """The conversion waiting (the caller has seen ready()), all cells summed (raw counts), or
        None for one of the reads discarded after power-up. The async sampler calls this when its
        own look found DOUT low, and times silence out itself (Silence)."""
        total = 0
        for v in self.read_raw():
            total += v
        if self._discard:
            self._discard -= 1
            return None
        return total

    def read(self, timeout_ms=READY_TIMEOUT_MS):
        """The next settled conversion, all cells summed (raw counts). Discards the first reads
        after power-up. Blocks at most timeout_ms per conversion."""
        while True:
            self.wait_ready(timeout_ms)
            total = self.take()
            if total is not None:
                return total


class Silence:
    """When the sampler looks at DOUT again, and when a quiet HX711 becomes a fault (the async
    sampler's timing, kept pure for tests). Silence counts from the end of the power-up settling,
    and any conversion the chip offers (DOUT low) is an answer, even one of the first reads that
    take() discards: counting those as silence made a healthy HX711 show a fault at boot."""

    def __init__(self, now_ms):
        self.since = later(now_ms, POWER_UP_MS)   # ahead: the power-up settling is no silence
        self.last = -1
        self.heard_at = now_ms               # the last conversion found (at first: the power-up)
        self.period_ms = SLOWEST_PERIOD_MS   # measured from the conversions heard

    def heard(self, now_ms):
        if self.last >= 0:
            d = (now_ms - self.last) & _WRAP   # gulo.clock's elapsed(), written out: every sample
            if d > 0:
                p = self.period_ms
                if d > 2 * p:
                    d = 2 * p   # a gap (a lost conversion, a busy task) moves it only a little
                self.period_ms = p + (d - p) // 4 if d >= p else p - (p - d + 3) // 4
        self.last = self.heard_at = self.since = now_ms

    def limit_ms(self):
        """The silence that makes a fault at the measured rate."""
        t = SILENCE_PERIODS * self.period_ms
        return SILENCE_MIN_MS if t < SILENCE_MIN_MS else SILENCE_MAX_MS if t > SILENCE_MAX_MS else t

    def rate_sps(self):
        """Conversions per second, measured (the slowest setting's until measured)."""
        return 1000 // self.period_ms if self.period_ms else 0

    def look_in_ms(self, now_ms):
        """How long the sampler may sleep before it looks at DOUT again: half the time since it
        last found a conversion (at least 1 ms, and never past the moment a silence becomes a
        fault). The looks close in on a conversion that is due and spread out over a silence;
        they never come a whole period apart (10.6-110 ms), so no conversion is missed, and
        nothing is estimated, so no estimate can be wrong. That holds also where a sleep ends at
        the next FreeRTOS tick, as on the ESP32: every 10 ms (ESP-IDF's default
        CONFIG_FREERTOS_HZ of 100, which micropython's ports/esp32 keeps; asyncio waits in
        select.poll's loop, extmod/modselect.c 400-411, around `ulTaskNotifyTake(pdFALSE, 1)`,
        ports/esp32/mpconfigport.h 350-357). firmware/tests/test_hx711.py counts the looks."""
        wait = diff(now_ms, self.heard_at) >> 1
        left = self.left_ms(now_ms)
        if left and wait > left:
            wait = left
        return wait if wait > 0 else 1

    def left_ms(self, now_ms):
        """Milliseconds until the silence so far is over(); 0 once it is."""
        left = self.limit_ms() + 1 - diff(now_ms, self.since)
        return left if left > 0 else 0

    def over(self, now_ms):
        """True once the chip has been quiet for longer than limit_ms(); then again only after
        as long a silence again."""
        if diff(now_ms, self.since) > self.limit_ms():
            self.since = now_ms
            return True
        return False


# An uncalibrated nest's scale, from the datasheets (firmware/HARDWARE.md, "The scale factor an
# uncalibrated nest should start from"): a 1.0 mV/V cell (TAL220) at gain 128 over the HX711's
# ratiometric +-0.5 x AVDD / GAIN full scale in 2**24 counts, 1 kg capacity: 1e-3 x 128 x 2**24 /
# 1000 g = 2,147 counts/g (+-15 % with the cell's rated output). The virtual board's cell uses it too.
DEFAULT_COUNTS_PER_G = 2147.0


class Scale:
    """Raw counts to grams: `offset` counts at zero load, `counts_per_g` from the calibration."""

    def __init__(self, counts_per_g=DEFAULT_COUNTS_PER_G, offset=0):
        self.set(counts_per_g, offset)

    def set(self, counts_per_g, offset):
        """A calibration's result."""
        self.counts_per_g = counts_per_g
        self.offset = offset
        # centigrams() divides by it rounded: 0.5 / 2,147 counts/g = 0.02 % of a reading, 0.004 g
        # of an 18 g egg (the classes are 2 g apart)
        self._cpg2 = 2 * int(counts_per_g + (0.5 if counts_per_g >= 0 else -0.5)) or 1

    def grams(self, raw):
        return (raw - self.offset) / self.counts_per_g

    def centigrams(self, raw):
        """grams(raw) x 100, rounded, in small ints: the sampler's path makes no float (on the
        ESP32 every float is an allocation). Small while |raw - offset| < 2**30 / 200 counts:
        2.5 kg at 2,147 counts/g."""
        return ((raw - self.offset) * 200 + (self._cpg2 >> 1)) // self._cpg2

    def counts(self, grams):
        return int(grams * self.counts_per_g) + self.offset
