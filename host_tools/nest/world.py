"""NestWorld: a physical model of the nest as the HX711 and the reed switch see it.

Pure Python that runs unchanged on CPython and inside MicroPython 1.29 (the virtual board imports
it in the VM): no numpy, no dataclasses, no `random` module. A seed gives the same trace on both
(integer PRNG; floats may differ in the last bits between the two libms).

Scripting: actions are placed on a timeline (`take`, `drop`, `touch`, `knock_pole`, `seat_pole`,
`pour_back`, and `load` for a foreign mass such as a calibration weight), in any order and
overlapping if wanted; `grams(t_ms)` then gives the load on the cell
at any time and `pole_is_seated(t_ms)` the reed switch. Every random parameter of an action is drawn
when the action is scripted, and the per-sample noise is a hash of (seed, t_ms): so `grams(t)` is a
pure function of t, and asking for samples out of order (or twice) gives the same numbers.

What the model holds (grams on the cell, single 1 kg cell, HX711 channel A gain 128, 80 SPS):
- static load: bowl BOWL_G (180 g) + eggs in the bowl + the pole POLE_G (25 g) while seated;
- sensor noise: white gaussian, `noise_g` rms (drawn 0.05-0.2 g per seed unless given);
- zero drift: a slow linear drift (up to +-1 g/min) plus a slow wave (0.1-0.4 g, 2-8 min period);
- creep: after a load change dm the reading creeps by 0.2 % of dm, time constant 20 s;
- rare single-sample spikes (HX711 read glitches): ~1 sample in 1500, +-3 g .. +-2000 g;
- a hand taking an egg: contact force (1-6 g) with tremor (steady 0.3-1 g at 6-11 Hz, shaky 2-5 g at
  3-8 Hz), optionally pressing (20-60 g for 1-4 s, tremor 1-3 g) or hanging (the egg half-lifted,
  30-70 % of its weight off the bowl, held 0.5-2 s with a small 8-12 Hz tremor 0.8-2 g and a slow
  wander, then it comes free); the egg's weight leaves the bowl over 60-200 ms; the hand brushes the
  other eggs for 30-150 ms more and leaves; then the bowl rings down (damped 5-10 Hz, 0.5-2.5 g,
  time constant 25-70 ms);
- an egg rolling out on its own: its weight leaves over 80-250 ms with a rocking wobble, a small kick;
- the pole knocked: a jolt of 5-15 g, its mass leaves, a ring-down of 1.5-4 g; the reed opens 20-50 ms in;
- the pole seated: a hand presses it in (10-40 g for 0.2-0.5 s), the reed closes, ring-down;
- eggs poured back: 0.5-1.5 s of eggs landing (each an impact of 2-5x its weight for 20-40 ms),
  a hand on the rim (5-20 g, tremor 2-6 g), then a ring-down of 1-4 g.
Faults (plain attributes, settable at any time): `unplugged` (grams() returns None), `noisy`
(noise 2 g rms and 50 Hz pickup), `reed_stuck` (None, or the pin level the reed reads forever:
0 = closed = seated).

Ground truth: `truth` lists what really happened, one dict per event, in scripting order
(`events()` sorts them by time):
  {"what": "out", "t_ms": T, "colour": "R", "cause": "take"|"drop", ...}  T = hand leaves / egg gone
  {"what": "touch", "t_ms": T, ...}       a hand came and went without taking anything
  {"what": "pole_out", "t_ms": T} / {"what": "pole_in", "t_ms": T}      T = reed changes
  {"what": "back", "t_ms": T, "eggs": {...}}   eggs poured back; T = hand leaves (nest full again)
"""

import math

_M32 = 0xFFFFFFFF
_TWO_PI = 2.0 * math.pi

DEFAULT_MASSES = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
FULL_NEST = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}
COLOURS = "GPYRB"
BOWL_G = 180.0
POLE_G = 25.0
HANDS = ("steady", "shaky", "press", "hang")
SPIKE_RATE = 1.0 / 1500.0
CREEP = 0.002
CREEP_TAU_MS = 20000.0


class Rng:
    """xorshift32: tiny, seedable, identical on CPython and MicroPython."""

    def __init__(self, seed=1):
        s = ((seed & _M32) * 2654435761 + 0x6D2B79F5) & _M32
        self.s = s or 0x9E3779B9
        for _ in range(4):
            self.next32()

    def next32(self):
        x = self.s
        x ^= (x << 13) & _M32
        x ^= x >> 17
        x ^= (x << 5) & _M32
        self.s = x
        return x

    def random(self):
        return self.next32() / 4294967296.0

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def randint(self, a, b):
        return a + self.next32() % (b - a + 1)

    def chance(self, p):
        return self.random() < p

    def choice(self, seq):
        return seq[self.next32() % len(seq)]

    def gauss(self, mu=0.0, sigma=1.0):
        u1 = (self.next32() + 0.5) / 4294967296.0
        u2 = self.random()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


def _mix(x):
    # lowbias32 (Chris Wellons): a good 32-bit integer hash.
    x &= _M32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & _M32
    x ^= x >> 16
    return x


def _smooth(x):
    # smoothstep clipped to [0, 1]
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


def _ring(dt, amp, freq, tau, phase):
    # damped oscillation that starts at dt = 0 (ms)
    if dt < 0:
        return 0.0
    return amp * math.exp(-dt / tau) * math.sin(_TWO_PI * freq * dt / 1000.0 + phase)


class _Tremor:
    """Two sines near a main frequency: a hand's tremor, amplitude 1 (scaled by the caller)."""

    def __init__(self, rng, f_lo, f_hi):
        self.w1 = _TWO_PI * rng.uniform(f_lo, f_hi) / 1000.0
        self.w2 = self.w1 * rng.uniform(1.3, 1.9)
        self.p1 = rng.uniform(0.0, _TWO_PI)
        self.p2 = rng.uniform(0.0, _TWO_PI)

    def at(self, t):
        return 0.8 * math.sin(self.w1 * t + self.p1) + 0.45 * math.sin(self.w2 * t + self.p2)


class _Action:
    # t0: first time it acts; t_end: after it, only `dm` (the permanent change) remains;
    # t_mass: when the mass change is complete (creep starts there).
    t0 = 0
    t_end = 0
    t_mass = 0
    dm = 0.0

    def at(self, t):
        return 0.0


class _Take(_Action):
    def __init__(self, rng, t_in, mass, hand, lift=True):
        self.mass = mass if lift else 0.0
        self.hand = hand
        self.t0 = t_in
        shaky = hand == "shaky"
        self.force = rng.uniform(1.0, 6.0)
        if shaky:
            self.amp = rng.uniform(2.0, 5.0)
            self.trem = _Tremor(rng, 3.0, 8.0)
        else:
            self.amp = rng.uniform(0.3, 1.0)
            self.trem = _Tremor(rng, 6.0, 11.0)
        t = t_in + rng.randint(250, 900 if not shaky else 1200)
        self.press = None
        if hand == "press":
            p0 = t_in + rng.randint(80, 300)
            p1 = p0 + rng.randint(1000, 4000)
            self.press = (p0, p1, rng.uniform(20.0, 60.0), rng.uniform(1.0, 3.0), _Tremor(rng, 4.0, 9.0),
                          rng.uniform(150.0, 400.0))
            t = p1 + rng.randint(100, 400)
        self.t_lift = t
        self.hang = None
        if hand == "hang" and lift:
            d1 = rng.randint(80, 160)
            hold = rng.randint(500, 2000)
            d2 = rng.randint(60, 150)
            # (fraction lifted, lift ms, hold ms, free ms, tremor g, tremor, wander g, wander w, phase)
            self.hang = (rng.uniform(0.3, 0.7), d1, hold, d2, rng.uniform(0.8, 2.0),
                         _Tremor(rng, 8.0, 12.0), rng.uniform(0.2, 0.6),
                         _TWO_PI * rng.uniform(0.5, 1.5) / 1000.0, rng.uniform(0.0, _TWO_PI))
            self.t_free = t + d1 + hold + d2
        else:
            self.t_free = t + rng.randint(60, 200)
        self.t_leave = self.t_free + rng.randint(30, 150)
        self.f_out = rng.uniform(0.3, 1.0) * self.force
        ring_amp = rng.uniform(0.5, 2.5) * (1.5 if shaky else 1.0)
        self.ringp = (ring_amp, rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0), rng.uniform(0.0, _TWO_PI))
        self.t_end = self.t_leave + int(10 * self.ringp[2])
        self.t_mass = self.t_free
        self.dm = -self.mass

    def lifted(self, t):
        # fraction of the egg's weight off the bowl
        if self.mass == 0.0 or t < self.t_lift:
            return 0.0
        if t >= self.t_free:
            return 1.0
        h = self.hang
        if h is None:
            return _smooth((t - self.t_lift) / (self.t_free - self.t_lift))
        frac, d1, hold, d2 = h[0], h[1], h[2], h[3]
        dt = t - self.t_lift
        if dt < d1:
            return frac * _smooth(dt / d1)
        if dt < d1 + hold:
            return frac
        return frac + (1.0 - frac) * _smooth((dt - d1 - hold) / d2)

    def at(self, t):
        if t >= self.t_leave:
            return -self.mass + _ring(t - self.t_leave, *self.ringp)
        ramp = _smooth((t - self.t0) / 60.0)
        lifted = self.lifted(t)
        if t < self.t_lift:
            g = ramp * (self.force + self.amp * self.trem.at(t))
        elif t < self.t_free:
            g = (1.0 - lifted) * self.force + self.amp * self.trem.at(t)
        else:
            fade = 1.0 - (t - self.t_free) / (self.t_leave - self.t_free)
            g = fade * (self.f_out + self.amp * self.trem.at(t))
        p = self.press
        if p is not None and p[0] <= t < p[1] + p[5]:
            env = _smooth((t - p[0]) / p[5]) * (1.0 - _smooth((t - p[1]) / p[5]))
            g += env * (p[2] + p[3] * p[4].at(t))
        h = self.hang
        if h is not None:
            d1, hold = h[1], h[2]
            dt = t - self.t_lift
            if d1 * 0.5 <= dt < d1 + hold + h[3]:
                g += h[4] * h[5].at(t) + h[6] * math.sin(h[7] * t + h[8])
        return g - self.mass * lifted


class _Drop(_Action):
    def __init__(self, rng, t0, mass):
        self.t0 = t0
        self.mass = mass
        self.dur = rng.randint(80, 250)
        self.t_mass = t0 + self.dur
        self.wob = (rng.uniform(0.2, 1.0), _TWO_PI * rng.uniform(3.0, 6.0) / 1000.0)
        self.ringp = (rng.uniform(0.3, 1.5), rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0),
                      rng.uniform(0.0, _TWO_PI))
        self.t_end = self.t_mass + int(10 * self.ringp[2])
        self.dm = -mass

    def at(self, t):
        if t >= self.t_mass:
            return -self.mass + _ring(t - self.t_mass, *self.ringp)
        x = (t - self.t0) / self.dur
        return -self.mass * _smooth(x) + self.wob[0] * math.sin(self.wob[1] * (t - self.t0))


class _Knock(_Action):
    def __init__(self, rng, t0, mass):
        self.t0 = t0
        self.mass = mass
        self.jolt = rng.uniform(5.0, 15.0)
        self.t_reed = t0 + rng.randint(20, 50)
        self.t_mass = t0 + rng.randint(60, 140)
        self.ringp = (rng.uniform(1.5, 4.0), rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0),
                      rng.uniform(0.0, _TWO_PI))
        self.t_end = self.t_mass + int(10 * self.ringp[2])
        self.dm = -mass

    def at(self, t):
        if t >= self.t_mass:
            return -self.mass + _ring(t - self.t_mass, *self.ringp)
        x = (t - self.t0) / (self.t_mass - self.t0)
        return self.jolt * math.sin(math.pi * x) - self.mass * _smooth(2.0 * x - 0.6)


class _Seat(_Action):
    def __init__(self, rng, t0, mass):
        self.t0 = t0
        self.mass = mass
        self.t_reed = t0 + rng.randint(50, 150)
        self.t_leave = t0 + rng.randint(200, 500)
        self.press = rng.uniform(10.0, 40.0)
        self.amp = rng.uniform(1.0, 3.0)
        self.trem = _Tremor(rng, 4.0, 10.0)
        self.ringp = (rng.uniform(1.0, 3.0), rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0),
                      rng.uniform(0.0, _TWO_PI))
        self.t_mass = self.t_reed
        self.t_end = self.t_leave + int(10 * self.ringp[2])
        self.dm = mass

    def at(self, t):
        if t >= self.t_leave:
            return self.mass + _ring(t - self.t_leave, *self.ringp)
        dur = self.t_leave - self.t0
        env = _smooth((t - self.t0) / 60.0) * (1.0 - _smooth((t - self.t_leave + 80) / 80.0))
        g = self.mass * _smooth((t - self.t0) / (self.t_reed - self.t0))
        return g + env * (self.press * _smooth((t - self.t0) / (0.3 * dur)) + self.amp * self.trem.at(t))


class _Load(_Action):
    # Something other than the game's eggs put on the bowl (mass > 0) or lifted off (mass < 0):
    # a calibration weight, eggs weighed by colour. Set down over 80-200 ms, then a small ring-down.
    def __init__(self, rng, t0, mass):
        self.t0 = t0
        self.mass = mass
        self.t_mass = t0 + rng.randint(80, 200)
        self.ringp = (rng.uniform(0.3, 1.5), rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0),
                      rng.uniform(0.0, _TWO_PI))
        self.t_end = self.t_mass + int(10 * self.ringp[2])
        self.dm = mass

    def at(self, t):
        if t >= self.t_mass:
            return self.mass + _ring(t - self.t_mass, *self.ringp)
        return self.mass * _smooth((t - self.t0) / (self.t_mass - self.t0))


class _Pour(_Action):
    def __init__(self, rng, t0, masses):
        self.t0 = t0
        dur = rng.randint(500, 1500)
        self.eggs = []
        for m in masses:
            ti = t0 + 50 + rng.randint(0, dur)
            self.eggs.append((ti, m, m * rng.uniform(2.0, 5.0), rng.uniform(8.0, 20.0)))
        self.t_leave = t0 + dur + 60 + rng.randint(100, 300)
        self.force = rng.uniform(5.0, 20.0)
        self.amp = rng.uniform(2.0, 6.0)
        self.trem = _Tremor(rng, 3.0, 9.0)
        self.ringp = (rng.uniform(1.0, 4.0), rng.uniform(5.0, 10.0), rng.uniform(25.0, 70.0),
                      rng.uniform(0.0, _TWO_PI))
        self.t_mass = t0 + dur + 80
        self.t_end = self.t_leave + int(10 * self.ringp[2])
        self.dm = 0.0
        for m in masses:
            self.dm += m

    def at(self, t):
        if t >= self.t_leave:
            return self.dm + _ring(t - self.t_leave, *self.ringp)
        g = 0.0
        for ti, m, imp, tau in self.eggs:
            if t >= ti:
                dt = t - ti
                g += m * _smooth(dt / 15.0) + imp * math.exp(-dt / tau)
        env = _smooth((t - self.t0) / 80.0) * (1.0 - _smooth((t - self.t_leave + 100) / 100.0))
        return g + env * (self.force + self.amp * self.trem.at(t))


class NestWorld:
    """The nest on its load cell, with a scripted timeline of hands, eggs and the pole.

    `nest` and `pole_seated` are the state after every action scripted so far (script order);
    `nest_at(t)` and `pole_is_seated(t)` give the state at a time.
    """

    def __init__(self, seed=1, masses=None, sps=80, noise_g=None, nest=None, bowl_g=BOWL_G, pole_g=POLE_G):
        self.seed = seed & _M32
        self.sps = sps
        self.masses = dict(masses) if masses else dict(DEFAULT_MASSES)
        self.full = dict(nest) if nest else dict(FULL_NEST)
        self.nest = dict(self.full)
        self.pole_seated = True
        self.bowl_g = bowl_g
        self.pole_g = pole_g
        self.rng = Rng(self.seed)
        r = self.rng
        self.noise_g = noise_g if noise_g is not None else r.uniform(0.05, 0.2)
        self.drift_rate = r.uniform(-1.0, 1.0) / 60000.0
        self.drift_amp = r.uniform(0.1, 0.4)
        self.drift_w = _TWO_PI / r.uniform(120000.0, 480000.0)
        self.drift_p = r.uniform(0.0, _TWO_PI)
        self.mains_p = r.uniform(0.0, _TWO_PI)
        self.unplugged = False
        self.noisy = False
        self.reed_stuck = None
        self.spikes = True
        self.truth = []
        self.actions = []
        self._pole_changes = []  # (t_ms, seated)
        self.base = bowl_g + pole_g
        for c in self.full:
            self.base += self.full[c] * self.masses[c]
        self._reset_cache()

    def restore(self, nest, pole_seated):
        """Start from the nest as it was left (eggs out of the bowl, the pole on the table): a real
        nest stays as it is across a power cut or a restart; the virtual board keeps this state
        beside its flash folder (VirtualBoard(keep_world=True)). Eggs out count as out since t < 0."""
        for c in self.full:
            n = nest.get(c, self.full[c])
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= self.full[c]:
                raise ValueError(f"restore: {c} must be a count from 0 to {self.full[c]}")
        for c in self.full:
            out = self.full[c] - nest.get(c, self.full[c])
            self.nest[c] = self.full[c] - out
            self.base -= out * self.masses[c]
            for _ in range(out):
                self.truth.append({"what": "out", "t_ms": -1, "colour": c, "cause": "restored"})
        if not pole_seated:
            self.pole_seated = False
            self.base -= self.pole_g
            self._pole_changes.append((-1, False))
        self._reset_cache()

    def state(self):
        """What restore() takes: the eggs in the bowl and the pole, after every scripted action."""
        return {"nest": dict(self.nest), "pole_seated": self.pole_seated}

    # ---- scripting --------------------------------------------------------------------------
    def _add(self, a):
        self.actions.append(a)
        self._reset_cache()
        return a

    def take(self, t_ms, colour, hand="steady"):
        """A hand takes one egg of `colour`; returns the t_ms at which the hand leaves the bowl."""
        if hand not in HANDS:
            raise ValueError("unknown hand {!r} (one of {})".format(hand, ", ".join(HANDS)))
        self._need_egg(colour)
        a = self._add(_Take(self.rng, int(t_ms), self.masses[colour], hand))
        self.nest[colour] -= 1
        self.truth.append({"what": "out", "t_ms": a.t_leave, "colour": colour, "cause": "take", "hand": hand,
                           "t_in": a.t0, "t_free": a.t_free})
        return a.t_leave

    def touch(self, t_ms, hand="steady"):
        """A hand fumbles in the bowl and leaves without an egg; returns when it leaves."""
        if hand not in HANDS:
            raise ValueError("unknown hand {!r} (one of {})".format(hand, ", ".join(HANDS)))
        a = self._add(_Take(self.rng, int(t_ms), 0.0, hand, lift=False))
        self.truth.append({"what": "touch", "t_ms": a.t_leave, "hand": hand, "t_in": a.t0})
        return a.t_leave

    def drop(self, t_ms, colour):
        """An egg rolls out on its own starting at t_ms; returns when it has left the bowl."""
        self._need_egg(colour)
        a = self._add(_Drop(self.rng, int(t_ms), self.masses[colour]))
        self.nest[colour] -= 1
        self.truth.append({"what": "out", "t_ms": a.t_mass, "colour": colour, "cause": "drop", "t_in": a.t0})
        return a.t_mass

    def knock_pole(self, t_ms):
        """The pole falls onto the table; returns when its mass has left the bowl."""
        if not self.pole_seated:
            raise ValueError("the pole is not seated")
        a = self._add(_Knock(self.rng, int(t_ms), self.pole_g))
        self.pole_seated = False
        self._pole_changes.append((a.t_reed, False))
        self._pole_changes.sort()
        self.truth.append({"what": "pole_out", "t_ms": a.t_reed, "t_in": a.t0, "t_end": a.t_mass})
        return a.t_mass

    def seat_pole(self, t_ms):
        """A hand puts the pole back (pressing it in); returns when the hand leaves."""
        if self.pole_seated:
            raise ValueError("the pole is already seated")
        a = self._add(_Seat(self.rng, int(t_ms), self.pole_g))
        self.pole_seated = True
        self._pole_changes.append((a.t_reed, True))
        self._pole_changes.sort()
        self.truth.append({"what": "pole_in", "t_ms": a.t_reed, "t_in": a.t0, "t_leave": a.t_leave})
        return a.t_leave

    def pour_back(self, t_ms, eggs=None):
        """Eggs that are out go back into the bowl: every one, or only `eggs` ({colour: count}, as a
        player puts back the eggs that belong in the nest while an egg taken this round stays out);
        returns when the hand leaves."""
        if eggs is not None:
            for c, n in eggs.items():
                if c not in self.full or not isinstance(n, int) or isinstance(n, bool) or n < 0:
                    names = ", ".join(self.full)
                    raise ValueError(f"pour_back: eggs must map colours ({names}) to counts")
                out = self.full[c] - self.nest[c]
                if n > out:
                    raise ValueError(f"pour_back: only {out} {c} egg(s) are out")
        back = {}
        masses = []
        for c in self.full:
            n = self.full[c] - self.nest[c] if eggs is None else eggs.get(c, 0)
            if n > 0:
                back[c] = n
                for _ in range(n):
                    masses.append(self.masses[c])
        a = self._add(_Pour(self.rng, int(t_ms), masses))
        for c, n in back.items():
            self.nest[c] += n
        self.truth.append({"what": "back", "t_ms": a.t_leave, "eggs": back, "t_in": a.t0})
        return a.t_leave

    def load(self, t_ms, grams):
        """A mass that is not one of the game's eggs is put on the bowl (grams > 0) or lifted off
        (grams < 0): a calibration weight, eggs weighed by colour. Not in `truth` (no game event);
        returns when the mass has settled."""
        a = self._add(_Load(self.rng, int(t_ms), float(grams)))
        return a.t_mass

    def _need_egg(self, colour):
        if colour not in self.masses:
            raise ValueError(f"unknown colour {colour!r}")
        if self.nest.get(colour, 0) <= 0:
            raise ValueError(f"no {colour} egg left in the nest")

    # ---- reading ----------------------------------------------------------------------------
    def events(self):
        """Ground truth sorted by time."""
        return sorted(self.truth, key=lambda e: e["t_ms"])

    def busy_until(self):
        """The time after which nothing scripted moves the cell any more (ring-downs included)."""
        t = 0
        for a in self.actions:
            if a.t_end > t:
                t = a.t_end
        return t

    def nest_at(self, t_ms):
        """Eggs in the bowl at t_ms according to the ground truth."""
        n = dict(self.full)
        for e in self.truth:
            if e["t_ms"] <= t_ms:
                if e["what"] == "out":
                    n[e["colour"]] -= 1
                elif e["what"] == "back":
                    for c in e["eggs"]:
                        n[c] += e["eggs"][c]
        return n

    def pole_is_seated(self, t_ms):
        if self.reed_stuck is not None:
            return self.reed_stuck == 0  # the reed's pin level: closed (0) reads as seated
        seated = True
        for tc, s in self._pole_changes:
            if tc <= t_ms:
                seated = s
        return seated

    def _reset_cache(self):
        self._last_t = None
        self._pending = None

    def _static(self, t):
        # sum of all scripted actions at time t, with creep; fast when t only grows
        if self._pending is None or t < self._last_t:
            self._pending = sorted(self.actions, key=lambda a: -a.t0)
            self._active = []
            self._creeping = []
            self._done = 0.0
        self._last_t = t
        pend = self._pending
        while pend and pend[-1].t0 <= t:
            self._active.append(pend.pop())
        act = self._active
        ended = False
        for a in act:
            if a.t_end <= t:
                ended = True
                self._done += a.dm
                if a.dm:
                    self._creeping.append((a.t_mass, a.dm))
        if ended:
            self._active = act = [a for a in act if a.t_end > t]
        g = self._done
        if self._creeping:
            old = False
            for tc, dm in self._creeping:
                dt = t - tc
                if dt > 6.0 * CREEP_TAU_MS:
                    old = True
                    self._done += CREEP * dm
                else:
                    g += CREEP * dm * (1.0 - math.exp(-dt / CREEP_TAU_MS))
            if old:
                self._creeping = [c for c in self._creeping if t - c[0] <= 6.0 * CREEP_TAU_MS]
                g = self._done
                for tc, dm in self._creeping:
                    g += CREEP * dm * (1.0 - math.exp(-(t - tc) / CREEP_TAU_MS))
        for a in act:
            g += a.at(t)
        return g

    def clean_grams(self, t_ms):
        """The load without sensor noise, spikes or drift (for plots and ground truth)."""
        return self.base + self._static(int(t_ms))

    def grams(self, t_ms):
        """What the HX711 reads (in grams) at t_ms, or None while it is unplugged."""
        if self.unplugged:
            return None
        t = int(t_ms)
        g = self.base + self._static(t)
        g += self.drift_rate * t + self.drift_amp * math.sin(self.drift_w * t + self.drift_p)
        k = _mix(self.seed ^ 0xA511E9B3)
        h1 = _mix(k ^ _mix(t & _M32))
        h2 = _mix(h1 ^ 0x68E31DA4)
        u1 = (h1 + 0.5) / 4294967296.0
        u2 = h2 / 4294967296.0
        sigma = self.noise_g
        if self.noisy:
            sigma = 2.0
            g += 3.0 * math.sin(_TWO_PI * 0.05 * t + self.mains_p)
        g += sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)
        if self.spikes:
            h3 = _mix(h2 ^ 0x1B873593)
            if h3 < int(SPIKE_RATE * 4294967296.0):
                h4 = _mix(h3 ^ 0x27D4EB2F)
                mag = 3.0 * math.exp((h4 >> 1) / 2147483648.0 * math.log(2000.0 / 3.0))
                g += mag if h4 & 1 else -mag
        return g

    def sample_times(self, t_from, t_to):
        """Sample instants (integer ms) of an HX711 at `sps` from t_from (inclusive) to t_to."""
        out = []  # type: list[int]
        k = 0
        while True:
            t = t_from + (k * 1000) // self.sps
            if t >= t_to:
                return out
            out.append(t)
            k += 1
