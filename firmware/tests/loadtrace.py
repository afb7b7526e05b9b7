# Load-cell traces for the weigher's tests, built from the physics: a hand's lift as a loading ramp,
# the HX711's conversion as the mean of the load over its period (the datasheet's 10 SPS rejection
# of 50/60 Hz is that average), 1 ms of timestamp jitter and gaussian noise. Deterministic (its own
# generator): the same trace in CPython and inside MicroPython.

import math

FULL = 500.0


class Rng:
    def __init__(self, seed):
        self.s = (seed * 2654435761 + 12345) & 0x7FFFFFFF or 1

    def uniform(self):
        self.s = (1103515245 * self.s + 12345) & 0x7FFFFFFF
        return self.s / 0x7FFFFFFF

    def gauss(self):
        return self.uniform() + self.uniform() + self.uniform() - 1.5   # sd 0.5


def load(t, takes, ring=None, adds=()):
    """Grams on the cell at t (ms). takes: (t0, egg_g, frac, hold_ms): the hand lifts frac of the
    egg over 150 x frac ms, holds it still hold_ms, lifts it out over 100 ms. ring: (t_r, grams,
    hz, tau_ms), the bowl struck at t_r. adds: (t0, grams, ms it stays: a hand resting, or None:
    eggs put back), on and off over 60 ms."""
    g = FULL
    for t0, add, dur in adds:
        if t >= t0:
            on = min(1.0, (t - t0) / 60.0)
            if dur is not None and t >= t0 + dur:
                on = max(0.0, 1.0 - (t - t0 - dur) / 60.0)
            g += add * on
    if ring is not None and t >= ring[0]:
        dt = t - ring[0]
        g += ring[1] * math.exp(-dt / ring[3]) * math.sin(2 * math.pi * ring[2] * dt / 1000.0)
    for t0, egg, frac, hold in takes:
        t1 = t0 + 150 * frac
        t2 = t1 + hold
        if t < t0:
            continue
        if t < t1:
            g -= egg * frac * (t - t0) / (150 * frac)
        elif t < t2:
            g -= egg * frac
        elif t < t2 + 100:
            g -= egg * (frac + (1 - frac) * (t - t2) / 100)
        else:
            g -= egg
    return g


def gone_at(take):
    """When the hand of a take (as in load()) has left: the egg is off the bowl."""
    t0, _, frac, hold = take
    return t0 + 150 * frac + hold + 100


def samples(rate, takes, end_ms, seed=1, noise_g=0.04, ring=None, adds=()):
    """[(t_ms, grams)]: HX711 conversions at `rate`/s, each the mean of the load over its period."""
    rng = Rng(seed)
    out = []
    period = 1000.0 / rate
    t = period
    while t < end_ms:
        s = 0.0
        n = 0
        u = t - period
        while u < t:
            s += load(u, takes, ring, adds)
            n += 1
            u += 4
        out.append((int(t + rng.uniform()), s / n + noise_g * 2 * rng.gauss()))
        t += period
    return out


def run(w, trace, glitches=(), before=None):
    """Feed (t_ms, grams) to a weigher, a glitch (index, grams) added where given: its events.
    `before(w, t_ms, events)` is called before each sample (what the game tells the weigher)."""
    events: list = []
    for i in range(len(trace)):
        t, g = trace[i]
        for j, dg in glitches:
            if j == i:
                g += dg
        if before is not None:
            before(w, t, events)
        ev = w.feed(t, g)
        if ev is not None:
            events.append(ev)
    return events
