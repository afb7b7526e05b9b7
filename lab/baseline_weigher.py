"""The plain detector the weigher is compared with: "max - min over a window".

Every sample, look at the last `window` raw samples; when their spread (max - min) is under
`spread_g`, the window's mean is a settled level; a settled level that differs from the last one
by more than `step_g` is an event: the difference is classified as the nearest egg colour, two
eggs or more, or (weight back up to the full nest) "full". It knows the pole's state like the
weigher does, so both are scored on the same footing. Same interface as gulo.weigher.Weigher.
The defaults (12 samples = 150 ms, 0.5 g) are the best of a sweep (docs/weigher.md): a narrower
spread or a shorter window is faster and wrong more often, a wider one slower. With `window_ms`
the window is that long at the rate measured over the first 10 samples, at least 4 samples
(150 ms: 13-14 samples at 86-94/s, 4 at 10-12/s), so it runs at either HX711 setting.
"""

from gulo.weigher import DEFAULT_MASSES, POLE_G


class BaselineWeigher:
    def __init__(self, masses=None, pole_g=POLE_G, window=12, spread_g=0.5, step_g=0.6, window_ms=None):
        self.masses = dict(masses or DEFAULT_MASSES)
        self.pole_g = pole_g
        self.window = window
        self.spread_g = spread_g
        self.step_g = step_g
        self.buf = []
        self.level = None
        self.full = None
        self.pole_now = True
        self.pole_level = True
        self.out = 0
        self.window_ms = window_ms
        self.times = []
        self.at_rest = False   # the last window was still (what the game waits for: lab.weighscore)

    def set_pole(self, seated):
        self.pole_now = bool(seated)

    def feed(self, t_ms, grams):
        if self.window_ms and len(self.times) < 11:
            self.times.append(t_ms)
            if len(self.times) == 11:
                period = (self.times[-1] - self.times[0]) / 10
                self.window = max(4, round(self.window_ms / period)) if period > 0 else 4
        self.buf.append(grams)
        while len(self.buf) > self.window:   # (the window may have shrunk: 12 -> 4 at 10 SPS)
            del self.buf[0]
        self.at_rest = len(self.buf) == self.window and max(self.buf) - min(self.buf) <= self.spread_g
        if not self.at_rest:
            return None
        m = sum(self.buf) / len(self.buf)
        pole_adj = 0.0 if self.pole_now else self.pole_g
        if self.level is None:
            self.level, self.full, self.pole_level = m, m + pole_adj, self.pole_now
            return None
        delta = self.level - m
        if self.pole_level != self.pole_now:
            delta += self.pole_g if self.pole_now else -self.pole_g
        if abs(delta) <= self.step_g:
            return None
        self.level, self.pole_level = m, self.pole_now
        if delta < 0:
            if abs(self.full - pole_adj - m) < 1.0 and self.out:
                self.out = 0
                return {"t_ms": t_ms, "full": True}
            return None
        if delta >= 2 * min(self.masses.values()) - 1.0:
            self.out += 2
            return {"t_ms": t_ms, "out": 2}
        colour = min(self.masses, key=lambda c: abs(self.masses[c] - delta))
        self.out += 1
        return {"t_ms": t_ms, "colour": colour, "out": 1}
