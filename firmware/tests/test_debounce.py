# Debouncing the reed switch and the buttons.

from gulo.debounce import LONG_PRESS_MS, Debounced, Hold

from fakes import FakePin


def run(d, pin, levels, step_ms=1, start=0):
    """Feed pin levels one per step; returns [(t, state)] for each confirmed change."""
    out = []
    t = start
    for level in levels:
        if level != pin.level:  # an edge: the IRQ fires (both edges armed)
            pin.level = level
            d.irq()
        s = d.poll(t)
        if s is not None:
            out.append((t, s))
        t += step_ms
    return out


def test_a_bouncing_reed_gives_one_change_after_it_settles():
    pin = FakePin(0)                       # pole seated: reed closed, pin pulled to 0
    d = Debounced(pin, stable_ms=20)
    assert d.state is True
    bounce = [1, 0, 1, 1, 0, 1] + [1] * 30  # the pole lifts: contacts chatter, then open
    changes = run(d, pin, bounce)
    assert changes == [(25, False)]         # 20 ms after the last bounce at t=5


def test_a_spike_shorter_than_the_window_is_ignored():
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=20)
    assert run(d, pin, [1] * 10 + [0] * 40) == []
    assert d.state is True and not d.settling()


def test_active_high_and_settling():
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=5, active_low=False)
    assert d.state is False
    pin.level = 1
    d.irq()
    assert d.settling()
    assert run(d, pin, [1] * 10) == [(5, True)]
    assert not d.settling()


def test_hold_tells_a_long_press_once():
    h = Hold()
    h.change(True, 100)
    assert h.waiting() and h.poll(100 + LONG_PRESS_MS - 1) is None
    h.change(False, 100 + LONG_PRESS_MS - 1)                       # let go in time: no overrule
    assert not h.waiting() and h.poll(100 + 5 * LONG_PRESS_MS) is None
    h.change(True, 5000)
    assert h.poll(5000 + LONG_PRESS_MS) == "long"                  # held: the overrule, at once
    assert h.poll(5000 + 3 * LONG_PRESS_MS) is None and not h.waiting()   # once per press
    h.change(False, 9000)
    h.change(True, 9100)
    assert h.poll(9100 + LONG_PRESS_MS) == "long"                  # the next press again


class PollsLevelsOnly(Debounced):
    """The planted fault: a debouncer that looks at levels only (the IRQ's edges ignored), as the
    poll before this change did: a blip between two polls goes unseen."""

    def poll(self, now):
        self.pending = False
        return Debounced.poll(self, now)


def blip_between_polls(cls):
    """The pole lifts (edge at t=0, the task polls at once and sleeps out the calm); while it
    sleeps the reed closes and opens again (two IRQs), unseen as a level by the poll at t=20.
    Returns [(t, state)] confirmed when polled at t=0, 20 and then every ms to 60."""
    pin = FakePin(0)
    d = cls(pin, stable_ms=20)
    pin.level = 1
    d.irq()
    out = []
    for t in [0] + list(range(20, 61)):
        if t == 20:  # the blip, before this poll: both edges, the level back to open
            pin.level = 0
            d.irq()
            pin.level = 1
            d.irq()
        s = d.poll(t)
        if s is not None:
            out.append((t, s))
    return out


def test_an_edge_the_poll_never_saw_as_a_level_restarts_the_calm():
    # The task sleeps out the calm in one go (calm_left), so the IRQ's edges, not the levels it
    # happens to read, must restart it: the pole is out only 20 ms after the blip was noticed.
    assert blip_between_polls(Debounced) == [(40, False)]


def test_planted_fault_a_debouncer_of_levels_only_fails_the_check():
    assert blip_between_polls(PollsLevelsOnly) == [(20, False)]  # confirmed through the blip


def test_calm_left_is_what_remains_of_the_calm():
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=20)
    pin.level = 1
    d.irq()
    assert d.poll(100) is None and d.calm_left(100) == 20 and d.calm_left(113) == 7
    assert d.calm_left(125) == 1  # never a sleep of 0: the task polls again at once


class ArmablePin(FakePin):
    """A pin whose IRQ handler is kept, as machine.Pin.irq does; `edge(level)` fires it."""

    handler = None

    def irq(self, handler=None, trigger=0):
        self.handler = handler

    def edge(self, level):
        self.level = level
        if self.handler is not None:
            self.handler(self)


class Flag:
    def __init__(self):
        self.was_set = 0

    def set(self):
        self.was_set += 1


def test_a_change_before_the_irq_is_armed_is_seen_at_the_first_poll():
    # At a boot the buttons are read when the app is built (Debounced()) and their IRQs armed
    # later (gulo.app.main). A button let go in between (held through a power cut) raised no IRQ:
    # the debouncer still held it pressed, so the next press changed nothing it knew of and was
    # lost (a Reveal held 30 s for nothing). Arming wakes the task for one poll.
    pin = ArmablePin(0)                 # held while the app is built
    d = Debounced(pin, stable_ms=20)
    assert d.state is True
    pin.level = 1                       # let go before arm: no handler yet
    flag = Flag()
    d.arm(flag, 3)
    let_go = run(d, pin, [1] * 25) if flag.was_set else []   # the task polls only once woken
    pin.edge(0)                         # the next press
    assert let_go + run(d, pin, [0] * 25, start=100) == [(20, False), (120, True)]
