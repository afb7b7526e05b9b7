# The board's clock wraps at 2**30 ms, as ticks_ms does on the ESP32 (gulo.clock): a count that
# never wrapped was a long int after 12.4 days on, and every time difference then allocated. Here:
# the three ways times are compared read true differences across the wrap and never make a long
# int; every part that keeps a time behaves across the wrap as it does at boot; and the sampler's
# per-sample path (HX711 silence, weigher, nest watch) allocates nothing at any uptime, which the
# old clock's times fail. Plain asserts: CPython and inside MicroPython (the allocation checks
# only there: the VM's small ints are 31-bit, as the ESP32's).

from loadtrace import samples as _samples

from gulo.clock import WRAP, Clock, diff, elapsed, later
from gulo.debounce import Debounced, Hold
from gulo.hx711 import Silence
from gulo.nestfault import NestWatch
from gulo.sounds import Tune
from gulo.weigher import Weigher

from fakes import IN_VM, FakePin, heap_lock, heap_unlock

HALF = 1 << 29
DAY_MS = 24 * 3600 * 1000
# boot, just before the wrap, half a period on (where a signed difference turns), and the last ms
BASES = (0, 5, HALF - 3, HALF + 7, WRAP - 2, WRAP)


def test_the_three_read_true_differences_across_the_wrap():
    for base in BASES:
        for d in (0, 1, 999, 86_400_000, HALF - 1):
            then, now = base, (base + d) & WRAP
            assert elapsed(now, then) == d, (base, d)
            assert diff(now, then) == d and diff(then, now) == -d, (base, d)
            assert later(then, d) == now, (base, d)
        # elapsed() reaches a whole period less a ms; diff() half of it each way
        assert elapsed((base + WRAP) & WRAP, base) == WRAP
        assert diff((base + HALF) & WRAP, base) == -HALF


def test_none_of_the_three_makes_a_long_int():
    # heap-locked in the VM: a long int on the way raises MemoryError
    values = (0, 1, HALF - 1, HALF, HALF + 1, WRAP - 1, WRAP)
    steps = (0, 1, HALF - 1, HALF)    # (built before the lock: a tuple of names is made at run time)
    heap_lock()
    try:
        for a in values:
            for b in values:
                elapsed(a, b)
                diff(a, b)
            for ms in steps:
                later(a, ms)
    finally:
        heap_unlock()


def test_planted_fault_a_signed_inline_form_makes_one_and_the_lock_sees_it():
    # ((a - b + 2**29) & WRAP) - 2**29, a signed difference inline: a - b + 2**29 passes 2**30 for
    # differences of 6.2 days or more
    if not IN_VM:
        return
    raised = False
    heap_lock()
    try:
        ((WRAP - 0 + HALF) & WRAP) - HALF
    except MemoryError:
        raised = True
    finally:
        heap_unlock()
    assert raised


class _Ticks:
    """time.ticks_ms / ticks_diff of a 32-bit port (period 2**30), set by hand."""

    def __init__(self, t):
        self.t = t

    def ticks_ms(self):
        return self.t & WRAP

    def ticks_diff(self, a, b):
        return diff(a, b)


def test_the_clock_counts_from_boot_and_wraps():
    ticks = _Ticks(WRAP - 100)          # ticks_ms itself wraps 101 ms after boot
    clock = Clock(ticks)
    readings = []
    for step in (50, 50, 1, 999, DAY_MS):
        ticks.t += step
        readings.append(clock.now())
    assert readings == [50, 100, 101, 1100, 1100 + DAY_MS]
    for _ in range(11):     # read daily for 11 days more
        ticks.t += DAY_MS
        clock.now()
    ticks.t += WRAP - 1100 - 12 * DAY_MS     # 2**30 - 1 ms since boot, then 2**30 + 9
    assert clock.now() == WRAP
    ticks.t += 10
    assert clock.now() == 9


def _debounced(t0):
    """A reed bouncing then settling closed, opening for 10 ms (a wobble), then opening for good:
    (time less t0, the change confirmed, the calm left) at each poll."""
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=20, now=t0)
    edges = {100: 1, 101: 0, 103: 1, 200: 0, 210: 1, 400: 0}
    out = []
    for t in (100, 101, 103, 110, 122, 123, 130, 200, 205, 210, 229, 230, 400, 419, 420, 421):
        if t in edges:
            pin.level = edges[t]
            d.irq()
        now = (t0 + t) & WRAP
        out.append((t, d.poll(now), d.calm_left(now) if d.settling() else None))
    return out


def test_parts_that_keep_a_time_behave_across_the_wrap_as_at_boot():
    fresh = _debounced(0)
    assert [(t, c) for t, c, _ in fresh if c is not None] == [(123, False), (420, True)], fresh
    for t0 in (WRAP - 120, WRAP - 205, HALF - 100):
        assert _debounced(t0) == fresh, t0

        h = Hold(long_ms=1000)
        h.change(True, t0 & WRAP)
        assert h.poll((t0 + 999) & WRAP) is None and h.poll((t0 + 1000) & WRAP) == "long", t0

        s = Silence(t0 & WRAP)      # the power-up settling is no silence, across the wrap too
        assert not s.over((t0 + 10) & WRAP) and not s.over((t0 + 300) & WRAP), t0
        for k in range(40):
            s.heard((t0 + 300 + 11 * k) & WRAP)
        assert s.rate_sps() in (90, 91), (t0, s.rate_sps())
        quiet = (t0 + 300 + 11 * 39) & WRAP
        assert not s.over(later(quiet, s.limit_ms())) and s.over(later(quiet, s.limit_ms() + 1)), t0

        tune = Tune()
        tune.play("success", t0 & WRAP)
        assert [tune.freq_at((t0 + ms) & WRAP) for ms in (0, 69, 70, 189)] == [1319, 1319, 1760, 1760]
        assert tune.freq_at((t0 + 190) & WRAP) == 0 and tune.name is None, t0
        tune.play("alarm", t0 & WRAP)
        tune.play("prompt", (t0 + 500) & WRAP)          # the siren sounds in full
        assert tune.name == "alarm", t0
        tune.play("prompt", (t0 + 2000) & WRAP)         # and a prompt after it sounds
        assert tune.name == "prompt", t0


def _rest_then(jump, wrapped=True):
    """Bytes the sampler's per-sample path (Silence, Weigher.feed_cg, NestWatch.check) allocates
    over 3 s of a nest at rest, after 4 s at boot and then a jump of the clock by `jump` ms (the
    days it stayed on). wrapped=False: times as the old clock gave them, never wrapping."""
    import gc

    def clock(t):
        c = t + (jump if t >= 4000 else 0)
        return c & WRAP if wrapped else c
    samples = [(clock(t), int(g * 100 + 0.5)) for t, g in _samples(80, [], 8000, seed=7)]
    w = Weigher()
    watch = NestWatch()
    silence = Silence(0)
    changed = 0
    for t, x in samples[:400]:   # to 5 s: learning, and the first second after the jump
        silence.heard(t)
        w.feed_cg(t, x)
        watch.check(w, t)
    gc.collect()
    before = gc.mem_alloc()
    for i in range(400, len(samples)):    # (a slice would be a new list)
        t, x = samples[i]
        silence.heard(t)
        silence.over(t)
        w.feed_cg(t, x)
        changed += watch.check(w, t)
    used = gc.mem_alloc() - before
    assert w.at_rest and changed == 0, (jump, w.at_rest, changed)
    return used


def test_the_per_sample_path_allocates_nothing_however_long_the_nest_is_on():
    import gc
    if not hasattr(gc, "mem_alloc"):
        return
    for jump in (0, 7 * DAY_MS, WRAP - 4500, 13 * DAY_MS, 40 * DAY_MS):
        assert _rest_then(jump) == 0, (jump, _rest_then(jump))


def test_planted_fault_the_old_clock_allocates_at_every_sample_after_twelve_days():
    import gc
    if not hasattr(gc, "mem_alloc"):
        return
    assert _rest_then(0, wrapped=False) == 0
    assert _rest_then(13 * DAY_MS, wrapped=False) > 2000


def _take_after(days):
    """Bytes Weigher.feed_cg allocates over a shaky take of a yellow egg after `days` at rest (a
    jump of the clock 4 s after boot stands in for them), and the colours it said."""
    import gc

    from nest.world import NestWorld

    world = NestWorld(seed=23)
    leave = world.take(9000, "Y", "shaky")
    ts = world.sample_times(0, leave + 1500)
    xs = [int(world.grams(t) * 100 + 0.5) for t in ts]
    cs = [(t + (days * DAY_MS if t >= 4000 else 0)) & WRAP for t in ts]
    w = Weigher()
    got = []
    k = 0
    while ts[k] < 6000:
        w.feed_cg(cs[k], xs[k])
        k += 1
    gc.collect()
    before = gc.mem_alloc()
    for i in range(k, len(ts)):
        ev = w.feed_cg(cs[i], xs[i])
        if ev is not None:
            got.append(ev)
    return gc.mem_alloc() - before, [ev.get("colour") for ev in got]


def test_a_take_after_days_at_rest_allocates_only_its_event():
    # the weigher's own differences (modulo 2**30, its inline form) make no long int either on
    # its paths, 6.2 days and more after the times it kept at boot
    import gc
    if not hasattr(gc, "mem_alloc"):
        return
    for days in (0, 3, 7, 10, 13):
        used, said = _take_after(days)
        assert said == ["Y"] and used <= 64, (days, used, said)   # the event's dict and its list


def _alarm_frames(t0):
    """What the LED view draws every 50 ms over the 2 s after a pole knocked at t0 (an alarm's red
    flash, the light run back, the red status), and for how many of them it asks to be drawn again
    a frame later (the animation: still_ms). After them the actor's tile blinks in the clock's own
    phase (t_ms // BLINK_MS), which moves at the wrap."""
    from gulo.ledview import FRAME_MS, LedView
    from gulo.turnflow import TurnFlow

    from gamekit import game_with

    f = TurnFlow(game_with("GRYB"))
    f.phase = "pick"    # (as tests/test_ledview.py: the nest taken as ready)
    f.button("reveal", t0 & WRAP)
    f.phase = "attempt"
    f.pole(False, t0 & WRAP)
    view = LedView()
    frames = []
    animating = 0
    for ms in range(0, 2000, 50):
        now = (t0 + ms) & WRAP
        frames.append(bytes(view.render(f, now)))
        if view.still_ms(f, now) == FRAME_MS and animating == len(frames) - 1:
            animating += 1
    return frames, animating


def test_the_leds_draw_an_alarm_across_the_wrap_as_at_boot():
    fresh = _alarm_frames(1000)
    assert len(set(fresh[0])) > 1 and fresh[1] > 5, ("the alarm flashes", fresh[1])
    for t0 in (WRAP - 100, WRAP - 1500):
        assert _alarm_frames(t0) == fresh, t0


def test_the_nests_watch_counts_motion_across_the_wrap_as_at_boot():
    # a bowl that rubs for 45 s, the wrap 10 s into it: the fault shown and cleared when it is at boot
    from test_nestfault import _rubbing, _watch

    samples = _rubbing(3000, 48000, 11)
    fresh, _ = _watch(samples)
    assert [k for _, k in fresh] == [1, 0], fresh     # UNSETTLED, then OK
    off = WRAP + 1 - 13000
    changes, _ = _watch([((t + off) & WRAP, g) for t, g in samples])
    assert [((t - off) & WRAP, k) for t, k in changes] == fresh, changes
