# The firmware's clock: milliseconds that wrap at 2**30, as time.ticks_ms() does on the ESP32.
#
# Why it wraps: the ESP32 port's small ints are 31-bit (MICROPY_OBJ_REPR_A, py/mpconfig.h), so a
# count of ms since boot that never wraps is a long int from 2**30 ms (12.4 days) on, and every
# time difference taken from it allocates on the heap. Measured with such a count in the
# WebAssembly VM, whose small ints are the ESP32's: 11,312 bytes over one 248-sample take at
# 12.4 days against 48 at 6 days, a garbage collection every few seconds for as long as the nest
# stays on (lab/notebooks/weigher-research.md, "Events and API"). The period is the ticks
# period of a 32-bit port such as the ESP32's (py/mpconfig.h: MICROPY_PY_TIME_TICKS_PERIOD defaults to
# MP_SMALL_INT_POSITIVE_MASK + 1, "30 bit tick values on 32-bit system").
#
# So every time in the firmware is a clock reading in [0, 2**30), and times are compared only
# through elapsed(), diff() and later() below, never with a plain `-` or `<`. None of the three
# ever makes a long int on the way (each intermediate stays within the 31-bit small ints).
# At every sample, Silence.heard and NestWatch.check write elapsed() out (as calls they cost the
# sampler's path 8-10 %: `.venv/bin/python -m lab.bench_sampler`).
# gulo.weigher takes its elapsed times inline, as elapsed() does ((now - then) & WRAP: its per-sample
# cost), so it never makes a long int either
# (test_clock.py: a take after 13 days at rest allocates only its event).

try:
    from micropython import const
except ImportError:  # CPython: const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

WRAP = const(0x3FFFFFFF)   # 2**30 - 1: a reading is `ms & WRAP`
_HALF = const(0x20000000)  # 2**29 ms, 6.2 days: diff()'s reach either way


def elapsed(now, then):
    """ms from `then` to `now`, `then` in the past: right for up to 2**30 ms (12.4 days)."""
    return (now - then) & WRAP


def diff(a, b):
    """a - b in ms, either sign (a deadline ahead or passed): right for up to 2**29 ms (6.2 days)
    either way, as time.ticks_diff."""
    d = (a - b) & WRAP
    return d if d < _HALF else d - WRAP - 1


def later(t, ms):
    """The reading `ms` (0 to 2**29) after `t`."""
    return t + ms if t <= WRAP - ms else t - WRAP - 1 + ms


class Clock:
    """The board's clock, from time.ticks_ms(); `ticks` stands in for `time` in tests."""

    def __init__(self, ticks=None):
        if ticks is None:
            import time as ticks
        self.ticks = ticks
        self.boot = ticks.ticks_ms()

    def now(self):
        """ms since boot, wrapping at 2**30. ticks_diff is ticks_ms's own difference, right
        modulo its period (2**30 on the ESP32: the same reading; far longer on a 64-bit port),
        so the reading needs no state and no read at any interval."""
        return self.ticks.ticks_diff(self.ticks.ticks_ms(), self.boot) & WRAP
