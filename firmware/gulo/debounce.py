# Debouncing for the reed switch and the buttons: the pin's IRQ only raises a flag (no allocation,
# no work in the handler); the task that owns the pin calls poll() and gets a state once the level
# has stayed put for `stable_ms`: no edge (IRQ) and no change of level since the calm began. Reed
# bounce is "normally in the range of 0.5 ms to 1 ms" (reed-sensor.com glossary, "Bounce Time")
# and ESP32 IRQs are soft and come in bursts, so 20 ms of calm is 20x the bounce, and a wobbling
# pole that opens the reed for less than that is no alarm. Every edge starts the calm again, even
# one the task never saw as a level (a wobble shorter than its sleep): the task can sleep out the
# calm in one go (calm_left) instead of polling, and confirm as soon as it is over.
#
# Every IRQ handler of the nest is a bound method of an object built once at start-up (passing
# `obj.irq` to Pin.irq makes the bound method then, not per interrupt): a call stores a flag and,
# with a waiting task, sets an asyncio.ThreadSafeFlag, whose set() only stores too. Nothing in a
# handler allocates; firmware/tests/test_irq.py calls each one under micropython.heap_lock().

from gulo.clock import elapsed


class Debounced:
    def __init__(self, pin, stable_ms=20, active_low=True, now=0, flag=None):
        self.pin = pin
        self.flag = flag  # an asyncio.ThreadSafeFlag that wakes the task owning the pin, or None
        self.stable_ms = stable_ms
        self.active_low = active_low
        self.raw = pin.value()
        self.since = now
        self.state = self._active(self.raw)  # the confirmed state: True = active
        self.pending = False                 # set by the IRQ: an edge since the last poll

    def _active(self, level):
        return (level == 0) if self.active_low else (level == 1)

    def arm(self, flag, trigger):
        """This pin's IRQ on `trigger` edges: each marks it pending and sets `flag` (an
        asyncio.ThreadSafeFlag). Then one poll, as if an edge had come: a change between the
        level read at start-up and this arming raised no IRQ, and unseen it would swallow the
        next one (a button let go then stays pressed to the debouncer; its next press is lost)."""
        self.flag = flag
        self.pin.irq(handler=self.irq, trigger=trigger)
        self.irq()

    def irq(self, _pin=None):
        # IRQ handler: a flag only (house style: no allocation, no float, no print here).
        self.pending = True
        if self.flag is not None:
            self.flag.set()

    def poll(self, now):
        """The new confirmed state if it changed (True/False), else None. `now` in ms. An edge
        since the last poll (the IRQ's `pending`) or a new level starts the calm again."""
        level = self.pin.value()
        if self.pending or level != self.raw:
            self.pending = False
            self.raw = level
            self.since = now
            return None
        if elapsed(now, self.since) < self.stable_ms:
            return None
        active = self._active(level)
        if active == self.state:
            return None
        self.state = active
        return active

    def settling(self):
        """True while a change is waiting to be confirmed: keep polling."""
        return self.pending or self._active(self.raw) != self.state

    def calm_left(self, now):
        """ms until the calm begun at the last poll is long enough to confirm (at least 1)."""
        return max(1, self.stable_ms - elapsed(now, self.since))


# How long Menu must be held to overrule the nest (undo the last verdict): 1000 ms, Android's
# "medium" touch-and-hold delay (AOSP Settings, long_press_timeout_selector_values: short 400,
# medium 1000, long 1500 ms), not the 400-500 ms default of touch screens (Android
# ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT = 400; Flutter kLongPressTimeout = 500 ms): an
# undo must never come from a child's ordinary press on Menu, which is far shorter.
LONG_PRESS_MS = 1000


class Hold:
    """A long press of one button, from its debounced states: "long" once it has been held
    `long_ms`, once per press. (The press itself still counts at once, as every button's does:
    the play page and the tests hold a button only until the board answers it.)"""

    def __init__(self, long_ms=LONG_PRESS_MS):
        self.long_ms = long_ms
        self.down_at = -1   # when the press began (ms), or -1: not held, or already long

    def change(self, pressed, now):
        """A confirmed state change of the button."""
        self.down_at = now if pressed else -1

    def poll(self, now):
        """"long" once the button has been held long enough (once per press), else None."""
        if self.down_at >= 0 and elapsed(now, self.down_at) >= self.long_ms:
            self.down_at = -1
            return "long"
        return None

    def waiting(self):
        """True while a held press may still become long: keep polling."""
        return self.down_at >= 0
