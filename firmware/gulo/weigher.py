# The egg weigher: load-cell samples in, egg events out. Pure logic (no `machine`): the board feeds
# it from the HX711 task, the host (`nest weigh --replay`) and the tests from files and models.
# The design and its figures: docs/weigher.md.
#
#   w = Weigher(masses, pole_g)        # egg masses per colour (calibration), the pole's mass
#   ev = w.feed(t_ms, grams)           # one HX711 sample; None or one event:
#        {"t_ms": T, "out": 1, "colour": "R"}   one egg left the nest
#        {"t_ms": T, "out": 2}                  two or more eggs left together
#        {"t_ms": T, "full": True}              all eggs are back: the nest is full again
#   w.set_pole(seated)                 # the reed switch: the pole's mass is never an egg
#   w.set_demand(colour)               # the colour the game demands (None between attempts)
#
# What the game needs is which eggs left during an attempt, so the weigher compares two SETTLED
# levels: the nest's level at rest before the attempt and the level it settles at after it.
# - At rest, the level follows slow drift; a sample further from it than the band (below) opens
#   an attempt, and the level before it is kept.
# - Settled: for _T_END ms every value of the signal (the median of 3 samples, averaged over
#   _T_AVG) lies within a band of max(half the class tolerance, _K_SIG x the noise), the noise and
#   the rate measured by the nest itself. A value outside the band breaks the calm, which begins
#   again at the oldest recent value within the band of every value since: a hand that comes
#   back, a ring, an egg rolling out late keep the same attempt open (a late egg belongs to it),
#   and a level creeping into its band keeps what holds. Only a new hand ends an attempt early:
#   the nest weighing more than before it after a calm of _T_END, no egg was held then.
# - Judged: the settled level (the mean of its last _T_READ: a creeping level is nearest its end
#   there) less the level before, classified against the egg masses: nothing, one colour, two
#   eggs or more, every egg back, or the eggs last said out back; anything else (a hand resting,
#   part of an egg) is adopted silently after _T_LONG of calm. So is one colour lighter than the
#   demanded one (a half-lifted egg held still weighs less than itself; a wrong lighter egg is
#   still said, later). While a colour is demanded no egg comes back (the eggs out are in the
#   bag), so a rise is a hand. A change across the pole coming or going is never an egg.
# - A glitch is not an egg: a median of 3 removes single-sample spikes, and a longer one only
#   restarts the calm about the same level (a difference of nothing).
# All arithmetic is on small ints (centigrams; levels in 1/16 cg), so nothing is allocated per
# sample at rest and the host gives the device's results bit for bit.

try:
    from micropython import const
except ImportError:  # CPython: const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

DEFAULT_MASSES = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
POLE_G = 25.0

_INIT = const(0)
_REST = const(1)
_BUSY = const(2)

_S = const(16)              # levels in 1/16 centigram
_WRAP = const(0x3FFFFFFF)   # times are gulo.clock readings: elapsed = (now - then) & _WRAP
# Each constant's source: docs/weigher.md, "The constants and their sources".
_T_END = const(500)         # the calm that settles a level (the 1.5 s verdict less AiFi's 0.8 s)
_T_READ = const(200)        # every egg back is read, not waited out; a level is its last 0.2 s
_N_MIN = const(3)           # and at least 3 samples in a calm (a spread needs samples: 10 SPS)
_N_INIT = const(8)          # learning the nest: the first level waits for 8 samples of noise
_T_LONG = const(3000)       # a level naming no change, or a colour lighter than the demanded one
_K_SIG = const(4)           # the band in noise: the range of 50 values of the signal, 1 % above
_T_AVG = const(50)          # the signal's average: one period of a 20 Hz bowl ring
_MMAX = const(12)           # samples in that average at most (94 samples/s: 5; up to 240/s)
_ZS = const(6)              # the rest's level follows drift over 2**6 samples (0.7-6 s)
_MAD0 = const(32)           # the noise before any is measured: median |dx| of 2 cg (1/16 cg)
_RING = const(64)           # the signal's last values kept (a power of 2): _T_END at 120/s


def centigrams(grams):
    """Grams (a float) to whole centigrams, rounded half away from zero, as feed_cg takes them."""
    return int(grams * 100 + (0.5 if grams >= 0 else -0.5))


class Weigher:
    def __init__(self, masses=None, pole_g=POLE_G):
        self._mad = _MAD0
        self._known = False    # the noise has been measured at rest (a reset keeps it)
        self._p16 = 0          # the measured sample period in 1/16 ms (0: not yet)
        self._buf = [0] * _MMAX   # the last _m samples (after the median), for the average
        self._m = 1
        self._i = 0
        self._bsum = 0
        self._pole_now = True
        self.pole_g = pole_g
        self._pole16 = int(pole_g * 100 * _S)
        self._ring_t = [0] * _RING   # the signal's last values and their times, the newest at _ri - 1
        self._ring_a = [0] * _RING
        self._ri = 0
        self._rn = 0
        self._demand = None    # the demanded colour, and its mass (0: none demanded)
        self._demand16 = 0
        self.set_masses(masses or DEFAULT_MASSES)
        self.reset()

    def set_masses(self, masses):
        """Egg masses per colour in grams (calibration). Any two eggs must outweigh any one."""
        cols = []
        for c in masses:
            cols.append((int(masses[c] * 100 * _S), c))
        cols.sort()
        lo = cols[0][0]
        gap = 2 * lo - cols[-1][0]   # the lightest pair against the heaviest egg
        for i in range(1, len(cols)):
            if cols[i][0] - cols[i - 1][0] < gap:
                gap = cols[i][0] - cols[i - 1][0]
        if gap <= 0:
            raise ValueError("egg masses too close: two eggs must outweigh any single one")
        self._cols = cols
        self._tol = min(gap // 2, 150 * _S)   # half the narrowest gap, at most 1.5 g
        self._two = 2 * lo - self._tol        # two eggs or more from here
        self.masses = dict(masses)
        self.set_demand(self._demand)
        self._set_band()

    def set_demand(self, colour):
        """The colour the game demands in this attempt (None: none). A settled level that names a
        lighter colour is then said only after _T_LONG of calm: it may be the demanded egg held
        half-lifted. An unknown colour is no demand."""
        self._demand = colour
        self._demand16 = 0
        for m, c in self._cols:
            if c == colour:
                self._demand16 = m

    def reset(self, missing_g=0, keep_noise=True):
        """Forget the nest: the next settled level is learned as the full nest less `missing_g`
        (eggs the game says are out). The noise is kept unless `keep_noise` is False (a new
        scale: a calibration)."""
        if not keep_noise:
            self._mad = _MAD0
            self._known = False
        self._missing16 = int(missing_g * 100 * _S)
        self._state = _INIT
        self.ready = False     # _state != _INIT (plain attributes, not properties: in
        self.at_rest = False   # MicroPython a property makes every attribute store look it up)
        self.busy_since = -1   # t_ms the attempt began, -1 at rest
        self.t_calm = 0        # t_ms the calm began that settled the last change (the hand had left)
        self.out = 0           # eggs out since the nest was last full (a lower bound after out: 2)
        self.events = 0
        self._level16 = 0
        self._full16 = 0
        self._last16 = 0
        self._pole_level = self._pole_now
        self._cand16 = 0
        self._cand_t = -1
        self._n = 0            # samples seen (to 3: the median's and the average's start)
        self._x1 = self._x2 = self._y1 = 0
        self._t_last = 0
        self._calm_from(0, 0)
        self._q = 0            # no calm yet

    def _set_band(self):
        # the average's length for the measured rate, and the band for the measured noise
        m = (_T_AVG * _S + self._p16 // 2) // self._p16 if self._p16 else 1
        m = 1 if m < 1 else (_MMAX if m > _MMAX else m)
        if m != self._m:
            self._fill(m, self._buf[(self._i - 1) % self._m])
        sig = self._mad + self._mad // 21   # median |dx| = 0.954 sigma for gaussian noise
        b = _K_SIG * sig
        half = self._tol // 2
        self._band = (b if b > half else half) // _S   # cg

    def _fill(self, m, y):
        for i in range(m):
            self._buf[i] = y
        self._m = m
        self._i = 0
        self._bsum = m * y

    def _calm_from(self, t_ms, a):
        self._q = 1
        self._t_q = t_ms
        self._ref = a
        self._lo = self._hi = 0

    def _calm_back(self):
        # the calm begins again at the oldest value kept within the band of every value since
        ring = self._ring_a
        j = (self._ri - 1) & (_RING - 1)
        lo = hi = ring[j]
        n = 1
        while n < self._rn:
            v = ring[(j - 1) & (_RING - 1)]
            if (hi if v < hi else v) - (lo if v > lo else v) > self._band:
                break
            lo = lo if v > lo else v
            hi = hi if v < hi else v
            j = (j - 1) & (_RING - 1)
            n += 1
        self._q = self._rn = n
        self._t_q = self._ring_t[j]
        self._ref = ring[j]
        self._lo = lo - ring[j]
        self._hi = hi - ring[j]

    def set_pole(self, seated):
        """The reed switch's confirmed state (True: seated). A change opens an attempt: the reed
        switches before the pole's mass has stopped moving, so the calm starts again."""
        seated = bool(seated)
        if seated == self._pole_now:
            return
        self._pole_now = seated
        self._q = 0
        self._cand_t = -1
        if self._state == _REST:
            self._busy(self._t_last)

    def _busy(self, t_ms):
        self._cand_t = -1      # no calm of this attempt yet (a level, and when its calm began)
        self._state = _BUSY
        self.at_rest = False
        self.busy_since = t_ms
        self._q = 0
        self._set_band()

    # ---- queries for the firmware --------------------------------------------------------------
    def level_g(self):
        """The settled weight on the cell (grams)."""
        return self._level16 / (100 * _S)

    def deficit_g(self):
        """Grams missing from the full nest at the settled level (the pole's state accounted)."""
        return (self._full_expected() - self._level16) / (100 * _S)

    def is_full(self):
        """At rest with every egg in the bowl."""
        d = self._full_expected() - self._level16
        return self._state == _REST and -self._tol < d < self._tol

    def last_change_g(self):
        """Weight that left the bowl at the last settled change (negative: weight came in)."""
        return self._last16 / (100 * _S)

    def tolerance_g(self):
        """How far a settled level may be from an expected one and still be it (half the
        narrowest gap between egg classes, at most 1.5 g)."""
        return self._tol / (100 * _S)

    def noise_g(self):
        """The measured sensor noise (rms grams)."""
        return self.noise_cg() / 100

    def noise_cg(self):
        """The measured sensor noise in whole centigrams (rms): an int (no float per sample)."""
        return (self._mad + self._mad // 21) // _S

    def rate_sps(self):
        """The measured sample rate (samples per second; 0 before it is measured)."""
        return 16000 // self._p16 if self._p16 else 0

    def lag_ms(self):
        """How late a change of weight reaches the weigher: 4 conversions (docs/weigher.md)."""
        return self._p16 >> 2   # 4 periods of _p16 / 16 ms

    def _full_expected(self):
        return self._full16 if self._pole_now else self._full16 - self._pole16

    # ---- the sample path -----------------------------------------------------------------------
    def feed(self, t_ms, grams):
        """One sample (grams). Returns None or an event dict. None (the driver lost the HX711)
        is skipped: the fault is the driver's to report."""
        if grams is None:
            return None
        return self.feed_cg(t_ms, centigrams(grams))

    def feed_cg(self, t_ms, x):
        """One sample in centigrams (int). Returns None or an event dict."""
        # the rate: the mean period; a gap (a stalled task, a lost conversion) counts as at most
        # twice it, so a first period measured short (a conversion read late, the next on time)
        # still grows to the true one
        if self._n:
            d = ((t_ms - self._t_last) & _WRAP) * _S
            p = self._p16
            if p == 0:
                self._p16 = d
            else:
                self._p16 = p + (((d if d < 2 * p else 2 * p) - p) >> 4)
        self._t_last = t_ms
        x1 = self._x1
        x2 = self._x2
        if self._n < 2:   # the median of 3 needs three samples: the first two only fill it
            self._x2 = x1 if self._n else x
            self._x1 = x
            self._n += 1
            return None
        # the noise: a running median of |dx| between raw samples, learned at rest (a hand never
        # is: the nest is busy then) a step at a time, so a spike moves it only a step
        st = self._state
        if st == _REST:
            d = x - x1
            if d < 0:
                d = -d
            m = self._mad
            step = (m >> 5) + 1
            self._mad = m + step if d * _S > m else m - step
        self._x2 = x1
        self._x1 = x
        # median of 3: a single-sample spike never reaches the level
        if x1 < x2:
            lo, hi = x1, x2
        else:
            lo, hi = x2, x1
        y = x if lo <= x <= hi else (lo if x < lo else hi)
        if self._n == 2:  # the signal's first value
            self._n = 3
            self._fill(1, y)
            self._y1 = y
        i = self._i
        self._bsum += y - self._buf[i]
        self._buf[i] = y
        i += 1
        self._i = i if i < self._m else 0
        if st == _REST:
            e = y * _S - self._level16
            if -self._band * _S <= e <= self._band * _S:
                e >>= _ZS      # drift and creep: the level and the full nest follow them
                self._level16 += e
                self._full16 += e
                return None
            self._busy(t_ms)
            st = _BUSY
        if st == _INIT and not self._known:
            # learning the nest: the noise from the mean |dy| of the median's output, which no
            # single spike reaches (E|dy| = 0.397 sigma for gaussian noise; median |dx| = 0.954)
            d = y - self._y1
            if d < 0:
                d = -d
            self._mad += (d * 77 // 2 - self._mad) >> (2 if self._q < 8 else 4)
            self._y1 = y
            self._set_band()
        # the calm: every average since t_q within the band
        a = self._bsum // self._m
        i = self._ri
        self._ring_t[i] = t_ms
        self._ring_a[i] = a
        self._ri = (i + 1) & (_RING - 1)
        if self._rn < _RING:
            self._rn += 1
        if self._q == 0:
            self._rn = 1
            self._calm_from(t_ms, a)
            return None
        v = a - self._ref
        lo = self._lo if v >= self._lo else v
        hi = self._hi if v <= self._hi else v
        if hi - lo > self._band:
            if st == _BUSY and self._q >= _N_MIN and (t_ms - self._t_q) & _WRAP >= _T_END:
                self._cand16 = self._recent16(1)   # the last calm's level (before this sample)
                self._cand_t = self._t_q
            self._calm_back()
            if self._cand_t >= 0 and a * _S > self._level16 + self._band * _S:
                # a new hand: the nest weighs more than before the attempt (a touch presses the
                # eggs: AiFi's +30 g), so no egg was held at the last calm, which lasted _T_END up
                # to this sample (a shorter one may be a real plate's undershoot, AiFi): its level
                # is the attempt's end, and the new hand opens the next attempt
                self._t_q = self._cand_t
                ev = self._judge(t_ms, self._cand16, _T_END)
                if self._state == _REST:
                    self._busy(t_ms)
                self._calm_from(t_ms, a)
                return ev
        else:
            self._lo = lo
            self._hi = hi
            self._q += 1
        k = (t_ms - self._t_q) & _WRAP
        if self._q < (_N_MIN if st == _BUSY else _N_INIT) or k < _T_READ:
            return None
        return self._judge(t_ms, self._recent16(0), k)

    def _recent16(self, skip):
        # the settled level: the calm's last _T_READ as its disjoint averages (newest `skip` left out)
        j = (self._ri - 1 - skip) & (_RING - 1)
        t_end = self._ring_t[j]
        s = n = 0
        while n * self._m < self._q and (n == 0 or (t_end - self._ring_t[j]) & _WRAP < _T_READ):
            s += self._ring_a[j]
            n += 1
            j = (j - self._m) & (_RING - 1)
        return s * _S // n

    def _settle(self, mean16, full):
        self.t_calm = self._t_q
        self._last16 = self._level16 - mean16
        self._level16 = mean16
        self._pole_level = self._pole_now
        if full:
            self._full16 = mean16 if self._pole_now else mean16 + self._pole16
            self.out = 0
        self._state = _REST
        self._known = True
        self.ready = self.at_rest = True
        self.busy_since = -1
        self._set_band()

    def _event(self, ev):
        self.events += 1
        self._demand = None    # the attempt has its egg: what leaves now is no half-lift of it
        self._demand16 = 0
        return ev

    def _judge(self, t_ms, mean16, k):
        if k < _T_END and self._state == _INIT:
            return None
        if self._state == _INIT:
            self._settle(mean16, True)
            self._full16 += self._missing16
            self.out = 0
            return None
        tol = self._tol
        long = k >= _T_LONG
        # the level before, no heavier than the full nest (the pole as it was then): what lay on
        # the bowl beyond every egg (a hand resting on the rim, adopted after _T_LONG) is no egg
        full_then = self._full16 if self._pole_level else self._full16 - self._pole16
        before = self._level16 if self._level16 < full_then else full_then
        delta = before - mean16                 # > 0: weight left the bowl
        d_full = self._full_expected() - mean16
        short = full_then - self._level16 >= tol   # eggs were out before
        back_ok = not self._demand16    # in an attempt a rise is a hand pressing, never eggs back
        if -tol < d_full < tol and back_ok and (delta < -tol or (self._pole_now and not self._pole_level)):
            # every egg back (or the pole seated again on a full nest: whatever was said while it
            # was out, part of it perhaps leaning on the rim, the full nest's weight is known now)
            was_out = self.out > 0 or short
            self._settle(mean16, True)
            return self._event({"t_ms": t_ms, "full": True}) if was_out else None
        if k < _T_END:
            return None
        if self._pole_level != self._pole_now:
            # the pole came or went: its mass left with it, or lies on the rim, or went with an
            # egg; the game needs no egg then (the pole's alarm, or the pole back first), so the
            # new level is adopted, never an egg
            self._settle(mean16, False)
            return None
        if -tol < delta < tol:
            # nothing left (a touch, a glitch): the level before stays, as the rest's level is
            # better known than a short calm's
            self._settle(self._level16, False)
            return None
        if back_ok and self.out and self._last16 > tol and -tol < delta + self._last16 < tol:
            # the eggs last said out came back (lifted clear, then put back): the level before
            # that verdict again, at rest now, so that the next take is weighed from it; any
            # other rise may be a hand resting still on the eggs and waits _T_LONG
            back = 2 if self._last16 >= self._two else 1
            self.out = self.out - back if self.out > back else 0
            self._settle(mean16, False)
            return None
        if delta >= self._two:
            self._settle(mean16, False)
            self.out += 2
            return self._event({"t_ms": t_ms, "out": 2})
        if delta > 0:
            for m, c in self._cols:
                if -tol < delta - m < tol:
                    if m < self._demand16 and not long:
                        return None    # perhaps the demanded egg, held half-lifted: wait it out
                    self._settle(mean16, False)
                    self.out += 1
                    return self._event({"t_ms": t_ms, "out": 1, "colour": c})
        if long:
            # no change of eggs names it (a hand resting, a pole on the rim, some eggs back):
            # the new level at rest, never an egg
            if delta < 0:
                back = (-delta + self._cols[0][0] // 2) // self._cols[(len(self._cols) - 1) // 2][0]
                self.out = self.out - back if self.out > back else 0
            self._settle(mean16, False)
        return None
