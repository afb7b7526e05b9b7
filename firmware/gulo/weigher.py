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
#   the rate measured by the nest itself. A value outside the band restarts the calm: a hand that
#   comes back, a ring, an egg rolling out late all keep the same attempt open, so a late egg
#   belongs to it, and a lull shorter than _T_END says nothing. Only a new hand ends an attempt
#   early: the nest weighing more than before it after a calm of _T_END, no egg was held then.
# - Judged: the settled level's difference from the level before, classified against the egg
#   masses: nothing, one colour, two eggs or more, every egg back, or the eggs last said out
#   back. A difference that is none of these (a hand resting, part of an egg) is adopted
#   silently only after _T_LONG of calm.
#   One colour lighter than the demanded one waits for _T_LONG of calm as well: a half-lifted egg
#   held still weighs less than itself, and the player mostly takes the demanded colour; a wrong
#   lighter egg is still said, later. While a colour is demanded no egg comes back (the game is
#   in an attempt: the eggs out are in the bag), so a rise is a hand, never eggs back.
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
# The calm that settles a level: the game's verdict may come at most 1.5 s after the hand's last
# contact (p95, the ruling on latency), and a real plate's level settles about 0.8 s after a
# pick-up (AiFi's shelf plates, CPS-IoT 2020: docs/weigher.md "Sources"). What is left, less two
# conversions at 10 SPS (the first sample inside the band, the median's one-sample delay), is the
# longest calm the weigher can ask for: 0.5 s, as long as the still hold of a half-lifted egg the
# models draw (docs/weigher.md, "The constants and their sources"), not to be taken for a level.
_T_END = const(500)
# The full nest's weight back (every egg back) needs only to be read, not waited out: a hand
# resting on the eggs with just the weight of those out is not to be expected.
_T_READ = const(200)
_N_MIN = const(3)           # and at least 3 samples in it (a spread needs samples: 10 SPS)
# Learning the nest, the noise is measured as it goes: the first level waits for 8 samples of it.
_N_INIT = const(8)
# A level that names no change is adopted only after the longest the game waits for a moving
# nest to rest (gulo.turnflow.MOVING_MAX_MS): a hand resting on the eggs lifts long before. A
# colour lighter than the demanded one is said only then too: longer than any still hold of a
# half-lifted egg the models draw (lab.tablemodel: up to 2.5 s, an assumption; docs/weigher.md).
_T_LONG = const(3000)
# The band in noise: the signal is a median of 3 (its sd at most 0.67 sigma for gaussian noise)
# averaged, and the range of n gaussian values exceeds 6 sd with a probability of about 1 % at
# n = 50 (0.5 s at 94 samples/s; tables of the normal range): 6 x 0.67 = 4 sigma. A value of
# noise outside it only restarts the calm.
_K_SIG = const(4)
# The signal is averaged over one period of the slowest bowl ring the models draw (20 Hz:
# lab.physmodel), which the average nulls with its harmonics while a hand's 8-12 Hz tremor keeps
# half or more; single samples keep a ring for up to a second. At 10 SPS that is one sample: the
# HX711's 100 ms conversion already averages (datasheet: the 50/60 Hz rejection at 10 SPS).
_T_AVG = const(50)
_MMAX = const(12)           # samples in that average at most (94 samples/s: 5; up to 240/s)
_ZS = const(6)              # the rest's level follows drift over 2**6 samples (0.7-6 s)
_MAD0 = const(32)           # the noise before any is measured: median |dx| of 2 cg (1/16 cg)


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
        self._n = 0            # samples seen (to 2: the median's and the average's start)
        self._x1 = self._x2 = self._y1 = 0
        self._t_last = 0
        self._calm_from(0, 0, 0)
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

    def _calm_from(self, t_ms, a, y):
        self._q = 1
        self._t_q = t_ms
        self._ref = a
        self._lo = self._hi = 0
        self._sum = y - a

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
        if self._n < 2:
            if self._n == 0:
                self._fill(1, x)
                self._y1 = x
            self._n += 1
            x1 = x2 = x
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
        if self._q == 0:
            self._calm_from(t_ms, a, y)
            return None
        v = a - self._ref
        lo = self._lo if v >= self._lo else v
        hi = self._hi if v <= self._hi else v
        if hi - lo > self._band:
            if st == _BUSY and self._q >= _N_MIN and (t_ms - self._t_q) & _WRAP >= _T_END:
                self._cand16 = self._ref * _S + self._sum * _S // self._q   # the last calm's level
                self._cand_t = self._t_q
            self._calm_from(t_ms, a, y)
            if self._cand_t >= 0 and a * _S > self._level16 + self._band * _S:
                # a new hand: the nest weighs more than before the attempt (a touch presses the
                # eggs: AiFi's +30 g), so no egg was held at the last calm, which lasted _T_END up
                # to this sample (a shorter one may be a real plate's undershoot, AiFi): its level
                # is the attempt's end, and the new hand opens the next attempt
                self._t_q = self._cand_t
                ev = self._judge(t_ms, self._cand16, _T_END)
                if self._state == _REST:
                    self._busy(t_ms)
                self._calm_from(t_ms, a, y)
                return ev
            return None
        self._lo = lo
        self._hi = hi
        self._sum += y - self._ref
        self._q += 1
        k = (t_ms - self._t_q) & _WRAP
        if self._q < (_N_MIN if st == _BUSY else _N_INIT) or k < _T_READ:
            return None
        return self._judge(t_ms, self._ref * _S + self._sum * _S // self._q, k)

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
        if self._pole_level and not self._pole_now:
            delta -= self._pole16
        elif self._pole_now and not self._pole_level:
            delta += self._pole16
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
        if -tol < delta < tol:
            # nothing left (a touch, the pole, a glitch): the level before stays, as the rest's
            # level is better known than a short calm's (with the pole's mass if it came or went)
            if self._pole_level == self._pole_now:
                mean16 = self._level16
            self._settle(mean16, False)
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
