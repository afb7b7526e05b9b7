# Debouncing the reed switch and the buttons.

from fakes import FakePin

from gulo.debounce import LONG_PRESS_MS, Debounced, Hold


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
