# The weigher at the HX711's real rates (86-94 samples/s at "80 SPS", 10-12 at "10 SPS"), a rate
# that changes mid-session, and a still hand: a heavier egg held half-lifted, its partial weight
# exactly a lighter colour's, for up to 0.5 s, must never be named before the hand has left.
# The traces are built here from the physics (docs/weigher.md, "The physics model"): a lift's
# loading ramp (Johansson & Westling 1984), a hold with almost no tremor, each HX711 conversion the
# mean of the load over its period, noise. Plain asserts: CPython and inside MicroPython.

import math
import sys

from gulo.weigher import Weigher

FULL = 500.0


class _Rng:
    def __init__(self, seed):
        self.s = (seed * 2654435761 + 12345) & 0x7FFFFFFF or 1

    def uniform(self):
        self.s = (1103515245 * self.s + 12345) & 0x7FFFFFFF
        return self.s / 0x7FFFFFFF

    def gauss(self):
        return self.uniform() + self.uniform() + self.uniform() - 1.5   # sd 0.5


def _load(t, takes, ring=None, adds=()):
    """Grams on the cell at t (ms): every take is (t0, egg_g, frac, hold_ms); ring: the bowl
    struck at t_r, ringing down (t_r, grams, hz, tau_ms); adds: weight put on (t0, grams, ms it
    stays: a hand resting, or None: eggs put back; negative: put back without a jolt), on and
    off over 60 ms. Eggs put back land at the end of it: dropped 2 cm (the physics model's drops:
    0.5-4 cm), v = sqrt(2 g h) = 0.63 m/s, an impulse m v (in gf ms: grams x 0.63 / 9.81 x 1000)
    over 8 ms."""
    g = FULL
    for t0, add, dur in adds:
        if t >= t0:
            on = min(1.0, (t - t0) / 60.0)
            if dur is not None and dur >= 0 and t >= t0 + dur:
                on = max(0.0, 1.0 - (t - t0 - dur) / 60.0)
            g += add * on
            if dur is None and t0 + 60 <= t < t0 + 68:
                g += add * 0.626 / 9.81 * 1000 / 8
    if ring is not None and t >= ring[0]:
        dt = t - ring[0]
        g += ring[1] * math.exp(-dt / ring[3]) * math.sin(2 * math.pi * ring[2] * dt / 1000.0)
    for t0, egg, frac, hold in takes:
        ramp1 = 150 * frac
        t1 = t0 + ramp1           # half-lifted: the hand holds frac of the egg
        t2 = t1 + hold            # then lifts on
        t3 = t2 + 100             # lift-off
        if t < t0:
            continue
        if t < t1:
            g -= egg * frac * (t - t0) / ramp1
        elif t < t2:
            g -= egg * frac
        elif t < t3:
            g -= egg * (frac + (1 - frac) * (t - t2) / 100)
        else:
            g -= egg
    return g


def conversions(load, period, end_ms, step_ms):
    """(t, grams) of HX711 conversions every `period` ms until end_ms: each the mean of load(t)
    over its period, taken every step_ms (the HX711 averages over its conversion)."""
    t = period
    while t < end_ms:
        n = 0
        s = 0.0
        u = t - period
        while u < t:
            s += load(u)
            n += 1
            u += step_ms
        yield t, s / n
        t += period


def _samples(rate, takes, end_ms, seed=1, noise_g=0.04, ring=None, adds=()):
    """HX711 conversions at `rate`/s with 1 ms of jitter: each the mean of the load over its period."""
    rng = _Rng(seed)
    out = []
    for t, g in conversions(lambda u: _load(u, takes, ring, adds), 1000.0 / rate, end_ms, 4):
        out.append((int(t + rng.uniform()), g + noise_g * 2 * rng.gauss()))
    return out


def _with_constant(name, value, check):
    """Run check() with one of gulo.weigher's constants changed (a planted fault; CPython only:
    MicroPython folds the constants into the code)."""
    import gulo.weigher as wmod

    saved = getattr(wmod, name)
    setattr(wmod, name, value)
    try:
        return check()
    finally:
        setattr(wmod, name, saved)


def _run(w, samples):
    events = []
    for t, g in samples:
        ev = w.feed(t, g)
        if ev is not None:
            events.append(ev)
    return events


def _hold_case(rate, frac, hold, seed):
    """A blue egg (18 g) held with `frac` of its weight off the bowl for `hold` ms, then lifted
    out; the hand is gone when it is off. Returns (events, t the hand left)."""
    takes = [(1500, 18.0, frac, hold)]
    gone = 1500 + 150 * frac + hold + 100
    return _run(Weigher(), _samples(rate, takes, gone + 1500, seed)), gone


# partial weights that are exactly green, purple, yellow
_FRACS = (10.0 / 18, 12.0 / 18, 14.0 / 18)


def test_still_holds_up_to_half_a_second_never_give_an_early_verdict():
    for rate in (11, 90):
        for hold in (0, 120, 250, 400, 500):
            for i, frac in enumerate(_FRACS):
                events, gone = _hold_case(rate, frac, hold, seed=hold + i)
                assert events and events[0]["t_ms"] >= gone, (rate, hold, frac, events, gone)
                assert [e.get("colour") for e in events] == ["B"], (rate, hold, frac, events)


def test_the_hold_check_fails_without_the_wait():
    # The planted fault: the wait for a still hold taken out (CPython only: MicroPython folds
    # the constant into the code). The same check must then see an early, wrong verdict.
    if sys.implementation.name != "cpython":
        return

    def early():
        n = 0
        for hold in (250, 400, 500):
            for i, frac in enumerate(_FRACS):
                events, gone = _hold_case(90, frac, hold, seed=hold + i)
                n += bool(events) and events[0]["t_ms"] < gone
        return n

    assert _with_constant("_T_STILL", 0, early) > 0


def test_each_colour_at_both_settings_and_the_whole_range_of_rates():
    masses = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
    for rate in (10, 12, 86, 94):
        takes = []
        t = 1500
        for c in "GPYRB":
            takes.append((t, masses[c], 1.0, 0))
            t += 2500
        w = Weigher()
        events = _run(w, _samples(rate, takes, t + 500, seed=rate))
        assert [e.get("colour") for e in events] == list("GPYRB"), (rate, events)
        assert (rate > 50) == (w.rate_sps() > 50) and abs(w.rate_sps() - rate) <= 2, (rate, w.rate_sps())
        # latency from lift-off: the slower setting is slower, never early
        for (t0, _, _, _), e in zip(takes, events):
            lag = e["t_ms"] - (t0 + 250)
            assert 0 < lag <= (1000 if rate < 50 else 800), (rate, e, t0)


def test_a_rate_that_changes_mid_session_is_followed():
    # 90/s, then the board restarted with RATE to ground (10/s) without a new weigher, then back
    takes = [(1500, 14.0, 1.0, 0), (6500, 16.0, 1.0, 0), (11500, 10.0, 1.0, 0)]
    fast = _samples(90, takes, 4000, seed=3)
    slow = [s for s in _samples(11, takes, 9000, seed=4) if s[0] > fast[-1][0]]
    fast2 = [s for s in _samples(90, takes, 14000, seed=5) if s[0] > slow[-1][0]]
    w = Weigher()
    ev1 = _run(w, fast)
    r1 = w.rate_sps()
    ev2 = _run(w, slow)
    r2 = w.rate_sps()
    ev3 = _run(w, fast2)
    assert 85 <= r1 <= 95 and 9 <= r2 <= 13 and 85 <= w.rate_sps() <= 95, (r1, r2, w.rate_sps())
    assert [e.get("colour") for e in ev1 + ev2 + ev3] == ["Y", "R", "G"], (ev1, ev2, ev3)


def _ring_case(rate, ring_g, hz, tau_ms, seed=1):
    """A yellow egg lifted straight out, the bowl struck as it leaves (a neighbour egg rolling
    into the gap) and ringing down. Returns (events, t the hand left)."""
    gone = 1500 + 150 + 100
    takes = [(1500, 14.0, 1.0, 0)]
    s = _samples(rate, takes, gone + 2500, seed, ring=(gone - 20, ring_g, hz, tau_ms))
    return _run(Weigher(), s), gone


_RINGS = ((3.0, 20, 150), (4.0, 25, 200), (2.0, 40, 300))   # grams, Hz, decay ms (zeta 0.01-0.05)


def test_a_ring_down_does_not_add_to_the_still_hold_wait():
    # The wait for a still hold counts from when the window's mean reached the level: a bowl
    # ringing about it (the mean is there) is no hold. At 90/s the ring is seen (at 11/s the
    # HX711's 100 ms average hides most of it).
    for hz_ring in _RINGS:
        events, gone = _ring_case(90, *hz_ring)
        assert [e.get("colour") for e in events] == ["Y"], (hz_ring, events)
        assert 0 <= events[0]["t_ms"] - gone <= 780, (hz_ring, events, gone)


def test_the_ring_check_fails_when_the_wait_counts_from_the_calm():
    # The planted fault (CPython only: MicroPython folds the constant): the mean never "keeps" a
    # level, so the wait counts from the calm after the ring-down, as before; the same trace
    # then gives a verdict later than the check allows.
    if sys.implementation.name != "cpython":
        return

    def late():
        n = 0
        for hz_ring in _RINGS:
            events, gone = _ring_case(90, *hz_ring)
            n += events[0]["t_ms"] - gone > 780
        return n

    # with the free ring's calm taken out too (gulo.weigher _RING_SD), which weighs these rings
    # before they die and by itself brings two of them under the bound
    assert _with_constant("_RING_SD", 0, lambda: _with_constant("_NEAR", -1000000, late)) == len(_RINGS)


def test_a_still_hold_in_a_ringing_bowl_never_gives_an_early_verdict():
    # the hold's level reached with the bowl struck (the mean is there from the hold's start:
    # counting from then must still cover the whole hold)
    for rate in (11, 90):
        for hold in (250, 400, 500):
            for i, frac in enumerate(_FRACS):
                t1 = 1500 + 150 * frac
                gone = t1 + hold + 100
                s = _samples(rate, [(1500, 18.0, frac, hold)], gone + 1500, seed=hold + i,
                             ring=(t1 - 10, 4.0, 20, 200))
                events = _run(Weigher(), s)
                assert events and events[0]["t_ms"] >= gone, (rate, hold, frac, events, gone)
                assert [e.get("colour") for e in events] == ["B"], (rate, hold, frac, events)


def _resting_hand_case(weigher, rate, seed=7):
    """A yellow and a red egg taken, then a hand rests still on the eggs (10 g, a green egg's
    weight, for 1.5 s) and leaves. Returns the events."""
    takes = [(1500, 14.0, 1.0, 0), (4000, 16.0, 1.0, 0)]
    return _run(weigher, _samples(rate, takes, 10000, seed, adds=[(6500, 10.0, 1500)]))


def test_a_hand_resting_on_the_eggs_is_not_learned():
    # Less than two eggs' weight added, not the full nest, is a hand until 3 s of calm: learned
    # as eggs back, the hand's leaving would be a green egg taken (at 10 SPS its tremor is gone
    # in the HX711's 100 ms average: the physics model's false events at 10 SPS)
    for rate in (11, 90):
        events = _resting_hand_case(Weigher(), rate)
        assert [e.get("colour") for e in events] == ["Y", "R"], (rate, events)


def test_the_resting_hand_check_fails_when_the_hand_is_learned():
    # The planted fault (CPython only): any level accepted after 675 ms of calm
    if sys.implementation.name != "cpython":
        return
    events = _with_constant("_T_LONG", 675, lambda: _resting_hand_case(Weigher(), 90))
    assert [e.get("colour") for e in events] == ["Y", "R", "G"], events


def _back_after_ring_case(weigher, rate=90, seed=8):
    """A yellow egg taken, then put back into a bowl that rings for a second (4 g, 20 Hz, decay
    300 ms). Returns (events, t the egg was back)."""
    back = 4000 + 60
    s = _samples(rate, [(1500, 14.0, 1.0, 0)], 7000, seed, adds=[(4000, 14.0, None)],
                 ring=(4030, 4.0, 20, 300))
    return _run(weigher, s), back


def test_eggs_back_after_a_long_ring_are_full_without_a_held_wait():
    # No held egg can weigh exactly the full nest: the wait for a level the signal sat at while
    # moving (an egg held, calm only in a lull) is not for `full`
    events, back = _back_after_ring_case(Weigher())
    assert [("full" if "full" in e else e.get("colour")) for e in events] == ["Y", "full"], events
    assert events[1]["t_ms"] - back <= 900, events


def _lighter_eggs_at_10_sps():
    """Latency (ms after the hand left) of a yellow, a green and a red egg lifted straight out at 11/s."""
    lat = []
    for i, egg in enumerate((14.0, 10.0, 16.0)):
        events = _run(Weigher(), _samples(11, [(1500, egg, 1.0, 0)], 5000, seed=i + 3))
        lat.append(events[0]["t_ms"] - 1750)
    return lat


def test_at_10_sps_the_still_wait_counts_from_the_conversion_before_the_calm():
    # each 10 SPS sample is the load over the 90 ms before it: the first quiet sample says the
    # level was there a conversion earlier, and the wait for a still hold counts from then
    assert all(0 < x <= 560 for x in _lighter_eggs_at_10_sps()), _lighter_eggs_at_10_sps()


def test_the_conversion_check_fails_without_it_and_the_hold_check_when_it_reaches_too_far():
    # Planted faults (CPython only): the correction taken out (the verdicts 90 ms later than the
    # check allows), and a correction of a whole second (the still-hold check sees early verdicts)
    if sys.implementation.name != "cpython":
        return
    assert min(_with_constant("_T_CONV", 1000, _lighter_eggs_at_10_sps)) > 560

    def early():
        n = 0
        for hold in (250, 400, 500):
            for i, frac in enumerate(_FRACS):
                events, gone = _hold_case(11, frac, hold, seed=hold + i)
                n += events[0]["t_ms"] < gone
        return n

    assert _with_constant("_T_CONV", -1000, early) > 0
