# A nest that cannot weigh says so, as a silent HX711 does (gulo.hx711.Silence), instead of
# leaving a family in front of a game that has stopped without a word. It cannot weigh when:
# - it never comes to rest. The weigher judges an egg, and the turn flow finds the nest ready,
#   only from a calm (gulo.weigher). A bowl rubbing on the box, a cable pulling on it, a table
#   that keeps shaking or a load cell's loose wire keep it busy, and nothing follows;
# - its load cell is too noisy to tell the colours apart: the noise the weigher learned at rest
#   stays above NOISY_CG. It still says eggs, but more and more of them wrong.
# Either is reported as a fault ("what": "nest") and cleared once the nest weighs again; the
# game itself is never touched (no verdict, no alarm comes from here).
#
# Pure logic, small ints only on the sample path: the sampler calls check() with every sample
# and allocates nothing for it (firmware/tests/test_nestfault.py).

try:
    from micropython import const
except ImportError:  # CPython: const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

# The motion counted (below) that makes the fault. Play never counts this much: at most 23.2 s
# in four nest models, 80 sessions of each at both settings (pours, hands resting on eggs,
# knocked poles; the fifth model's turns come 0.2-1.2 s apart), 3.7 s on the physics model
# (`.venv/bin/python -m lab.faultstudy play [--seed=9001]`, lab/notebooks/weigher-research.md, "A nest that
# cannot weigh").
UNSETTLED_MS = const(30000)
# A bowl that rubs or shakes has lulls in which the weigher finds a calm window and rests for a
# sample or a few (up to 0.6 s at 11 samples/s in test_nestfault.py), so motion is
# counted, not timed from its start: each ms at rest takes DRAIN ms off the count, and a rest of
# CALM_MS ends it. A nest that moves more than 4/5 of the time is counted up (all the time: the
# fault after UNSETTLED_MS); play, with rests between the hands, is drained.
DRAIN = const(4)
CALM_MS = const(2000)
_GAP_MS = const(1000)   # a longer gap between samples (a stall of the sampler) counts as this
# 0.3 g rms of learned noise: where the weigher's accuracy starts to fall. White noise added to
# every sample of the nest models' sessions (`.venv/bin/python -m lab.faultstudy noise`,
# lab/notebooks/weigher-research.md, "A nest that cannot weigh"): the physics model at 10 SPS
# loses 0.4 points at 0.2 g and 0.8 at 0.3 g, 5 at 0.6 g (at 80 SPS 0.9 at 0.6 g); the fifth model at 80 SPS
# 6.6 points at 0.2 g. The datasheet's noise on the models' cells is 0.02-0.1 g, so a healthy
# module is well below it.
NOISY_CG = const(30)
# A shown noise fault clears only below this. The learned noise wanders about the true one (a
# running median moved a step a sample, gulo.weigher): 0.17-0.40 g for a cell of 0.3 g rms (80
# and 11 samples/s, 8 s, the traces of firmware/tests/test_nestfault.py). With 0.20 g here the
# fault came and went up to 6 times in a 45 s session of the physics model at 0.2 g of added
# noise; with 0.15 g at most twice (20 sessions a row, both settings; measured without NOISY_MS
# below, which only makes it rarer).
CLEAR_CG = const(15)
# ms at rest with the learned noise above NOISY_CG (since it was last below CLEAR_CG) before the
# fault shows: a noisy cell stays noisy, a bowl's ring dies. The fifth model's bowl rings for
# seconds, and the weigher, which weighs through a ring that is dying (gulo.weigher's free ring),
# learned it as up to 0.45 g of noise, above the limit for 0.7 s of rest in a healthy nest at
# play at 80 SPS (`.venv/bin/python -m lab.faultstudy play --seed=9001` runs the sessions; the
# longest such time in the four models is in lab/notebooks/weigher-research.md, "A nest that cannot
# weigh").
NOISY_MS = const(5000)
_WRAP = const(0x3FFFFFFF)   # gulo.clock.WRAP: the board's clock wraps at 2**30 ms

OK = const(0)
UNSETTLED = const(1)
NOISY = const(2)


class NestWatch:
    def __init__(self):
        self.kind = OK          # the fault being shown: OK, UNSETTLED or NOISY
        self.noise_cg = 0       # the learned noise when NOISY was shown (for its detail)
        self.noisy = 0          # ms at rest with the noise above NOISY_CG, since it was below CLEAR_CG
        self.moved = 0          # ms of motion less DRAIN x the ms of rest, since a real rest
        self.calm = -1          # when the current rest began (-1: moving)
        self._t = -1            # the last sample's time

    def check(self, w, t_ms):
        """The weigher `w` after a sample at t_ms (the clock it is fed with): True if the fault
        to show changed (read `kind`, word() and detail()). A moving nest is judged by how much
        it has moved (its lulls drain it, a real rest of CALM_MS ends it), and the learned noise
        only at rest (where it is learned)."""
        # gulo.clock's elapsed(), written out: this runs at every sample (lab/bench_sampler.py)
        dt = (t_ms - self._t) & _WRAP if self._t >= 0 else 0
        self._t = t_ms
        if dt > _GAP_MS:
            dt = _GAP_MS                   # a stall of the sampler is not motion seen
        kind = OK
        if not w.ready:
            # learning the nest (a boot, a relearn): no motion to judge, and the noise shown is
            # learned again at the end (cleared and shown again, it would sound at every relearn)
            self.moved = 0
            self.calm = -1
            if self.kind == NOISY:
                kind = NOISY
        else:
            busy = w.busy_since >= 0
            if busy:
                self.calm = -1
                m = self.moved + dt
                self.moved = m if m < UNSETTLED_MS else UNSETTLED_MS   # a small int for ever
            else:
                if self.calm < 0:
                    self.calm = t_ms
                m = self.moved - DRAIN * dt
                self.moved = m if m > 0 else 0
                if (t_ms - self.calm) & _WRAP >= CALM_MS:
                    self.moved = 0         # a rest of its own, not a lull: the motion is over
            if self.moved >= UNSETTLED_MS or (self.kind == UNSETTLED and self.moved > 0):
                kind = UNSETTLED
            elif busy:
                if self.kind == NOISY:
                    kind = NOISY           # the noise is not learned while busy: as shown
            else:
                n = w.noise_cg()
                if n < CLEAR_CG:
                    self.noisy = 0
                elif n > NOISY_CG and self.noisy < NOISY_MS:
                    self.noisy += dt
                if self.noisy >= NOISY_MS:
                    kind = NOISY
                    if self.kind != NOISY:
                        self.noise_cg = n
        if kind == self.kind:
            return False
        self.kind = kind
        return True

    def word(self):
        """The fault shown in one word, for `sensors` (nest diag): "ok", "unsettled", "noisy"."""
        return ("ok", "unsettled", "noisy")[self.kind]

    def detail(self):
        """What the fault shown is, in words (None: none)."""
        if self.kind == UNSETTLED:
            return ("the nest keeps moving and cannot weigh (%d s of motion): does the bowl touch the "
                    "box or a cable, or does the table shake? Else check the load cell's wires"
                    % (UNSETTLED_MS // 1000))
        if self.kind == NOISY:
            return ("the load cell is too noisy to tell the eggs apart (%d.%02d g rms, more than "
                    "%d.%02d g): check its wires and the HX711's supply"
                    % (self.noise_cg // 100, self.noise_cg % 100, NOISY_CG // 100, NOISY_CG % 100))
        return None
