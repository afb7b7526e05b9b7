# A nest left switched on for days. The board's clock (gulo.clock) hands the weigher milliseconds
# since boot that wrap at 2**30, as ticks_ms does on the ESP32 (MicroPython's ticks period,
# py/mpconfig.h MICROPY_PY_TIME_TICKS_PERIOD = MP_SMALL_INT_POSITIVE_MASK + 1), and the weigher takes
# its differences modulo 2**30 (half of it, 6.2 days, each way). A time that reset() set to 0 as
# "long ago" was, after 6.2 days on, half a period ahead instead: the weigher then took every calm
# for one whose window still held samples from before a restart, and never judged an egg again
# until a pole was knocked (found reading the code, 2026-11-27). Every uptime here must give the
# events a fresh boot does. Plain asserts: CPython and inside MicroPython.

from test_weigher_rate import _samples

from gulo.clock import WRAP
from gulo.weigher import Weigher

DAY_MS = 24 * 3600 * 1000
HALF = 1 << 29                   # 6.2 days: where a difference taken modulo 2**30 turns negative
UPTIMES = (0, 2 * DAY_MS, HALF - 1000, HALF + 5000, 10 * DAY_MS, (1 << 30) - 4000,
           (1 << 30) + HALF + 5000, 40 * DAY_MS)

TAKES = [(1500, 18.0, 1.0, 0), (5000, 12.0, 1.0, 0)]   # a blue egg lifted clear, then a purple one


def _events(takes, end_ms, clock, back, act=None):
    """The weigher's events (out, colour, time on the trace's own clock) for `takes` at 80/s until
    end_ms, each sample fed at clock(t) (back() the inverse); act(w, t) runs before each (a reset,
    the reed)."""
    w = Weigher()
    out = []
    for t, g in _samples(80, takes, end_ms, seed=3):
        if act is not None:
            act(w, t)
        ev = w.feed(clock(t), g)
        if ev is not None:
            out.append((ev.get("out"), ev.get("colour"), back(ev["t_ms"])))
    return out


def _on_for(boot_ms, relearn_at=None):
    """The two takes at an uptime of boot_ms (a reset() at relearn_at ms: a calibration)."""
    done = []  # type: list[int]

    def act(w, t):
        if relearn_at is not None and t >= relearn_at and not done:
            w.reset()
            done.append(t)
    out = _events(TAKES, 9000, lambda t: (boot_ms + t) & WRAP, lambda c: (c - boot_ms) & WRAP, act)
    assert relearn_at is None or done
    return out


def test_a_nest_on_for_days_weighs_as_on_its_first_day():
    fresh = _on_for(0)
    assert [(n, c) for n, c, _ in fresh] == [(1, "B"), (1, "P")], fresh
    for up in UPTIMES:
        assert _on_for(up) == fresh, (up, _on_for(up))


def test_a_calibration_after_days_on_weighs_as_on_the_first_day():
    # reset() (gulo.turnflow's relearn after a calibration) once the nest is quiet again
    fresh = _on_for(0, relearn_at=400)
    assert [(n, c) for n, c, _ in fresh] == [(1, "B"), (1, "P")], fresh
    for up in UPTIMES:
        assert _on_for(up, relearn_at=400) == fresh, (up, _on_for(up, relearn_at=400))


def _reed_while_learning(days_later_ms):
    """The pole knocked and seated again while the weigher learns the nest at boot, 12 s at rest,
    then (after days_later_ms more at rest: a jump in the clock stands in for them) a blue egg
    taken. Its events, times less the jump."""
    def reed(w, t):
        if 100 <= t < 112:
            w.set_pole(False)
        elif 200 <= t < 212:
            w.set_pole(True)
    def clock(t):
        return (t + (days_later_ms if t >= 12000 else 0)) & WRAP
    # (the only event comes after the jump)
    return _events([(14000, 18.0, 1.0, 0)], 18000, clock, lambda c: (c - days_later_ms) & WRAP, reed)


def test_a_reed_change_while_learning_is_forgotten_before_days_at_rest():
    # The reed's restart time, set while the start learned (no quiet run of a busy nest clears it
    # then), was kept until the first egg: days later it read as ahead, and that egg was never
    # judged. The weigher's upkeep (once per window or four) drops a restart older than any window.
    fresh = _reed_while_learning(0)
    assert [(n, c) for n, c, _ in fresh] == [(1, "B")], fresh
    for later in (HALF + 5000, 10 * DAY_MS):
        assert _reed_while_learning(later) == fresh, later
