# Fakes at the level the drivers use the hardware: Pin-like objects, a clock, an HX711 chip that
# speaks its serial protocol bit by bit. Injected into the drivers, never patched in. And the heap
# lock the allocation tests take: MicroPython's own in the VM, a no-op on CPython (IN_VM says which).

try:
    from micropython import heap_lock, heap_unlock
    IN_VM = True
except ImportError:  # CPython
    IN_VM = False

    def heap_lock() -> int:  # same contract as micropython.heap_lock
        return 0

    def heap_unlock() -> int:
        return 0


class FakeClock:
    """time.ticks_ms / ticks_diff / sleep_ms with a clock that only moves when slept on."""

    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.now += ms


class FakePin:
    def __init__(self, level=0, on_write=None, on_read=None):
        self.level = level
        self.on_write = on_write
        self.on_read = on_read
        self.writes = 0

    def value(self, v=None):
        if v is None:
            return self.on_read() if self.on_read else self.level
        self.writes += 1
        self.level = 1 if v else 0
        if self.on_write:
            self.on_write(self.level)
        return None


class FakeHX711:
    """One HX711 at pin level. `conversions` is a list of raw 24-bit values (signed ints) given
    out in turn, one every `period_ms` of the clock (80 SPS -> 12.5 ms; 12 here)."""

    def __init__(self, clock, conversions, period_ms=12):
        self.clock = clock
        self.conversions = list(conversions)
        self.period_ms = period_ms
        self.next_ready = clock.now + period_ms
        self.plugged = True
        self.pulses = 0
        self.bit = 1
        self.word = 0
        self.gain_pulses = []    # extra pulses after the 24 bits, per read (1 = channel A, 128)
        self.reads = 0
        self.sck = FakePin(0, on_write=self._clock_edge)
        self.dout = FakePin(on_read=self._dout)

    def _ready(self):
        return self.plugged and self.conversions and self.clock.now >= self.next_ready

    def _dout(self):
        if not self.plugged:
            return 1  # the module's pull-up: nobody drives the line
        if self.pulses == 0:
            return 0 if self._ready() else 1
        return self.bit if self.pulses <= 24 else 1

    def _clock_edge(self, level):
        if not level:
            return
        if self.pulses == 0:
            if not self._ready():
                return  # a clock while busy: ignored, as by the chip
            self.word = self.conversions.pop(0) & 0xFFFFFF
        self.pulses += 1
        if self.pulses <= 24:
            self.bit = (self.word >> (24 - self.pulses)) & 1

    def finish(self):
        """Called when SCK has stayed low after a read: the next conversion starts."""
        if self.pulses:
            self.gain_pulses.append(self.pulses - 24)
            self.pulses = 0
            self.reads += 1
            self.next_ready = self.clock.now + self.period_ms


class FinishingClock(FakeClock):
    """A clock that tells the fake chips when a read is over (the driver sleeps or polls between
    reads, never in the middle of one)."""

    def __init__(self):
        super().__init__()
        self.chips = []

    def ticks_ms(self):
        for c in self.chips:
            c.finish()
        return self.now
