# The egg weigher: load-cell samples in, egg events out. Pure logic (no `machine`): the board feeds
# it from the HX711 task, the host (`nest weigh --replay`) and the tests feed it from files and from
# the nest model. See docs/weigher.md for the design and the figures.
#
#   w = Weigher()                      # default masses G 10, P 12, Y 14, R 16, B 18 g; pole 25 g
#   ev = w.feed(t_ms, grams)           # one HX711 sample (10-94/s: measured); None or one event:
#        {"t_ms": T, "out": 1, "colour": "R"}   one egg left the nest
#        {"t_ms": T, "out": 2}                  two or more eggs left together
#        {"t_ms": T, "full": True}              all eggs are back: the nest is full again
#   w.set_pole(seated)                 # the reed switch: the pole's own mass is then never an egg
#   w.at_rest, w.is_full(), w.out, w.level_g(), w.deficit_g(), w.noise_g(), w.noise_cg(), w.rate_sps(),
#   w.t_calm (when the calm that decided the last change began: the hand had left)
#
# How (each stage small and allocation-free: all arithmetic is on small ints in 1/100 g, so the
# ESP32's single-precision floats never matter and the host gives bit-identical results):
# 1. median of 3 removes single-sample spikes (HX711 read glitches);
# 2. the sensor noise is learned at rest as a running median of |dx| between raw samples (0.954
#    sigma for gaussian noise): a hand's tremor or a spike can only nudge it a step at a time.
#    At start it is learned quickly from the median-filtered samples, and only from a calm nest
#    (a moving window starts the learning again; after 3 s a never-calm cell is taken as it is);
# 3. IDLE: the settled level tracks slow drift and creep (auto-zero) and so does the learned
#    weight of the full nest; a step beyond max(0.5 g, 5 sigma) starts a disturbance (BUSY);
# 4. BUSY: a 100 ms window's standard deviation (3-8 samples: the rate is measured from the
#    timestamps) is compared with a noise-scaled threshold: a hand (tremor, pressing, an egg held
#    half-lifted) keeps it high; a bowl left alone rings down below it. At 80 SPS a bowl whose
#    ring is dying away by itself is calm before that (_RING_SD: a free ring decays, a hand keeps
#    driving it). Once quiet for _T_K ms, the window's mean is a candidate level;
# 5. the candidate is judged before anything is said: the change (minus the pole's mass if the
#    reed changed) must be one egg's mass, two eggs' or more, or all eggs back. A level between
#    two colours waits longer, and so does any level the signal has sat at, still moving, for a
#    while (an egg held half-lifted, calm only in a lull of its tremor); weight added that is not
#    the full nest waits longer still (a hand resting still: 3 s unless it is two eggs or more);
#    anything else is accepted silently after 3 s of calm (a re-zero), never reported as an egg.
#    One egg lighter than the heaviest colour waits out a still hold (_T_STILL, counted from when
#    the window's mean reached the level; a ring about the level keeps that start), unless a new
#    hand pressing on the eggs ends it; a weight that falls from such a level and is no egg's
#    (part of one, held half out by the next hand) waits out its own hold before `out: 2`.
#    `full` is said at once only within 0.3 g (+ creep) of the full nest: a hand resting with
#    about the weight of the eggs out is not all eggs back.
# 6. the pole: out, part of its weight may lie on the rim (a knocked pole leaning across it), so
#    the full nest is never learned from a level that is not its weight less the whole pole; seated
#    again, the full nest's weight is every egg back, whatever was said while it was out.

try:
    from micropython import const
except ImportError:  # CPython: const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

DEFAULT_MASSES = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
POLE_G = 25.0

_INIT = const(0)
_IDLE = const(1)
_BUSY = const(2)

# Everything is in milliseconds of the samples' own timestamps; the rate is measured from them
# (the HX711's internal oscillator gives 86-94 samples/s at "80 SPS" and 10-12 at "10 SPS":
# docs/weigher.md), so the same code runs at either setting with nothing to set.
_WMAX = const(8)       # stability window, at most 8 samples
_WMIN = const(3)       # and at least 3 (a spread needs samples: 300 ms at 10 SPS)
_T_WIN = const(100)    # ms the window spans when the rate allows (8-9 samples at 86-94/s)
_QA = const(10)        # quiet threshold: window sd <= _QA/10 sigma + _QB centigrams
_QB = const(5)
_QMIN = const(16)      # cg: on a very quiet cell, a bowl ringing this little is settled enough
# How long the signal must have been quiet, counted from the first sample of the first quiet
# window (at 80 SPS the old counts: 5, 20, 48 and 240 quiet windows of 8 samples).
_T_K = const(135)      # ms quiet before a level is a candidate
_T_DOUBT = const(325)  # ms quiet for a level between two colours
_T_ADD = const(675)    # ms quiet before two eggs or more added, not all, are accepted (eggs back)
_T_LONG = const(3000)  # ms quiet after which any level is accepted as the new rest
_FAR = const(250)      # cg: a sample this far from the window's mean is still moving
_T_HOLD = const(400)   # ms: calm at one level for longer than this may be a held egg
# ms quiet before one egg lighter than the heaviest colour is said: a child may hold a heavier egg
# half-lifted, still (tremor lost in the sensor's noise), for up to 0.5 s, and that partial
# weight can be any lighter colour's. Only a level calm for longer than such a hold is an egg.
_T_STILL = const(520)
# The wait counts from when the window's mean arrived at the level, if that is earlier than when
# the bowl fell quiet: a hold's level is there from the moment the hand stops lifting, so a level
# the mean has kept for _T_STILL ms (a ring-down about it averages out over the window) was no
# hold. The mean "keeps" a level while it stays within _NEAR centigrams + 1 sigma of where it
# arrived; "arrived" is the window's last sample then (its first may still be on the lift's ramp).
_NEAR = const(30)
# And no later than one conversion before the calm: the HX711 converts back to back, each sample
# the load over the conversion before its DOUT edge (the datasheet's 50/60 Hz rejection at 10 SPS
# is that average; should a load step take its 4-conversion settling time, the level was there
# longer still), so the first quiet sample says the level was there a conversion earlier, less
# _T_CONV ms for a ramp's tail. That is 70-80 ms at 10 SPS; at 80 SPS (11 ms) nothing.
_T_CONV = const(20)
# ms the window's mean must stay well above a level waiting out a possible hold before that is a
# new hand pressing on the eggs (so the held egg had gone). A hand resting on the eggs stays
# (the models' touches: 0.2 s and more); a knock on the pole is a jolt of about 20 ms (physics
# model, docs/weigher.md) and its ring about the level, after which the pole falls and the reed
# opens 10-40 ms in: taken for a hand, the jolt named a held egg early (physics seeds 1034, 1251
# at 80 SPS, issue 13's third round). One window: the jolt has left the window's mean by then.
_T_PRESS = const(100)
# A bowl left ringing is calm enough to weigh before its ring has died into the noise, if it is a
# free ring: at 80 SPS, where the ring is seen, a window whose raw samples have a spread of at
# most _RING_SD cg (its mean is then off the level by at most half that, the _ringing bound: half
# the 0.6 g exact-fit acceptance), oscillating fast (lag-1 autocorrelation <= 0.3: a ring of
# 20 Hz or more sampled at <= 94/s has cos(2 pi 20/94) = 0.24, a hand's 8-12 Hz tremor at
# >= 86/s 0.64 or more), whose variance has fallen to _DECAY per cent of the window before's
# twice running (a free ring dies at exp(-zeta w t): over a 100 ms window the physics model's
# bowls, zeta 0.02-0.15 at 20-60 Hz, fall to 0.78 of their amplitude or less, 0.61 of the
# variance; a hand on the eggs keeps driving the ring and its size does not fall so), with its
# mean within _RING_MOVE cg of the window before's (not a ramp; 0.3 g as _NEAR: half the 0.6 g
# acceptance). _DECAY rests on the physics model's drawn damping, an assumption (docs/weigher.md,
# "The physics model"): a real bowl's decay is the first thing to record. Only for weight that
# left (a hand pressing the pole back in drives the ring: physics development seeds 7699, 7820,
# 7893), and
# every verdict from such a calm waits out a still hold (_T_STILL), the heaviest colour and
# `out: 2` too (a finger still brushing the eggs after the lift-off passes the other tests: seed
# 7698). Issue 13's fifth round (docs/weigher.md): without the decay test, a ring's raw mean
# named eggs early on development seeds 1056 and 1433.
_RING_SD = const(60)
_DECAY = const(64)
_RING_MOVE = const(30)
# the creep allowed when all eggs are back: 1/_CREEP of the weight that came back (0.2 %; the
# physics model's creep is 0.02-0.1 % of a load change, nest.world's 0.2 %)
_CREEP = const(500)
# cg: eggs come back with something above their own weight first, and a hand pressing on the
# eggs does not. Put back, they are dropped (an egg of m g from h lands with an impulse
# m sqrt(2 g h): 10 g from 0.5 cm, the physics model's lowest drop, 3.1 mN s, which over an
# 11 ms conversion at 80 SPS reads some 28 gf above the weight, less the part of the step the
# conversion missed, at most 10 g; over a 100 ms conversion at 10 SPS only 3 gf, which that
# part can cancel for so low a drop) or carried by a hand resting on the rim or the eggs, which
# then lets go (5-30 g in the physics model): either way the raw samples pass above the level
# the eggs settle at, or the `full` waits. A hand pressing on the eggs with about the
# weight of those out rises onto its level and sits there, its 8-12 Hz tremor quiet enough to
# pass the window's threshold (sd under ~0.2 g, or at 10 SPS averaged out by the HX711's
# 100 ms conversion): 1.5 g above is beyond a quiet hand's swings. A `full` whose samples never
# rose that far above it waits _T_ADD, by when such a hand has lifted (physics development
# seeds 1354, 1458, 1473: a hand's press taken for every egg back, then its take folded into
# `out: 2`, issue 13's fourth round). An egg laid back gently is then `full` later, not wrong.
_LANDED = const(150)
_T_REFINE = const(1500)  # ms after a decision during which auto-zero refines the decided level
_N_INIT = const(24)    # the start's sample count stops here (an ever-growing int would allocate)
_N_MIN = const(8)      # samples and ...
_T_INIT = const(290)   # ... ms at least to learn noise and level at start
_T_ZERO = const(400)   # ms: the auto-zero's time constant just after a decision (x16 later)
# ms after which the start takes the first quiet window even if the cell never stayed calm (a
# noisy cell must still be learned; it is the firmware's to show that as a fault)
_T_INIT_MAX = const(3000)
_CLAMP = const(3000)   # window deviations are clipped to 30 g (keeps every product a small int)
_S = const(16)         # fixed point: levels are kept in 1/16 of a centigram
# t_ms may be time.ticks_ms(), which wraps at 2**30: differences are taken modulo that
_WRAP = const(0x3FFFFFFF)
_HALF = const(0x20000000)


class Weigher:
    def __init__(self, masses=None, pole_g=POLE_G):
        self._buf = [0] * _WMAX   # the window (its length follows the measured rate)
        self._raw = [0] * _WMAX   # the same samples raw, before the median of 3 (_window_end)
        # the sample rate, measured (it survives reset(): the HX711 is the same)
        self._w = _WMAX        # samples in the stability window
        self._per16 = 0        # measured sample period, 1/16 ms (0: not yet known)
        self._pw = 0           # the period the window was last sized for
        self._t_mark = 0       # t_ms at the last window's end, for the rate
        self._marked = False
        self._span = 1         # windows the current rate measurement spans
        self._wins = 1         # windows left before it ends
        self._gap = False
        self._zs = 5           # auto-zero shift: 2**_zs samples span about _T_ZERO ms
        self._ref = 0          # the window's sums, kept from sample to sample while not at rest:
        self._s1 = 0           # of the samples less _ref (each clipped to _CLAMP) ...
        self._s2 = -1          # ... and of their squares (-1: add the window up afresh)
        self._sigb = 2 * _S    # sigma and the quiet limit on the window's variance (x w^2),
        self._qv = 0           # kept while busy: the noise is learned only at rest and at start
        self.ready = False     # (reset() reads it: nothing learned yet)
        self._mad16 = 0
        self.set_masses(masses or DEFAULT_MASSES)
        self.pole_g = pole_g
        self._pole16 = int(pole_g * 100 * _S)
        self._pole_now = True
        self.reset()

    def set_masses(self, masses):
        """Egg masses per colour in grams (calibration). Any two eggs must outweigh any one."""
        cols = []
        for c in masses:
            cols.append((int(masses[c] * 100 * _S), c))
        cols.sort()
        self._cols = cols
        lo = cols[0][0]
        gap = 2 * lo - cols[-1][0]  # the lightest pair against the heaviest egg
        for i in range(1, len(cols)):
            if cols[i][0] - cols[i - 1][0] < gap:
                gap = cols[i][0] - cols[i - 1][0]
        if gap <= 0:
            raise ValueError("egg masses too close: two eggs must outweigh any single one")
        tol = gap // 2
        self._tol = min(tol, 150 * _S)            # half the narrowest gap, at most 1.5 g
        self._acc = min(tol * 6 // 10, 80 * _S)   # sure when this close to a colour
        self._two = 2 * lo - self._tol              # two eggs or more from here
        self._zero = self._acc // 2                 # back at the old level
        self.masses = dict(masses)

    def reset(self, missing_g=0, keep_noise=True):
        """Forget the nest: the next samples at rest are learned as the full nest, less
        `missing_g` (eggs the game says are out of the nest: a game resumed mid-round). The
        noise learned at rest is kept unless `keep_noise` is False (a new scale: a calibration)."""
        self._missing16 = int(missing_g * 100 * _S)
        # The noise learned at rest survives, as the rate does: the HX711 and the cell are the
        # same. Learned again at the start, it came from whatever moved then: a hand pressing
        # the eggs just after the family's word (Reveal) rocked 2-4 g for 0.75 s in steps of
        # 0.5-2 g a sample, which passed for noise of 1-2 g; the start then took that hand for a calm
        # nest, learned its weight as the full nest, and when it left named a purple egg out
        # (the power-cut drill, 2026-11-26; firmware/tests/test_weigher_start.py).
        self._mad_kept = self._mad16 if self.ready and keep_noise else 0
        self._state = _INIT
        self.ready = False     # _state != _INIT, kept with it (see "queries for the firmware")
        self.at_rest = False   # _state == _IDLE, likewise
        self._s2 = -1
        self._n = 0
        self._i = 0
        self._t_q = -1         # t_ms the current quiet run began (its window's first sample)
        self._k_next = _T_K    # ms of quiet at which the level is judged (again)
        self._t_rs = -1        # t_ms of a restart (reed change, new window): quiet only after
                               # it; -1 once it is older than any window (_track). Not 0 for "long
                               # ago": times compare modulo 2**30, and after 6.2 days on, 0 was
                               # ahead (firmware/tests/test_weigher_uptime.py)
        self._cand = -1        # a level that fits a colour, waiting out a possible hold (index)
        self._cand16 = 0
        self._cand_t = 0
        self._cand_tn = 0      # t_ms the window's mean reached that level
        self._t_up = -1        # t_ms the window's mean rose well above that level (a new hand?)
        self._fell = False     # the mean fell from a waiting level since the last rest ...
        self._fell16 = 0       # ... this one (a level may be below zero: no sentinel value)
        self._peak = 0         # the highest raw sample (cg) while busy (_LANDED)
        self._near16 = 0       # where the window's mean arrived, and when (_NEAR):
        self._t_near = -1      # -1 while not BUSY
        self._x1 = 0
        self._x2 = 0
        self._rv1 = 0          # the raw window's variance (x w^2) at the last two window ends
        self._rv2 = 0
        self._rm16 = 0         # and its mean at the last
        self._nw = 0           # window ends since the nest went busy (the first holds samples
                               # from before it: only busy samples are kept raw)
        self._free = False     # the last window was a free ring's calm (_RING_SD) ...
        self._free16 = 0       # ... about this level
        self._q_free = False   # the quiet run began on such a calm: its verdicts wait a hold out
        self._mad16 = self._mad_kept  # median |dx| between raw samples, in 1/16 cg
        self._level16 = 0
        self._full16 = 0
        self._pole_level = self._pole_now
        self.out = 0           # eggs out since the nest was last full (a lower bound after "out": 2)
        self.busy_since = -1   # t_ms the current disturbance began, -1 at rest
        self.t_calm = 0        # t_ms the calm began that decided the last change (hand gone)
        self._t_far = 0
        self._t_settle = 0
        self._t_init = -1      # t_ms of the first sample the start learns from
        self._t_learn = -1     # t_ms the current try at learning began
        self._t_last = 0
        self._last16 = 0
        self.events = 0

    def set_pole(self, seated):
        """The reed switch's confirmed state: True = pole seated in the bowl. Call it whenever
        the reed is read (cheap); a change restarts the wait for a settled level, since the reed
        switches before the pole's mass has finished moving."""
        seated = bool(seated)
        if seated != self._pole_now:
            self._pole_now = seated
            self._t_q = -1
            # quiet only from the first sample after the change: a window is dated back from its
            # last sample by the mean period, so by half a period after the last one before it
            # (a jittered window of samples all after the change still passes)
            self._t_rs = (self._t_last + self._per16 // (2 * _S) + 1) & _WRAP
            self._cand = -1
            if self._state == _IDLE:
                self._state = _BUSY
                self.at_rest = False
                self._s2 = -1
                self._limits()
                self._t_far = self.busy_since = self._t_last
                self._peak = self._x1
                self._nw = 0

    # ---- queries for the firmware ---------------------------------------------------------
    # `ready` (the full nest has been learned: _state != _INIT) and `at_rest` (settled: no hand,
    # no ring-down; an attempt may start only from here: _state == _IDLE) are plain attributes,
    # set wherever _state changes, not properties: in MicroPython a class with a property (or
    # any descriptor) makes every attribute store on its instances look the name up in the
    # class first, in case a property's setter takes it (py/objtype.c,
    # mp_obj_instance_store_attr): a miss through the class's methods for each of the 7-10
    # stores of every sample, which was 40-45 % of the weigher's cost per sample ("Cost on the
    # device", docs/weigher.md). So: no property in this class. The firmware reads them as
    # before (`w.ready and w.at_rest`).

    def level_g(self):
        """The settled weight on the cell (grams)."""
        return self._level16 / (100 * _S)

    def deficit_g(self):
        """Grams missing from the full nest at the settled level (the pole's state accounted)."""
        return (self._full_expected() - self._level16) / (100 * _S)

    def is_full(self):
        """At rest with every egg in the bowl (whether the pole is seated is the reed's business)."""
        d = self._full_expected() - self._level16
        return self._state == _IDLE and -self._tol < d < self._tol

    def last_change_g(self):
        """Weight that left the bowl at the last settled change, pole included (negative: weight
        came in). For calibration: take out one egg of a colour, or knock the pole, and read it."""
        return self._last16 / (100 * _S)

    def tolerance_g(self):
        """How far a settled level may be from an expected one and still be it (half the
        narrowest gap between egg classes, at most 1.5 g)."""
        return self._tol / (100 * _S)

    def noise_g(self):
        """The learned sensor noise (rms grams)."""
        return self._sigma16() / (100 * _S)

    def noise_cg(self):
        """The learned sensor noise in whole centigrams (rms): an int, for a check at every
        sample that must not allocate a float (gulo.nestfault)."""
        return self._sigma16() // _S

    def rate_sps(self):
        """The measured sample rate (samples per second; 0 before the first window is measured)."""
        return 16000 // self._per16 if self._per16 else 0

    def _sigma16(self):
        s = self._mad16 + self._mad16 // 21   # median |dx| = 0.954 sigma
        return s if s > 2 * _S else 2 * _S

    def _limits(self):
        """Sigma and the quiet limit the busy path compares with, worked out once when the nest
        turns busy or the window changes length (and every sample at start, while the noise is
        learned): quiet when the window's sd <= _QA/10 sigma + _QB cg, and at least _QMIN."""
        sig = self._sigma16()
        q = (_QA * sig // 10 + _QB * _S) // _S
        if q < _QMIN:
            q = _QMIN
        self._sigb = sig
        self._qv = self._w * self._w * q * q

    def _full_expected(self):
        if self._pole_now:
            return self._full16
        return self._full16 - self._pole16

    # ---- the sample path --------------------------------------------------------------------
    def feed(self, t_ms, grams):
        """One sample (grams, float). Returns None or an event dict. A missing sample (None:
        the driver lost the HX711) is skipped; the fault is the driver's to report."""
        if grams is None:
            return None
        return self.feed_cg(t_ms, int(grams * 100 + (0.5 if grams >= 0 else -0.5)))

    def feed_cg(self, t_ms, x):
        """One sample in centigrams (int). Returns None or an event dict."""
        self._t_last = t_ms
        x1 = self._x1
        x2 = self._x2
        n = self._n
        st = self._state       # read once: nothing below changes it before the state's own path
        if n == 0:
            x1 = x2 = x
        # noise, from the raw difference between successive samples
        d = x - x1
        if d < 0:
            d = -d
        if st == _IDLE:
            # then a running median of |dx|: a hand's tremor or a spike can move it only a
            # step at a time, so a touch never teaches the weigher that the cell is noisy
            mad = self._mad16
            step = (mad >> 5) + 1
            mad += step if d * _S > mad else -step
            self._mad16 = mad
        # median of 3
        if x1 < x2:
            lo, hi = x1, x2
        else:
            lo, hi = x2, x1
        y = x
        if y > hi:
            y = hi
        if y < lo:
            y = lo
        self._x2 = x1
        self._x1 = x
        if n < _N_INIT:
            self._n = n + 1   # only counts the start (an ever-growing int would allocate)
        buf = self._buf
        i = self._i
        if st == _INIT and n > 0 and not self._mad_kept:
            # a quick start (unless the noise is known from a rest before a reset()): mean |dy|
            # of the spike-free (median of 3) samples, scaled to the median |dx| of raw
            # gaussian noise (E|dy| = 0.397 sigma, median |dx| = 0.954 sigma).
            # Raw |dx| let one spike in the first samples pass for seconds of loud noise.
            d = y - buf[i - 1]
            if d < 0:
                d = -d
            if d > _FAR and ((t_ms - self._t_init + _HALF) & _WRAP) - _HALF <= _T_INIT_MAX:
                # A step, not noise: the nest moved in its first samples (a hand leaving as the
                # board boots, or a reading from before the HX711's filter settled), before the
                # window's own test below can see it. Learned from, it passed for grams of noise
                # (the fifth model's seed 2024 at 10 SPS: 274 g, 28 s to forget; its first egg, a
                # yellow, said green, the next missed). The learning starts again from this sample.
                self._learn_again(t_ms)
            else:
                self._mad16 += (d * 77 // 2 - self._mad16) >> (2 if n < 8 else 4)
        if st != _IDLE:
            self._raw[i] = x   # only while busy: the cost at rest stays as it was
            o = buf[i]         # the sample leaving the window
        buf[i] = y
        i += 1
        if i >= self._w:
            self._i = 0
            k = self._wins - 1
            if k > 0:
                self._wins = k
            else:
                self._track(t_ms)   # the rate from the time the last windows' samples took
                buf = self._buf
            if st == _BUSY:
                self._window_end(self._w)
        else:
            self._i = i
        if st == _IDLE:
            # at rest (most of a game): written out here, not called (a call per sample costs)
            e = y * _S - self._level16
            sig = mad + mad // 21   # _sigma16(), inlined
            if sig < 2 * _S:
                sig = 2 * _S
            lim = 5 * sig
            if lim < 50 * _S:
                lim = 50 * _S
            if e > lim or e < -lim:
                self.at_rest = False   # first: tests/test_weigh_sums.py plants faults below
                self._state = _BUSY
                self._s2 = -1
                self._limits()
                self._t_q = -1
                self.busy_since = t_ms
                self._t_far = t_ms
                self._nw = 0       # the raw window fills from here (_window_end)
                # the peak since the rest (_LANDED) from this raw sample and the last: the
                # median of 3 is a sample late, so a jolt's own sample was still taken at rest
                self._peak = x if x > x1 else x1
                return None
            if e < 3 * sig and e > -3 * sig:
                # auto-zero: follow drift and creep. Just after a decision this mostly refines
                # the decided level (its window still held some ring-down), which says nothing
                # about the full nest; later it is drift, which moves the full nest's weight
                # along with it.
                dt = ((t_ms - self._t_settle + _HALF) & _WRAP) - _HALF
                step = e >> self._zs if dt < _T_REFINE else e >> (self._zs + 4)
                self._level16 += step
                self._full16 += step
            return None
        if x > self._peak:
            self._peak = x
        w = self._w
        # window statistics (INIT and BUSY): mean and spread, in integers, from running sums of
        # the samples less a reference (the sample leaving the window out, the new one in: a
        # loop over the window every sample was most of the cost while busy). Added up afresh at
        # start, when the nest turns busy, the window changes length or a sample lands more than
        # _CLAMP from the reference (the reference moves to it: a pour-back, a knock). The
        # variance and the mean do not depend on the reference while no sample is clipped.
        ref = self._ref
        v = y - ref
        s2 = self._s2
        if s2 >= 0 and -_CLAMP <= v <= _CLAMP:
            o -= ref
            if o > _CLAMP:
                o = _CLAMP
            elif o < -_CLAMP:
                o = -_CLAMP
            s1 = self._s1 + v - o
            s2 += v * v - o * o
        else:
            ref = self._ref = y
            s1 = 0
            s2 = 0
            for v in buf:
                v -= ref
                if v > _CLAMP:
                    v = _CLAMP
                elif v < -_CLAMP:
                    v = -_CLAMP
                s1 += v
                s2 += v * v
        self._s1 = s1
        self._s2 = s2
        var_w2 = w * s2 - s1 * s1            # variance * w^2 (cg^2)
        mean16 = ref * _S + s1 * _S // w
        dev = y * _S - mean16
        far = dev > _FAR * _S or dev < -_FAR * _S
        if far:
            self._t_far = t_ms
        if st == _INIT:
            self._limits()   # the noise is still being learned
        sig = self._sigb
        quiet = var_w2 <= self._qv
        rung = False
        if not quiet and self._free and st == _BUSY and mean16 < self._level16 - self._tol:
            quiet = rung = True    # a free ring's calm (_RING_SD): weighed by the raw mean
            mean16 = self._free16
        if self._cand >= 0:
            # a level still waiting out a possible hold: the window's mean rising well above it
            # is a new hand pressing on the eggs (a tremor averages out over the window), so the
            # hand before it had let go and that egg is out; the mean falling below it is the
            # held egg lifted on
            lim = 5 * sig if sig > 20 * _S else 100 * _S
            if mean16 - self._cand16 > lim:
                # a hand pressing stays (_T_PRESS); a knock on the pole is a jolt, and the pole
                # falls out of its seat after it (the reed drops the waiting level then)
                if self._t_up < 0:
                    self._t_up = t_ms
                elif ((t_ms - self._t_up + _HALF) & _WRAP) - _HALF >= _T_PRESS:
                    return self._taken_before(t_ms)
            else:
                self._t_up = -1
            if mean16 - self._cand16 < -lim:
                # the held egg lifted on: the level falls by the rest of the egg (at least 1 g
                # of the lightest). The window's mean, not one sample: a ringing bowl swings
                # its samples both ways about a level that has not moved (seed 1236's
                # neighbour egg rolling into the gap)
                self._fell = True
                self._fell16 = self._cand16
                self._cand = -1
        if st == _INIT:
            # The start learns from a calm nest only. A board that boots while the nest still
            # moves (a hand pressing the pole in, a ring-down) would otherwise take the motion
            # for noise: an inflated sigma keeps it at rest through the next hand, whose weight
            # the auto-zero then follows into the level (a green egg weighed as purple). A
            # window that moves once the buffer holds only samples of this try starts the
            # learning again, noise included; so does a sample far from the window's mean (a
            # motion from the very start has already inflated the noise that judges quiet).
            if self._t_init < 0:
                self._t_init = t_ms
            if self._t_learn < 0:
                self._t_learn = t_ms
            late = ((t_ms - self._t_init + _HALF) & _WRAP) - _HALF > _T_INIT_MAX
            if self._n > w and (far or not quiet) and not late:
                self._learn_again(t_ms)
                return None
            age = ((t_ms - self._t_learn + _HALF) & _WRAP) - _HALF
            if self._n >= _N_MIN and age >= _T_INIT and quiet:
                self._level16 = mean16
                full16 = mean16 if self._pole_now else mean16 + self._pole16
                self._full16 = full16 + self._missing16
                self._pole_level = self._pole_now
                self._state = _IDLE
                self.ready = self.at_rest = True
            return None
        # where the mean is, and since when: the window's last sample when the mean arrived (its
        # first could still be on the lift's ramp, before the hold began)
        d = mean16 - self._near16
        if d < 0:
            d = -d
        d -= _NEAR * _S + sig
        if self._t_near < 0 or (d > 0 and not self._ringing(d >> 4, w, var_w2)):
            self._near16 = mean16
            self._t_near = t_ms
            if self._cand >= 0:
                # back at the level that waits out a possible hold: a hold is at most 0.5 s
                # from when its level was first reached, and this one has neither fallen
                # (lifted on: the wait is dropped) nor been pressed on, so whatever moved the
                # mean in between (a neighbour egg's knock, a spike) left the hold's start
                d = mean16 - self._cand16
                if -_NEAR * _S - sig <= d <= _NEAR * _S + sig:
                    self._near16 = self._cand16
                    self._t_near = self._cand_tn
        if quiet:
            if self._t_q < 0:
                tq = (t_ms - (w - 1) * self._per16 // _S) & _WRAP
                if self._t_rs >= 0 and ((tq - self._t_rs + _HALF) & _WRAP) - _HALF < 0:
                    return None   # the window still holds samples from before a restart
                self._t_q = tq
                self._q_free = rung
                self._k_next = _T_K
            k = ((t_ms - self._t_q + _HALF) & _WRAP) - _HALF   # ms quiet
            if k >= self._k_next:
                return self._judge(t_ms, mean16, k)
        else:
            self._t_q = -1
        return None

    def _window_end(self, w):
        """At each window's end while busy: is it a free ring's calm (_RING_SD)? At 80 SPS only:
        at 10 SPS (3 samples a window) the HX711's 100 ms conversion averages a 20-60 Hz ring
        away, and three windows would take 0.9 s."""
        self._free = False
        n = self._nw
        if n < 3:
            self._nw = n + 1
        if w < 6:
            return
        # the window statistics of feed_cg, over the raw samples (kept twice on purpose: there
        # they are inlined in the per-sample path, where a call returning two sums would box a
        # tuple every sample; here they run once per window)
        raw = self._raw   # in time order: the window has just been filled from raw[0]
        ref = raw[0]
        s1 = 0
        s2 = 0
        for v in raw:
            v -= ref
            if v > _CLAMP:
                v = _CLAMP
            elif v < -_CLAMP:
                v = -_CLAMP
            s1 += v
            s2 += v * v
        var = w * s2 - s1 * s1            # variance * w^2 (cg^2), as the window's: < 2**30
        m16 = ref * _S + s1 * _S // w
        v1 = self._rv1
        v2 = self._rv2
        d = m16 - self._rm16
        self._rv2 = v1
        self._rv1 = var
        self._rm16 = m16
        # three whole windows while busy, small, and the variance fallen twice running (in 1/64:
        # the products stay small ints, below 2**30)
        if n < 3 or var > w * w * _RING_SD * _RING_SD:
            return
        if 100 * (var >> 6) > _DECAY * (v1 >> 6) or 100 * (v1 >> 6) > _DECAY * (v2 >> 6):
            return
        if d > _RING_MOVE * _S or d < -_RING_MOVE * _S:
            return
        # fast: the lag-1 autocovariance about the mean <= 0.3 of the variance
        mr = ref + s1 // w
        s11 = 0
        prev = raw[0] - mr
        for j in range(1, w):
            v = raw[j] - mr
            s11 += v * prev
            prev = v
        if 10 * w * w * s11 > 3 * (w - 1) * var:
            return
        self._free = True
        self._free16 = m16

    @staticmethod
    def _ringing(e, w, var_w2):
        """Is a window mean e cg off the level explained by an oscillation about it (the bowl
        ringing, a tremor)? The mean of A sin(2 pi f t + phi) over a window of T s is off its
        centre by at most A / (pi f T) (integrate the sine), and the window's sd is A / sqrt 2:
        so by at most sqrt 2 sd / (pi f T) <= sd / 2 for any f T >= 0.9, which is every ring or
        tremor of 9 Hz or more in a 100 ms window (the bowl rings at 20-60 Hz, a hand trembles at
        8-12 Hz: docs/weigher.md). A level that moves (a lift's ramp, a held egg lifted on) is
        not an oscillation: its mean is off by more than half its spread (a ramp's by sqrt 3 sd).
        In small ints: e <= sqrt(var_w2) / (2 w), squared."""
        e *= w
        return e < 12200 and 4 * e * e <= var_w2

    def _learn_again(self, t_ms):
        """The start learns the nest again from this sample: its count, its noise (unless kept
        from a rest before a reset()) and its time."""
        self._n = 1
        self._mad16 = self._mad_kept
        self._t_learn = t_ms

    def _track(self, t_ms):
        """Measure the sample period from the time the last span of windows took: one window at
        start or while the rate moves (then half way to each measure), four once it is steady
        (a quarter of the way; the cost per sample stays low). A span twice as slow as expected
        is a gap (a lost sample, a busy task) and is skipped, and so is a steady rate's one span
        off by more than the 20 % a window is kept for; two in a row are a new rate."""
        dt = ((t_ms - self._t_mark + _HALF) & _WRAP) - _HALF
        self._t_mark = t_ms
        # The last decision, once older than the auto-zero's refinement, is kept just that old:
        # compared modulo 2**30, an older one would read as ahead 6.2 days on, and the fast
        # refinement would follow the level for days (here, not per sample: the cost at rest)
        ds = ((t_ms - self._t_settle + _HALF) & _WRAP) - _HALF
        if ds > _T_REFINE or ds < 0:
            self._t_settle = (t_ms - _T_REFINE) & _WRAP
        # and a restart older than any window (a reed change while learning, then days at rest)
        # is dropped: it would turn "ahead" too
        if self._t_rs >= 0 and ((t_ms - self._t_rs + _HALF) & _WRAP) - _HALF > _T_LONG:
            self._t_rs = -1
        span = self._span
        self._span = self._wins = 1
        if not self._marked:
            self._marked = True
            return
        if dt <= 0:
            return
        p = self._per16
        d = dt * _S // (self._w * span)
        if p == 0:
            p = d
        else:
            if d > 2 * p or (span > 1 and (5 * d > 6 * p or 6 * d < 5 * p)):
                # A stall of 200 ms or more (an ESP32 flash erase: 45 ms typical, 400 ms at most,
                # W25Q32JV datasheet; a virtual board starved by its host) in a steady span of
                # four windows reads as a slower rate: followed at once, it re-sized the window
                # twice, each re-size restarting the quiet run, and a board that stalls every
                # few seconds never gave one egg back its 3 s calm (tests/test_weigher_stall.py)
                if not self._gap:
                    self._gap = True
                    return
                if d > 8 * p:
                    d = 8 * p
            self._gap = False
            steady = self._n >= _N_INIT and 8 * d < 9 * p and 9 * d > 8 * p   # within 12 %
            p += (d - p) >> (2 if steady else 1)
            if p < _S:
                p = _S
            if steady:
                self._span = self._wins = 4
        self._per16 = p
        pw = self._pw
        if pw and 5 * p < 6 * pw and 6 * p > 5 * pw:
            return   # within 20 % of the period the window was sized for: keep it
        self._pw = p
        w = (_T_WIN * _S + p // 2) // p
        if w < _WMIN:
            w = _WMIN
        elif w > _WMAX:
            w = _WMAX
        if w != self._w:
            # another rate: a window of the new length (allocated: at start and when the rate
            # changes, never per sample), filled with the latest sample; the quiet run restarts
            self._buf = [self._buf[self._w - 1]] * w
            self._s2 = -1
            self._raw = [self._raw[self._w - 1]] * w
            self._w = w
            self._limits()
            self._i = 0
            self._t_q = -1
            self._t_rs = t_ms & _WRAP
            zs = 0
            while zs < 5 and (p << zs) < _T_ZERO * _S:
                zs += 1
            self._zs = zs

    def _egg(self, d16):
        """Does a change of d16 fit one egg's mass closely (within _acc)?"""
        for m, _ in self._cols:
            if -self._acc < d16 - m < self._acc:
                return True
        return False

    def _taken_before(self, t_ms):
        """The waiting level was an egg: said now, as a new hand arrives (the nest stays busy)."""
        c = self._cols[self._cand][1]
        cand16 = self._cand16
        self._settle(t_ms, cand16)
        self.t_calm = self._cand_t
        self._state = _BUSY
        self.at_rest = False
        self.busy_since = t_ms
        self._t_far = t_ms
        self._peak = self._x1   # a new disturbance: what came before it landed nothing
        self.out += 1
        self.events += 1
        return {"t_ms": t_ms, "out": 1, "colour": c}

    def _settle(self, t_ms, mean16):
        # the calm that decided it began when the hand (or a rolling egg) had left the nest
        self.t_calm = self._t_q if self._t_q >= 0 else t_ms
        self._last16 = self._level16 - mean16
        self._cand = -1
        self._fell = False
        self._t_settle = t_ms
        self._level16 = mean16
        self._pole_level = self._pole_now
        self._state = _IDLE
        self.at_rest = True
        self._t_q = -1
        self._t_near = -1
        self.busy_since = -1

    def _judge(self, t_ms, mean16, k):
        delta = self._level16 - mean16   # > 0: weight left the bowl
        if self._pole_level != self._pole_now:
            delta += self._pole16 if self._pole_now else -self._pole16
        tol = self._tol
        acc = self._acc
        if self._pole_now and not self._pole_level:
            # The pole seated again. Out, part of it could lie on the rim (0 to all of it: the pole
            # leaning across the rim, firmware/tests/test_weigher_pole_lean.py), so the levels
            # then said nothing sure of the eggs; now all its weight is on the bowl again, and the
            # full nest is known. The full nest's weight back (within _zero at once, as eggs
            # poured back; within the tolerance after _T_ADD, as a hand may still rest on the
            # pole) is every egg back, whatever was said or missed while it was out; a nest full
            # all along settles so too, no longer waiting the long calm when the pole weighs a
            # little off its nominal mass (the fourth model, seed 41: 0.5 g).
            d_full = self._full16 - mean16
            if -self._zero < d_full < self._zero or (-tol < d_full < tol and k >= _T_ADD):
                # `full` if eggs were said out or the level before was short of the full nest
                # less the pole; a surplus then was the pole on the rim, not eggs
                was_out = self.out > 0 or self._level16 - self._full16 + self._pole16 <= -tol
                self._settle(t_ms, mean16)
                self.out = 0
                if was_out:
                    self.events += 1
                    return {"t_ms": t_ms, "full": True}
                return None
        # sure: calm for long enough to take the nearest fit. quick: an exact fit may be taken at
        # once, unless the signal has sat near this level, still moving, for a long time: that is
        # a hand holding an egg half-lifted, calm only in a lull of its tremor.
        sure = k >= _T_DOUBT
        quick = ((t_ms - self._t_far + _HALF) & _WRAP) - _HALF <= _T_HOLD
        if -tol < delta < tol:
            # nothing left (a hand that touched, the pole that came or went): settle quietly,
            # but only close to the old level: a hand resting still on the eggs is not a rest
            if -self._zero < delta < self._zero or k >= _T_LONG:
                # keep the old level (the hand's last touch says nothing about the rest), unless
                # the pole came or went or it has been calm for long
                same = k < _T_LONG and self._pole_level == self._pole_now
                self._settle(self._t_settle, self._level16 if same else mean16)
            return None
        if delta > 0:
            # how long the level has been there: since the mean arrived, or since the conversion
            # before the calm began, whichever is earlier
            kn = ((t_ms - self._t_near + _HALF) & _WRAP) - _HALF
            kc = k + self._per16 // _S - _T_CONV
            if kn < kc:
                kn = kc
            if kn < k:
                kn = k
            if (delta >= self._two + tol and quick) or (delta >= self._two and sure):
                if self._q_free and kn < _T_STILL:
                    self._k_next = k + _T_STILL - kn   # a ring's calm: see _RING_SD
                    return None
                if self._fell and kn < _T_STILL:
                    # The mean fell here from a level that waited out a possible hold: what fell
                    # is a change of its own, and it needs its own calm before it is folded into
                    # `out: 2`. A whole egg (one colour's mass: an egg rolling out, a second egg
                    # taken) may be said at once; a weight that is no egg's, and less than the
                    # heaviest, is part of one: the next child's still hand holding its egg half
                    # lifted (up to 0.5 s, _T_STILL, tremor lost in the noise), the waiting egg
                    # plus that part weighing two eggs. Physics model at its ranges' edges
                    # (seeds 1004, 1015: `out: 2` said while that hand held the egg).
                    f = self._fell16 - mean16
                    if f < self._cols[-1][0] and not self._egg(f):
                        self._k_next = k + _T_STILL - kn
                        return None
                self._settle(t_ms, mean16)
                self.out += 2
                self.events += 1
                return {"t_ms": t_ms, "out": 2}
            best = None
            best_m = 0
            bi = -1
            err = tol
            for j in range(len(self._cols)):
                m, c = self._cols[j]
                e = delta - m
                if e < 0:
                    e = -e
                if e < err:
                    err = e
                    best = c
                    best_m = m
                    bi = j
            if best is not None and (best_m + tol < self._cols[-1][0] or self._q_free) and kn < _T_STILL:
                # could still be a heavier egg held half-lifted. Remember it: if what ends this
                # calm is a new hand pressing down (a hold ends by lifting more), it was an egg.
                if err < acc and self._cand < 0:
                    self._cand = bi
                    self._cand16 = mean16
                    self._cand_t = self._t_q
                    self._cand_tn = self._t_near
                    self._t_up = -1
                self._k_next = k + _T_STILL - kn   # nothing to say before (a quiet level moves little)
                return None
            if best is not None and ((err < acc and quick) or sure):
                self._settle(t_ms, mean16)
                self.out += 1
                self.events += 1
                return {"t_ms": t_ms, "out": 1, "colour": best}
            if k >= _T_LONG:
                self._settle(t_ms, mean16)   # no egg fits: a re-zero, never an egg
            return None
        # weight came back
        d_full = self._full_expected() - mean16
        was_out = self.out > 0 or self._level16 < self._full_expected() - tol
        if -tol < d_full < tol:
            # every egg back is the very same set of eggs: the full weight comes back to within
            # the window mean's noise and the cell's creep, so at once only within _zero (0.3 g)
            # plus 0.2 % of the weight that came back (creep: 0.02-0.1 % of a load change in the
            # physics model, "in the range load-cell datasheets state"; nest.world's 0.2 %). A
            # hand resting on the eggs with about the weight of those out (a fumble, a firm
            # grip) lands anywhere in the tolerance: further off, wait _T_ADD (its leaving was a
            # false egg: physics seeds 1088, 1231, 1274, 1287, 1297)
            ex = self._zero - delta // _CREEP
            if (-ex < d_full < ex and self._peak * _S - mean16 > _LANDED * _S) or k >= _T_ADD:
                self._settle(t_ms, mean16)
                self._full16 = mean16 if self._pole_now else mean16 + self._pole16
                self.out = 0
                if was_out:
                    self.events += 1
                    return {"t_ms": t_ms, "full": True}
            return None
        was_out = self.out > 0 or self._level16 < self._full_expected() - tol
        if was_out and d_full <= -tol and k >= _T_LONG and -d_full < self._two:
            # eggs came back and it is heavier than the full nest, by less than two eggs, for
            # 3 s: every egg is back, and the rest is drift (not sooner: a hand resting on the
            # rim after a pour-back weighs that much, and at 10 SPS its tremor does not show)
            self._settle(t_ms, mean16)
            if self._pole_now:
                # not with the pole out: the surplus may be the pole on the rim (see the pole
                # seated again, above), and the full nest learned that much too heavy was never
                # again "ready" (firmware/tests/test_weigher_pole_lean.py)
                self._full16 = mean16
            self.out = 0
            self.events += 1
            return {"t_ms": t_ms, "full": True}
        if (k >= _T_ADD and self._w >= 6 and self.out > 0 and self._pole_level == self._pole_now
                and -tol < delta + self._last16 < tol and self._egg(self._last16)):
            # the very level before the last verdict came back: what was said out was put back
            # (a child lifts an egg clear, looks, puts it back), as the full nest's weight comes
            # back for a `full`, and waits as long (a hand resting with just that weight has
            # lifted by then). Without it, one egg back waits _T_LONG below, and a take begun
            # before then is judged against the level without the egg: no verdict, or a wrong one
            # (the blind model lab.liftmodel, seeds 9 and 24 at 80 SPS: a regrip, then the next
            # take said nothing; docs/weigher.md, "Eggs put back"). Only one egg's weight: the
            # last settled change may also be the pole that left (the reed's settle), and two eggs
            # poured back weigh about as much (the fourth model, lab.gripmodel: seed 298)
            self.out -= 1
            self._settle(t_ms, mean16)
            return None
        if k >= _T_LONG or (k >= _T_ADD and -delta >= self._two and d_full > 0):
            # some eggs back but not all of them (or a re-zero after a long calm). Less than two
            # eggs' weight added waits the long calm: a hand resting on the eggs weighs that much,
            # and at 10 SPS the HX711's 100 ms average takes its 8-12 Hz tremor out altogether
            back = (-delta + self._cols[0][0] // 2) // self._cols[(len(self._cols) - 1) // 2][0]
            self.out = self.out - back if self.out > back else 0
            self._settle(t_ms, mean16)
        return None
