# The alarm's path allocates nothing from the reed's confirmed edge to the buzzer and the LEDs:
# the debouncer's poll, the siren's first note and the LED frame the alarm shows, each called with
# the heap locked inside the MicroPython VM (tests/test_firmware_in_micropython.py), so no
# collection can start between the pole and the alarm from these steps. (TurnFlow's verdict
# builds its notes, dicts, before them: that allocation is the rule engine's and is not covered.)
# On CPython there is no heap lock: these check the outputs only.

from gulo import board
from gulo.debounce import Debounced
from gulo.ledview import RED, LedView, to_strip
from gulo.sounds import ALARM, Tune
from gulo.turnflow import ATTEMPT, TurnFlow

from fakes import IN_VM, FakePin, heap_lock, heap_unlock
from gamekit import game_with, play


def locked(fn, *args):
    """fn(*args) with the heap locked: (result, None), or (None, the error it raised)."""
    heap_lock()
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001  (MemoryError is what we look for; anything is a failure)
        heap_unlock()
        return None, e
    heap_unlock()
    return r, None


def alarm_flow(t_ms):
    """A TurnFlow whose pole just fell during an attempt, at t_ms (its verdict made unlocked)."""
    g = game_with("GRYB")
    play(g, "reveal", "take G")  # p0 on tile 1
    f = TurnFlow(g)
    f.phase = ATTEMPT
    g.reveal()
    notes = f.pole(False, t_ms)
    assert notes and f.last and f.last["event"] == "alarm", notes
    return f


def siren_and_frame(view, tune, flow, strip, t_ms):
    """What Nest.handle does for an alarm before any report: the siren's first note and the LED
    frame, copied into the strip driver's buffer (GRB)."""
    tune.play("alarm", t_ms)
    f = tune.freq_at(t_ms)
    to_strip(view.render(flow, t_ms), strip, (1, 0, 2))
    return f


def test_the_reed_poll_that_confirms_the_alarm_allocates_nothing():
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=20)
    pin.level = 1
    d.irq()
    assert locked(d.poll, 0) == (None, None)    # the edge: the calm begins
    assert locked(d.poll, 19) == (None, None)
    assert locked(d.poll, 20) == (False, None)  # confirmed: the pole is out


def test_the_siren_and_the_red_path_allocate_nothing():
    flow = alarm_flow(5000)
    view, tune = LedView(), Tune()
    strip = bytearray(3 * board.LED_COUNT)
    f, err = locked(siren_and_frame, view, tune, flow, strip, 5000)
    assert err is None, err
    assert f == ALARM[0][0]
    n = len(flow.game.path)
    for k in range(1, n + 1):  # every path LED red on the strip (GRB: green 0, red first)
        j = 3 * view.tile_led(k)
        assert strip[j] == 0 and strip[j + 1] == view.buf[j] > 0 and strip[j + 2] == 0
    assert view.buf[3 * view.tile_led(1)] == RED[0] * view.cap // 255


def test_planted_fault_an_allocating_frame_fails_the_check():
    # The check above must be able to fail: a view that builds a list per LED, as a naive
    # renderer would, raises under the lock in the VM (on CPython nothing is locked).
    class Allocating(LedView):
        def _set(self, i, rgb, level=255):
            rgb = [c * level // 255 for c in rgb]
            LedView._set(self, i, rgb)

    flow = alarm_flow(5000)
    _, err = locked(siren_and_frame, Allocating(), Tune(), flow, bytearray(3 * board.LED_COUNT), 5000)
    if IN_VM:
        assert isinstance(err, MemoryError), err
    else:
        assert err is None
