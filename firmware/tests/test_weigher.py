# The weigher's principles (docs/weigher.md), each shown at both HX711 settings on traces built
# from the physics (loadtrace), and each with its planted fault: the weigher's source with the
# principle taken out (CPython only: inside MicroPython the firmware is compiled .mpy) must fail
# the same check. Plain asserts: CPython and inside MicroPython.
#   settled before judged; a hand that comes back reopens the attempt; a late egg belongs to the
#   attempt; a calm keeps what holds; an egg said out and put back is in the nest again; in an
#   attempt no egg comes back; a glitch is not an egg; nothing allocated at rest; a change across
#   the pole coming or going is never an egg.
# And what the game relies on: every colour, two eggs, every egg back, the pole, a relearn.

import sys

from loadtrace import gone_at, run, samples

from gulo.weigher import Weigher

from fakes import IN_VM, heap_lock, heap_unlock

RATES = (11, 90)   # the HX711's "10 SPS" and "80 SPS" settings as measured (10-12, 86-94 /s)
B = 18.0
# partial weights of a blue egg that are exactly green, purple, yellow
FRACS = (10.0 / 18, 12.0 / 18, 14.0 / 18)


def _planted(old, new):
    """gulo.weigher.Weigher with `old` in its source replaced by `new` (None inside MicroPython)."""
    if sys.implementation.name != "cpython":
        return None
    import gulo.weigher as wmod

    with open(wmod.__file__) as f:
        src = f.read()
    assert old in src, old
    scope = {"__name__": "planted"}
    exec(compile(src.replace(old, new), "planted", "exec"), scope)
    return scope["Weigher"]


def _colours(events):
    return [e.get("colour", e.get("out", "full")) for e in events]


def _still_hold(W, rate, hold, seed, demand=None, tail=2000):
    """A blue egg held still with the weight of a lighter colour off the bowl for `hold` ms, then
    lifted out (`demand`: the colour the game demands): [(events, when the hand left)] for each
    lighter colour."""
    out = []
    for i, frac in enumerate(FRACS):
        take = (1500, B, frac, hold)
        w = W()
        if demand is not None:
            w.set_demand(demand)
        out.append((run(w, samples(rate, [take], gone_at(take) + tail, seed + i)), gone_at(take)))
    return out


# ---- settled before judged -------------------------------------------------------------------

def test_a_level_is_judged_only_once_settled_never_during_a_still_hold():
    # a hand holds a blue egg half out, still (no tremor), at exactly a lighter colour's weight:
    # that level is calm but not settled for long enough; only the egg's own colour is said, after
    # the hand has left, within the 1.5 s the game allows
    for rate in RATES:
        for hold in (150, 300, 450):
            for events, gone in _still_hold(Weigher, rate, hold, seed=hold):
                assert _colours(events) == ["B"], (rate, hold, events)
                assert gone <= events[0]["t_ms"] <= gone + 1500, (rate, hold, events, gone)


def test_planted_fault_a_weigher_that_judges_the_first_calm_names_the_held_level():
    W = _planted("_T_END = const(500)", "_T_END = const(150)")
    if W is None:
        return
    wrong = [ev for rate in RATES for ev, _ in _still_hold(W, rate, 450, seed=450)
             if _colours(ev) != ["B"]]
    assert wrong


# ---- what the game knows: a still hold longer than the calm -----------------------------------

def _demanded(W, rate, hold, seed):
    """The still holds of _still_hold, `hold` ms long, with blue demanded (the game's pick)."""
    return _still_hold(W, rate, hold, seed, demand="B", tail=4000)


def test_a_still_hold_longer_than_the_calm_names_no_lighter_colour_than_the_demanded():
    # the half-lifted blue egg held still for 0.9 and 2.5 s (past the 0.5 s calm) at exactly a
    # lighter colour's weight: only blue is said, within the 1.5 s after the hand left
    for rate in RATES:
        for hold in (900, 2500):
            for events, gone in _demanded(Weigher, rate, hold, seed=hold):
                assert _colours(events) == ["B"], (rate, hold, events)
                assert gone <= events[0]["t_ms"] <= gone + 1500, (rate, hold, events, gone)


def test_planted_fault_a_weigher_that_ignores_the_demand_names_the_held_level():
    W = _planted("if m < self._demand16 and not long:", "if False:")
    if W is None:
        return
    wrong = [ev for rate in RATES for ev, _ in _demanded(W, rate, 900, seed=900)
             if _colours(ev) != ["B"]]
    assert wrong


def test_a_wrong_lighter_egg_is_still_said_after_the_wait_and_the_demand_ends_with_an_egg():
    # blue demanded, a green egg taken cleanly: green is said, once 3 s of calm (_T_LONG) have
    # passed; a yellow egg rolling out after that is said at once (the attempt has its egg)
    for rate in RATES:
        take = (1500, 10.0, 1.0, 0)
        roll = (gone_at(take) + 5000, 14.0, 1.0, 0)
        w = Weigher()
        w.set_demand("B")
        events = run(w, samples(rate, [take, roll], gone_at(roll) + 2000, seed=rate))
        assert _colours(events) == ["G", "Y"], (rate, events)
        assert gone_at(take) + 2500 <= events[0]["t_ms"] <= gone_at(take) + 3500, (rate, events)
        assert events[1]["t_ms"] <= gone_at(roll) + 1500, (rate, events)


# ---- a hand that comes back reopens the attempt ----------------------------------------------

def _comes_back(W, rate, seed):
    """A red egg taken; 300 ms after its hand left, the hand comes back and presses the eggs
    (+25 g for 600 ms). Returns (events, weigher, when the hand left for good)."""
    take = (1500, 16.0, 1.0, 0)
    back = gone_at(take) + 300
    w = W()
    events = run(w, samples(rate, [take], back + 2500, seed, adds=[(back, 25.0, 600)]))
    return events, w, back + 660


def test_a_hand_that_comes_back_reopens_the_attempt():
    # one verdict, after the hand's last contact: the game counts its attempt's end from t_calm
    for rate in RATES:
        events, w, left = _comes_back(Weigher, rate, seed=3)
        assert _colours(events) == ["R"], (rate, events)
        assert w.t_calm >= left and events[0]["t_ms"] <= left + 1500, (rate, w.t_calm, left, events)


def test_planted_fault_a_weigher_whose_calm_ends_at_a_lull_says_it_before_the_hand_is_back():
    W = _planted("_T_END = const(500)", "_T_END = const(150)")
    if W is None:
        return
    early = []
    for rate in RATES:
        events, w, left = _comes_back(W, rate, seed=3)
        if not events or events[0]["t_ms"] < left:
            early.append(rate)
    assert early


def _dip_then_back(W, rate):
    """A red egg taken; the level dips 2 g lower (a blue egg's weight: a real plate's undershoot,
    AiFi) for a 400 ms lull, then the hand comes back and presses the eggs (+25 g for 600 ms)."""
    take = (1500, 16.0, 1.0, 0)
    lull = gone_at(take)
    adds = [(lull, -2.0, 400), (lull + 400, 25.0, 600)]
    return run(W(), samples(rate, [take], lull + 3400, 5, adds=adds))


def test_a_hand_that_comes_back_after_a_short_lull_leaves_the_lull_unjudged():
    # the lull was calm, but not for the 0.5 s a level needs: the egg is named from the level
    # after the hand has left for good, not from the dip
    for rate in RATES:
        assert _colours(_dip_then_back(Weigher, rate)) == ["R"], rate


def test_planted_fault_a_weigher_that_judges_a_short_calm_when_a_hand_comes_names_the_dip():
    W = _planted("& _WRAP >= _T_END:", "& _WRAP >= _T_READ:")
    if W is None:
        return
    assert ["B"] in [_colours(_dip_then_back(W, rate)) for rate in RATES]


# ---- a calm keeps what holds ------------------------------------------------------------------

def _creep(W, rate, creep_ms):
    """A red egg taken; the level then creeps up into place at 1.25 g/s for `creep_ms` (a load
    cell's creep, a plate's undershoot recovering: AiFi), so the last 400 ms of the creep already
    lie within the band (0.5 g). Returns [(events, when the creep ended)]."""
    take = (1500, 16.0, 1.0, 0)
    gone = gone_at(take)
    steps = creep_ms // 40
    rise = 1.25 * creep_ms / 1000
    adds = [(gone, -rise, None)] + [(gone + 40 * k, rise / steps, None) for k in range(steps)]
    end = gone + creep_ms + 60
    return run(W(), samples(rate, [take], end + 3000, seed=rate, adds=adds)), end


def _creep_late(W):
    """The creeps whose verdict came later than _T_END after the creep's last 400 ms began, beyond
    the weigher's lag (4 sample periods) and 100 ms: [(rate, creep_ms, events, when it ended)]."""
    late = []
    for rate in RATES:
        for creep_ms in range(800, 1500, 100):
            events, end = _creep(W, rate, creep_ms)
            if _colours(events) != ["R"] or events[0]["t_ms"] > end - 400 + 500 + 4000 // rate + 100:
                late.append((rate, creep_ms, events, end))
    return late


def test_a_level_creeping_into_its_band_is_judged_once_its_last_calm_lasted():
    # a break of the calm keeps the values since that lie within the band of it: the verdict does
    # not wait for a whole new calm after the creep's last break
    assert not _creep_late(Weigher)


def test_planted_fault_a_weigher_that_begins_its_calm_at_the_break_judges_a_creep_late():
    W = _planted("            self._calm_back()", "            self._calm_from(t_ms, a)")
    if W is None:
        return
    assert _creep_late(W)


# ---- a late egg belongs to the attempt -------------------------------------------------------

def _late_egg(W, rate, after):
    """A yellow egg taken; a green one rolls out `after` ms after the hand left."""
    take = (1500, 14.0, 1.0, 0)
    roll = (gone_at(take) + after, 10.0, 1.0, 0)
    return run(W(), samples(rate, [take, roll], gone_at(roll) + 2000, seed=after))


def test_a_late_egg_within_the_attempt_belongs_to_it():
    # an egg rolling out while the nest settles makes the attempt's two eggs (the game: an alarm)
    for rate in RATES:
        for after in (150, 300, 400):
            assert _colours(_late_egg(Weigher, rate, after)) == [2], (rate, after)


def test_planted_fault_a_weigher_that_closes_the_attempt_early_splits_it():
    W = _planted("_T_END = const(500)", "_T_END = const(150)")
    if W is None:
        return
    assert [2] not in [_colours(_late_egg(W, rate, 400)) for rate in RATES]


# ---- an egg said out and put back is in the nest again -----------------------------------------

def _put_back_then_taken(W, rate):
    """A red egg taken, then a yellow one; the yellow egg is put back 1.2 s after its hand left
    (lifted clear, then changed, which the rulebook forbids but children do); 1.2 s later, well
    inside _T_LONG, a green egg is taken."""
    red = (1500, 16.0, 1.0, 0)
    yellow = (gone_at(red) + 2500, 14.0, 1.0, 0)
    back = gone_at(yellow) + 1200
    green = (back + 1200, 10.0, 1.0, 0)
    trace = samples(rate, [red, yellow, green], gone_at(green) + 2500, seed=rate,
                    adds=[(back, 14.0, None)])
    return run(W(), trace)


def test_the_egg_last_said_out_and_put_back_is_weighed_from_at_once():
    # the put-back level is the rest the next take is weighed from, without waiting _T_LONG
    for rate in RATES:
        assert _colours(_put_back_then_taken(Weigher, rate)) == ["R", "Y", "G"], rate


def test_planted_fault_a_weigher_that_waits_out_every_rise_misses_the_next_take():
    W = _planted("if back_ok and self.out and self._last16 > tol and", "if False and")
    if W is None:
        return
    assert ["R", "Y"] in [_colours(_put_back_then_taken(W, rate)) for rate in RATES]


# ---- in an attempt no egg comes back -----------------------------------------------------------

def _press_then_take(W, rate):
    """A red egg taken (the game's last verdict); then the next attempt, green demanded: the hand
    presses on the pile with just the red egg's weight (16 g) for 0.8 s, longer than the calm,
    then takes a green egg. Returns the events."""
    red = (1500, 16.0, 1.0, 0)
    press = gone_at(red) + 2500
    green = (press + 800, 10.0, 1.0, 0)
    trace = samples(rate, [red, green], gone_at(green) + 2500, seed=rate, adds=[(press, 16.0, 800)])
    told: list = []

    def pick(w, t, events):
        if not told and events and t >= press - 500:
            w.set_demand("G")     # the pick: once the red egg is said, before the next hand
            told.append(t)

    return run(W(), trace, before=pick)


def test_in_an_attempt_a_hand_pressing_the_weight_of_the_eggs_out_is_no_egg_back():
    for rate in RATES:
        assert _colours(_press_then_take(Weigher, rate)) == ["R", "G"], rate


def test_planted_fault_a_weigher_that_takes_a_rise_in_an_attempt_for_eggs_back_says_two_out():
    W = _planted("back_ok = not self._demand16", "back_ok = True")
    if W is None:
        return
    assert [_colours(_press_then_take(W, rate)) for rate in RATES] != [["R", "G"]] * len(RATES)


# ---- a glitch is not an egg ------------------------------------------------------------------

# the read glitches of a real HX711 recording (lab.realglitches: 2.7-10.2 g, one sample), and a
# bit slip far off scale
GLITCHES = (2.7, 5.0, 10.2, -3.2, 744.0, -744.0)


def _glitched(W, rate):
    """A purple egg taken at 6 s; a glitch every half second from 2 s, one while its level settles.
    Returns (events, samples at which the weigher was not at rest before the take)."""
    trace = samples(rate, [(6000, 12.0, 1.0, 0)], 9000, seed=rate)
    n = len(trace)
    at = [(i, GLITCHES[k % len(GLITCHES)]) for k, i in enumerate(range(n * 2 // 9, n * 6 // 9, n // 18))]
    at.append((len([s for s in trace if s[0] < 6600]), 10.2))
    w = W()
    events = []
    moved = 0
    for i in range(n):
        t, g = trace[i]
        for j, dg in at:
            if j == i:
                g += dg
        ev = w.feed(t, g)
        if ev is not None:
            events.append(ev)
        if 1900 < t < 6000 and not w.at_rest:
            moved += 1
    return events, moved


def test_a_glitch_is_not_an_egg():
    # not even a disturbance at rest (the game is not held up by it), and the egg's colour right
    for rate in RATES:
        events, moved = _glitched(Weigher, rate)
        assert _colours(events) == ["P"] and moved == 0, (rate, events, moved)


def test_planted_fault_a_weigher_without_its_median_is_disturbed_by_a_glitch():
    W = _planted("y = x if lo <= x <= hi else (lo if x < lo else hi)", "y = x")
    if W is None:
        return
    assert all(_glitched(W, rate)[1] > 0 for rate in RATES)


def _glitch_at_the_start(W, rate, at):
    """A glitch (a real recording's far one, 744 g) at sample `at` after boot, a red egg taken at
    4 s: the events."""
    trace = samples(rate, [(4000, 16.0, 1.0, 0)], 7000, seed=rate)
    return run(W(), trace, glitches=[(at, 744.0)])


def test_a_glitch_in_the_first_samples_is_not_the_nest():
    # the median has no three samples yet: the first two only fill it, so no glitch becomes the
    # nest's level or its noise (which would make the band wider than any egg)
    for rate in RATES:
        for at in (0, 1, 2):
            assert _colours(_glitch_at_the_start(Weigher, rate, at)) == ["R"], (rate, at)


def test_planted_fault_a_weigher_that_takes_its_first_samples_as_the_median_misses_the_egg():
    # (the median of the first sample with itself twice, then of the second with itself twice)
    W = _planted("            self._x2 = x1 if self._n else x\n            self._x1 = x\n"
                 "            self._n += 1\n            return None\n",
                 "            if self._n == 0:\n                self._fill(1, x)\n"
                 "                self._y1 = x\n            self._n += 1\n            x1 = x2 = x\n")
    if W is None:
        return
    assert any(_colours(_glitch_at_the_start(W, rate, at)) != ["R"] for rate in RATES for at in (0, 1))


# ---- nothing allocated at rest ---------------------------------------------------------------

def test_nothing_is_allocated_at_rest():
    # the sampler's path at rest (most of a game): no heap at all (inside MicroPython: the heap
    # locked, an allocation raises)
    if not IN_VM:
        return
    trace = samples(90, [], 6000, seed=9)
    xs = [(t, int(g * 100 + 0.5)) for t, g in trace]
    w = Weigher()
    for i in range(300):
        w.feed_cg(xs[i][0], xs[i][1])
    assert w.at_rest
    heap_lock()
    try:
        for i in range(300, len(xs)):
            t, x = xs[i]
            w.feed_cg(t, x)
    finally:
        heap_unlock()
    assert w.at_rest


def test_planted_fault_the_float_path_allocates_and_the_lock_sees_it():
    # feed() in grams makes a float at every sample: the lock must see that
    if not IN_VM:
        return
    w = Weigher()
    trace = samples(90, [], 4000, seed=9)
    for i in range(300):
        w.feed(trace[i][0], trace[i][1])
    raised = False
    heap_lock()
    try:
        w.feed(trace[300][0], trace[300][1] + 0.001)
    except MemoryError:
        raised = True
    finally:
        heap_unlock()
    assert raised


# ---- what the game relies on -----------------------------------------------------------------

def test_every_colour_two_eggs_and_every_egg_back_at_both_settings():
    masses = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
    for rate in RATES:
        takes = []
        t = 1500
        for c in "GPYRB":
            takes.append((t, masses[c], 1.0, 0))
            t += 2500
        takes.append((t, 30.0, 1.0, 0))   # two eggs at once (a green and a purple... any pair)
        back = t + 2500
        w = Weigher()
        events = run(w, samples(rate, takes, back + 2500, seed=rate, adds=[(back, 100.0, None)]))
        assert _colours(events) == list("GPYRB") + [2, "full"], (rate, events)
        assert w.is_full() and w.out == 0 and abs(w.rate_sps() - rate) <= 2, (rate, w.rate_sps())


def test_the_pole_is_never_an_egg_and_its_return_is_the_full_nest():
    for rate in RATES:
        w = Weigher()
        out = False
        events = []
        # the pole (25 g) leaves at 2 s, a red egg is taken at 5 s, the pole is seated at 8 s, the
        # egg comes back at 11 s
        for t, g in samples(rate, [(5000, 16.0, 1.0, 0)], 14000, seed=rate,
                            adds=[(2000, -25.0, 6000), (11000, 16.0, None)]):
            if (2030 <= t < 8030) != out:
                out = not out
                w.set_pole(not out)
            ev = w.feed(t, g)
            if ev is not None:
                events.append(ev)
        assert _colours(events) == ["R", "full"], (rate, events)


def _pole_on_the_rim(W, rate):
    """Eggs out (a red one said), then the pole knocked out onto the rim: the reed opens, its mass
    stays on the bowl (long enough for the level to be adopted); then a hand lifts it off (-25 g)
    and seats it again 0.6 s later (+25 g). Returns the events."""
    red = (1500, 16.0, 1.0, 0)
    knock = gone_at(red) + 2000
    lift = knock + 4000
    seat = lift + 600
    trace = samples(rate, [red], seat + 3000, seed=rate, adds=[(lift, -25.0, 600)])
    return run(W(), trace, before=lambda w, t, events: w.set_pole(not knock <= t < seat))


def test_a_weight_change_across_the_pole_coming_or_going_is_never_an_egg():
    # the reed says only where the pole's foot is: its mass may stay on the rim
    for rate in RATES:
        assert _colours(_pole_on_the_rim(Weigher, rate)) == ["R"], rate


def test_planted_fault_a_weigher_that_takes_the_reed_for_the_pole_mass_says_two_out():
    # the reed taken for the pole's mass: its mass counted off the bowl while the reed is open
    W = _planted("        if self._pole_level != self._pole_now:\n",
                 "        delta += self._pole16 * (self._pole_now - self._pole_level)\n        if False:\n")
    if W is None:
        return
    assert [_colours(_pole_on_the_rim(W, rate)) for rate in RATES] != [["R"]] * len(RATES)


def test_a_relearn_takes_the_eggs_the_game_has_out():
    # reset(missing_g): the nest learned as full less the eggs in the bag (a game resumed)
    for rate in RATES:
        w = Weigher()
        trace = samples(rate, [(4000, 14.0, 1.0, 0)], 7000, seed=rate, adds=[(4000, 0.0, None)])
        run(w, trace[: len(trace) // 3])
        w.reset(26.0)
        events = run(w, trace[len(trace) // 3:])
        assert _colours(events) == ["Y"] and abs(w.deficit_g() - 40.0) < 0.5, (rate, events, w.deficit_g())


def _rate_after_a_short_first_period(W):
    # The sampler reads a conversion when it looks (gulo.hx711.Silence.look_in_ms): the first two
    # at boot may come 4 ms apart (the first read late, the next on time), then every 11 ms.
    w = W()
    t = 0
    w.feed(t, 340.0)
    t += 4
    for _ in range(90):          # one second at 80 SPS
        w.feed(t, 340.0)
        t += 11
    return w.rate_sps()


def test_a_first_period_measured_short_grows_to_the_true_rate_within_a_second():
    assert 80 <= _rate_after_a_short_first_period(Weigher) <= 100


def test_planted_fault_a_rate_that_drops_the_longer_periods_stays_at_the_short_one():
    W = _planted("                self._p16 = p + (((d if d < 2 * p else 2 * p) - p) >> 4)",
                 "                if d < 2 * p:\n                    self._p16 = p + ((d - p) >> 4)")
    if W is not None:
        assert _rate_after_a_short_first_period(W) > 200
