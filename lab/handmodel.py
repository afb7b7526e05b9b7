"""handmodel: a blind simulator of the load cell under the Gulo Gulo nest, hands first.

Written without reading the project's egg detector, its notes or its other models' physics
(see handmodel-brief.md for what was read). Every figure is either cited beside it or marked
ASSUMED. The chain, for one session:

    game script (turns, hands, drops, pole, refills)   -> force on the bowl, gram-force, 1 kHz grid
      hands: press (Forssberg 1991 "negative load force"), bell-shaped load-force rise,
             friction drag on the neighbour eggs while the egg is pulled out (the undershoot),
             pile relaxation after (the ~0.8 s settle), 8-12 Hz tremor, rim presses, returns
      pole: rigid rod toppling about its foot, N = m g (3 cos(th) - 1)^2 / 4, hit on the rim
      eggs poured back: impacts m v (1 + e) with one bounce
      table bumps: base acceleration x the mass on the cell
    -> bowl + contents on the cell: one damped mode (ZOH-exact step-invariant kernel, FFT)
    -> creep (first-order, of the static load), zero drift, mains pickup
    -> HX711: sinc^4 over 4 conversion periods (settling = 4 periods, datasheet), input noise
       50/90 nV rms x board factor, 24-bit counts, rare bad reads (bit slips, 2^k-1 values)
    -> ESP32 stamping: latency, stalls that lose a conversion, integer ms, strictly increasing

    session(seed, setting=80, **over) -> Session
    python handmodel.py SEED OUT.png [80|10]

numpy only. Same (seed, setting, over) -> same session; the game itself depends only on seed and
over (the same seed at 10 and 80 SPS plays the same game).
"""
import math
import sys
from dataclasses import dataclass, field

import numpy as np

from lab.closedloop import Hands

FS = 1000.0                 # Hz, internal force grid (bowl modes here are < 80 Hz: >= 12 points/cycle)
PRE_S = 1.0                 # s of grid before t = 0 so the ADC filter and the mode start at rest
G = 9.81                    # m/s^2

# Eggs. Counts: /work/shared/docs/rules.md and the rulebook ("22 eggs in 5 colors (5 of green,
# yellow, red, blue, and 2 purple)"). Masses: the brief for this model (G 10, Y 12, R 14, B 16, P 18).
# NOTE: the project's own docs order the classes G, P, Y, R, B = 10..18 g; this model follows its brief.
NOMINAL_G = {"G": 10.0, "Y": 12.0, "R": 14.0, "B": 16.0, "P": 18.0}
EGG_COUNTS = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}
COLOURS = ("G", "Y", "R", "B", "P")
EGG_LEN_MM = (28.0, 38.0)   # ASSUMED: the egg's height, the distance it slides out of the pile

# HX711 (Avia Semiconductor datasheet): input noise 50 nV rms at RATE=0 (10 SPS) and 90 nV rms at
# RATE=1 (80 SPS), gain 128; full-scale differential input +-0.5*AVDD/128 over +-2^23 counts;
# output settling time 400 ms / 50 ms = 4 output periods (the filter spans 4 conversions).
NOISE_NV = {10: 50.0, 80: 90.0}
GAIN = 128
SETTLE_PERIODS = 4

# Every tunable parameter: (low, high), drawn uniformly per session unless overridden.
PARAMS = {
    # ---- HX711, cell, reading task ---------------------------------------------------------------
    "odr_factor": (1.07, 1.18),        # real/nominal rate, internal oscillator fast: the brief (7-18 %);
                                       # olkal/HX711_ADC#29 (10.87 ms = 92 SPS), #98 (93.7 SPS),
                                       # garethky/klipper#14 (10.8 SPS at RATE=0)
    "noise_board": (1.0, 3.0),         # x datasheet input noise: module layout, supply (ASSUMED)
    "excitation_v": (2.7, 4.3),        # AVDD = bridge excitation (datasheet: VAVDD = VBG(R1+R2)/R1;
                                       # 4.3 V on common modules, ~3 V on 3.3 V-fed ones) (ASSUMED range)
    "rated_mv_v": (0.85, 1.15),        # TAL220-style 1 kg bar cell, 1.0 +- 0.15 mV/V (vendor sheet)
    "zero_mv_v": (-0.15, 0.15),        # bridge zero balance (ASSUMED; only matters for bad reads)
    "mains_hz": (50.0, 60.0),          # drawn, then snapped to 50 or 60 (the grid of the country)
    "mains_nv": (0.0, 250.0),          # input-referred mains pickup, peak (ASSUMED)
    "spike_per_10k": (0.0, 15.0),      # bad reads per 10 000 samples (ASSUMED; bogde/HX711#83 saw
                                       # 2^k-1 values in 1-5 % of reads on a slow 8 MHz AVR, #216)
    "drift_g_per_min": (-0.25, 0.25),  # zero drift: 0.05 %FS/10 K (Seeed 500 g cell sheet, typical
                                       # of cheap bar cells) x a few K/min warm-up (ASSUMED rate)
    "wander_g": (0.0, 0.15),           # random-walk zero wander, rms per minute (ASSUMED)
    "creep_frac": (0.0, 0.002),        # creep of a load change: 0.05 %FS/30 min (Seeed sheet) is 5e-4;
                                       # x4 for the PLA bowl/spacer (ASSUMED)
    "creep_tau_s": (30.0, 400.0),      # creep time constant (ASSUMED)
    "preload_age_s": (60.0, 1800.0),   # the full nest sat on the cell this long before t=0 (ASSUMED)
    "scale_err": (-0.005, 0.005),      # calibration factor error (reference weight +-1 g in 200 g) (ASSUMED)
    "latency_ms": (0.1, 1.5),          # DOUT falls -> the ESP32 stamps the read (ASSUMED)
    "stall_per_min": (0.0, 6.0),       # reading task blocked (flash write, GC) (ASSUMED)
    "stall_ms": (5.0, 40.0),           # its length; a conversion overwritten if longer (ASSUMED)
    # ---- mechanics -----------------------------------------------------------------------------
    "tare_g": (150.0, 300.0),          # bowl (+ spacer) on the cell: the brief
    "pole_g": (20.0, 40.0),            # the alarm pole: the brief
    "egg_spread_g": (0.1, 0.3),        # each egg uniform within +- this of its class: the brief (+-0.3 g)
    "defl_um_per_kg": (80.0, 800.0),   # cell + bowl mount deflection per kg -> the mode (ASSUMED)
    "zeta": (0.05, 0.30),              # damping ratio of that mode, loose eggs add friction (ASSUMED)
    "pole_len_mm": (150.0, 250.0),     # the pole's length (ASSUMED)
    "bump_per_min": (0.0, 3.0),        # someone knocks the table (ASSUMED)
    "bump_ms2": (0.05, 1.0),           # peak table-top acceleration of a knock (ASSUMED)
    "bump_hz": (8.0, 40.0),            # table-top mode (ASSUMED)
    # ---- hands (children 5+) -------------------------------------------------------------------
    "press_g": (2.0, 20.0),            # fingers press the egg into the pile before the lift: AiFi
                                       # pick-up +30 g on 105 g (29 %) scaled to 10-18 g eggs, and the
                                       # negative load force of children (Forssberg 1991) (ASSUMED top)
    "press_ms": (30.0, 120.0),         # its length: AiFi ~50 ms (ASSUMED spread)
    "load_ms": (80.0, 400.0),          # load-force rise to lift-off, bell-shaped rate (Forssberg 1991,
                                       # Exp Brain Res 85:451; longer in young children) (ASSUMED range)
    "lift_mm_s": (100.0, 500.0),       # speed the egg is drawn out of the pile (ASSUMED)
    "drag_frac": (0.1, 0.8),           # neighbours' weight dragged up by friction / egg weight: AiFi
                                       # undershoot 57 g on a 105 g pick-up = 0.54 (ASSUMED mechanism)
    "settle_tau_s": (0.08, 0.25),      # pile relaxation after the egg clears: AiFi settled ~0.8 s = 3 tau
    "tremor_hz": (8.0, 12.0),          # physiological tremor peak (Marsden 1969 EEG Clin Neurophysiol
                                       # 27:169; Novak & Newell 2017 Neurosci Lett: 8-12 Hz component)
    "tremor_g": (0.2, 1.5),            # rms tremor force of fingers resting on the pile (ASSUMED; grows
                                       # with force, Sutton & Sykes 1967 J Physiol 191:699)
    "rim_g": (20.0, 300.0),            # a hand pressing on the rim while reaching (ASSUMED)
    "back_lull_ms": (100.0, 200.0),    # a hand comes back after this short lull: the brief
    # ---- the game --------------------------------------------------------------------------------
    "outs": (30.0, 40.0),              # eggs out per session (rounded): the brief (~1000 / 30 sessions)
    "think_s": (1.5, 6.0),             # mean hands-off time between turns (ASSUMED)
    "p_late": (0.03, 0.10),            # per take: another egg rolls out 0.3-1 s later (ASSUMED)
    "p_together": (0.01, 0.05),        # per take: another egg comes out with it (ASSUMED)
    "p_pair": (0.0, 0.03),             # per take: two eggs taken in one hand (ASSUMED)
    "p_pole": (0.02, 0.07),            # per take: the pole is knocked over (ASSUMED)
    "p_touch": (0.05, 0.15),           # per turn: an egg touched (sometimes lifted) first (ASSUMED)
    "p_lean": (0.02, 0.10),            # per turn: a hand leans on the rim, nothing taken (ASSUMED)
    "p_idle_pole": (0.0, 0.02),        # per turn: the pole falls by itself after a table knock (ASSUMED)
    "pour_h_mm": (20.0, 80.0),         # eggs poured from the bag fall this far (ASSUMED)
    "impact_ms": (3.0, 12.0),          # contact time of an egg landing on the pile (ASSUMED)
}
INT_PARAMS = ("outs",)

# Shares of the kinds of take (ASSUMED); "pair" comes from p_pair.
HANDS = ("steady", "shaky", "rim", "slow", "snatch", "press", "back")
HAND_P = (0.28, 0.14, 0.12, 0.12, 0.12, 0.10, 0.12)


@dataclass
class Session:
    samples: list
    masses: dict
    pole_g: float
    setting: int
    params: dict
    eggs_g: dict
    truth: list
    derived: dict = field(default_factory=dict)
    env: list = field(default_factory=list)      # bumps and bad reads, for people reading traces
    # each hand that follows the game (a turn's first, the first after an alarm): (its time, the
    # end of what came before it), ms; lab.closedloop makes them wait for the game
    starts: list = field(default_factory=list)


# ---- small shapes ---------------------------------------------------------------------------------

def _smooth(x):
    """Smoothstep 0..1: its derivative is bell-shaped, like a child's load-force rate (Forssberg 1991)."""
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _smooth_inv(y):
    """x in 0..1 with _smooth(x) = y."""
    y = min(max(y, 0.0), 1.0)
    return 0.5 - math.sin(math.asin(1.0 - 2.0 * y) / 3.0)


def _bump(tt, t0, dur):
    """Raised-cosine bump of height 1 over [t0, t0 + dur]."""
    x = (tt - t0) / max(dur, 1e-3)
    return np.where((x > 0) & (x < 1), 0.5 - 0.5 * np.cos(2 * np.pi * np.clip(x, 0, 1)), 0.0)


def _plateau(tt, t0, t1, rise, fall):
    """0 -> 1 over [t0, t0 + rise], 1 until t1, 1 -> 0 over [t1, t1 + fall]."""
    return _smooth((tt - t0) / max(rise, 1e-3)) * (1.0 - _smooth((tt - t1) / max(fall, 1e-3)))


def _slow_noise(rng, n, knot_hz):
    """Smooth zero-mean unit-rms noise: random knots at knot_hz, linearly interpolated."""
    m = int(n / FS * knot_hz) + 3
    knots = rng.normal(0.0, 1.0, m)
    return np.interp(np.arange(n) / FS * knot_hz, np.arange(m), knots)


def _tremor(rng, n, f_hz, rms):
    """Finger force tremor: an 8-12 Hz line ~1 Hz wide (random-walk phase, ASSUMED width) plus as much
    again of 1-4 Hz wobble (children show more low-frequency tremor than adults: Marsden 1969)."""
    if n <= 0 or rms <= 0:
        return np.zeros(max(n, 0))
    tt = np.arange(n) / FS
    phase = rng.uniform(0, 2 * np.pi) + np.cumsum(rng.normal(0.0, math.sqrt(2 * np.pi * 1.0 / FS), n))
    am = 1.0 + 0.3 * _slow_noise(rng, n, 3.0)
    line = math.sqrt(2.0) * np.sin(2 * np.pi * f_hz * tt + phase) * am
    low = _slow_noise(rng, n, rng.uniform(2.0, 8.0))
    return rms * (0.8 * line + 0.6 * low)


# ---- the force canvas -----------------------------------------------------------------------------

class _Canvas:
    """Collects forces on the bowl (gram-force) as transient pieces and permanent steps."""

    def __init__(self):
        self.pieces = []        # (grid index, array): transient, must end near 0
        self.steps = []         # (grid index, delta): permanent load changes (eggs, pole)

    @staticmethod
    def idx(t):
        return int(round((t + PRE_S) * FS))

    def add(self, t, arr):
        self.pieces.append((self.idx(t), np.asarray(arr, dtype=float)))

    def profile(self, t, arr, final):
        """A local force history starting at t that ends at, and then stays at, `final`."""
        arr = np.asarray(arr, dtype=float)
        self.pieces.append((self.idx(t), arr - final))
        if final != 0.0:
            self.steps.append((self.idx(t), float(final)))

    def impact(self, t, j_gs, dur_s):
        """A half-sine contact force carrying impulse j_gs (gram-force seconds)."""
        n = max(1, int(round(dur_s * FS)))
        shape = np.sin(np.pi * (np.arange(n) + 0.5) / n)
        self.add(t, shape * (j_gs * FS / shape.sum()))


def _j_gs(mass_g, v_ms):
    """Impulse of mass_g grams at v_ms m/s, in gram-force seconds."""
    return mass_g * v_ms / G


# ---- the game and the hands -----------------------------------------------------------------------

class _Game:
    def __init__(self, rng, p, eggs, waits=None):
        self.r = rng
        self.hands = Hands(waits)       # the hands that follow the game (lab.closedloop)
        self.p = p
        self.cv = _Canvas()
        self.nest = list(eggs)          # [(colour, mass)] in the bowl
        self.outside = []               # taken or dropped, waiting for a refill
        self.pole_in = True             # pole's weight in the bowl
        self.reed = [(-PRE_S, True)]    # (t, seated) changes
        self.truth = []
        self.env = []
        self.t = 0.0
        self.load = p["tare_g"] + p["pole_g"] + sum(m for _, m in eggs)

    # -- helpers --
    def U(self, a, b):
        return float(self.r.uniform(a, b))

    def ms(self, t):
        return int(round(t * 1000.0))

    def _contact_tremor(self, tt, mask, k=1.0, extra=0.0):
        rms = self.p["tremor_g"] * k + extra
        return _tremor(self.r, len(tt), self.p["tremor_hz"] * self.U(0.95, 1.05), rms) * mask

    # -- a take ----------------------------------------------------------------------------------
    def take(self, t0, masses, kind):
        """One hand takes the egg(s) of `masses` (grams). Returns timing marks (session seconds)."""
        r, p, U = self.r, self.p, self.U
        W = float(sum(masses))
        tl = 0.0
        rim = kind == "rim"
        if rim:                                     # the other hand/wrist on the rim first
            rim_g = p["rim_g"] * U(0.5, 1.5)
            tl = U(0.15, 0.6)
        pre = None
        if kind == "press":                         # fingers push down on the pile while reaching
            pre = (tl, U(0.15, 0.6), p["press_g"] * U(1.5, 4.0) + U(5.0, 20.0))
            tl += pre[1] * U(0.6, 0.9)
        k_press = {"snatch": 0.3, "steady": 1.0}.get(kind, U(0.6, 1.2))
        P = p["press_g"] * U(0.5, 1.5) * k_press
        Tp = p["press_ms"] / 1000.0 * U(0.7, 1.3) * (0.5 if kind == "snatch" else 1.0)
        t_press = tl
        Tl = p["load_ms"] / 1000.0 * U(0.7, 1.4)
        if kind == "slow":
            Tl *= U(2.0, 4.0)
        elif kind == "snatch":
            Tl = min(Tl * U(0.25, 0.5), 0.08)
        t_load0 = t_press + 0.7 * Tp                # the load builds as the press releases
        over = U(0.05, 0.3)                         # load force overshoots the weight to accelerate it
        if kind == "slow":                          # a still, half-lifted egg
            f_hold = U(0.3, 0.9)
            T1, Th, T2 = Tl * U(0.3, 0.6), U(0.15, 0.6), Tl * U(0.3, 0.6)
            x = _smooth_inv((1.0 - f_hold) / (1.0 + over - f_hold))
            t_c = t_load0 + T1 + Th + x * T2
        else:
            t_c = t_load0 + _smooth_inv(1.0 / (1.0 + over)) * Tl
        v = p["lift_mm_s"] * U(0.7, 1.3) * {"snatch": 2.0, "slow": 0.6}.get(kind, 1.0)
        T_ex = U(*EGG_LEN_MM) / v
        t_clear = t_c + T_ex
        t_leave = t_clear + U(0.0, 0.04)
        t_last = t_leave
        if rim:
            rim_end = t_leave + U(-0.05, 0.3)
            t_last = max(t_last, rim_end)
        c2 = None
        if kind == "back":                          # the hand comes back after a short lull
            c2s = t_last + p["back_lull_ms"] / 1000.0 * U(0.9, 1.1)
            c2 = (c2s, U(0.1, 0.5), U(5.0, 60.0))
            t_last = c2s + c2[1]
        D = p["drag_frac"] * W * U(0.6, 1.3) * {"snatch": 1.3, "slow": 0.5}.get(kind, 1.0)
        tau = p["settle_tau_s"] * U(0.8, 1.2)
        n = int((max(t_last, t_clear + 6 * tau) + 0.05) * FS)
        tt = np.arange(n) / FS
        f = np.zeros(n)
        f += P * _bump(tt, t_press, Tp)
        if pre is not None:
            f += pre[2] * _bump(tt, pre[0], pre[1])
        if kind == "slow":
            u = f_hold * W * _smooth((tt - t_load0) / T1) + \
                (W * (1 + over) - f_hold * W) * _smooth((tt - t_load0 - T1 - Th) / T2)
        else:
            u = W * (1 + over) * _smooth((tt - t_load0) / Tl)
        off = tt >= t_c
        f -= np.where(off, W, np.minimum(u, W))
        rise = min(0.03, T_ex / 2)                  # friction drags neighbours up, then the pile relaxes
        d = np.where(tt < t_clear, D * _smooth((tt - t_c) / rise),
                     D * np.exp(-np.clip(tt - t_clear, 0, None) / tau))
        f -= d
        for _ in range(int(r.integers(0, 3))):      # neighbours slip into the gap: soft knocks, slow
            self.cv.impact(t0 + t_clear + U(0.02, 2.5 * tau),   # granular contacts (ASSUMED 1-5 cm/s)
                           _j_gs(U(10, 18), U(0.01, 0.05)), U(0.02, 0.05))
        mask = _plateau(tt, 0.0 if not rim else t_press, t_leave, 0.02, 0.02)
        k_trem = U(2.0, 4.0) if kind == "shaky" else U(0.3, 1.0)
        if rim:
            env = _plateau(tt, 0.0, rim_end, U(0.05, 0.2), U(0.05, 0.2))
            f += rim_g * env * (1.0 + 0.08 * _slow_noise(r, n, 3.0))
            f += self._contact_tremor(tt, env, k_trem, extra=U(0.01, 0.03) * rim_g)
        if c2 is not None:
            e2 = _plateau(tt, c2[0], c2[0] + c2[1] - 0.04, 0.04, 0.04)
            f += c2[2] * e2
            mask = np.maximum(mask, e2)
        f += self._contact_tremor(tt, mask, k_trem)
        self.cv.profile(t0, f, -W)
        self.load -= W
        return {"t_in": t0, "t_c": t0 + t_c, "t_clear": t0 + t_clear, "t_ms": t0 + t_last,
                "t_end": t0 + max(t_last, t_clear + 3 * tau)}

    # -- an egg rolls or falls out by itself -----------------------------------------------------
    def drop(self, t_start, t_exit, mass):
        U = self.U
        n = int((t_exit - t_start + 0.1) * FS)
        tt = np.arange(n) / FS
        T = t_exit - t_start
        w = U(0.02, 0.15) * mass * np.sin(2 * np.pi * U(1.5, 4.0) * tt) * _plateau(tt, 0, T - 0.05, 0.05, 0.05)
        ex = U(0.02, 0.06)                          # it tips over the rim: the rim carries it briefly
        f = -w - mass * _smooth((tt - (T - ex)) / ex)
        self.cv.profile(t_start, f, -mass)
        self.load -= mass

    # -- a touch with nothing taken --------------------------------------------------------------
    def touch(self, t0, mass, lifted):
        p, U = self.p, self.U
        P = p["press_g"] * U(0.5, 2.0)
        Tp = U(0.1, 0.5)
        t_last = Tp
        parts = []
        if lifted:                                  # lifted clear, looked at, put back
            Tl = p["load_ms"] / 1000.0 * U(0.7, 1.4)
            t_up = Tp * 0.7 + Tl * _smooth_inv(1 / 1.15)
            hold = U(0.2, 1.0)
            t_down = t_up + U(*EGG_LEN_MM) / p["lift_mm_s"] + hold
            Tset = U(0.05, 0.15)
            t_last = t_down + Tset + U(0.05, 0.2)
            parts = (t_up, t_down, Tset)
        n = int((t_last + 0.1) * FS)
        tt = np.arange(n) / FS
        f = P * _bump(tt, 0.0, Tp)
        if lifted:
            t_up, t_down, Tset = parts
            f -= mass * _smooth((tt - Tp * 0.5) / (t_up - Tp * 0.5)) * (1 - _smooth((tt - t_down) / Tset))
            self.cv.impact(t0 + t_down + Tset * 0.5, _j_gs(mass, U(0.03, 0.2)), p["impact_ms"] / 1000.0)
        mask = _plateau(tt, 0.0, t_last - 0.02, 0.02, 0.02)
        f += self._contact_tremor(tt, mask, U(0.3, 2.0))
        self.cv.profile(t0, f, 0.0)
        # -> (the hand gone, (the egg clear, the egg down) when it was lifted, else None)
        return t0 + t_last, (t0 + parts[0], t0 + parts[1]) if lifted else None

    def lean(self, t0):
        """A hand or forearm rests on the rim and presses, nothing taken."""
        p, U = self.p, self.U
        R = p["rim_g"] * U(0.3, 2.0)
        dur = U(0.3, 3.0)
        n = int((dur + 0.4) * FS)
        tt = np.arange(n) / FS
        env = _plateau(tt, 0.0, dur, U(0.05, 0.25), U(0.05, 0.25))
        f = R * env * (1.0 + 0.1 * _slow_noise(self.r, n, 2.0))
        f += self._contact_tremor(tt, env, U(0.5, 2.0), extra=U(0.01, 0.03) * R)
        self.cv.profile(t0, f, 0.0)
        return t0 + dur + 0.25

    # -- table knocks ----------------------------------------------------------------------------
    def bump(self, t0):
        p, U = self.p, self.U
        A = p["bump_ms2"] * U(0.3, 1.0)
        fz = p["bump_hz"] * U(0.8, 1.2)
        tau = U(0.05, 0.4)
        n = int(5 * tau * FS)
        tt = np.arange(n) / FS
        a = A * np.exp(-tt / tau) * np.sin(2 * np.pi * fz * tt)
        self.cv.add(t0, self.load * a / G)         # inertial load of the contents on the cell
        self.env.append({"what": "bump", "t_ms": self.ms(t0), "ms2": round(A, 3)})

    # -- the pole ----------------------------------------------------------------------------------
    def pole_fall(self, t0, w0):
        """Rigid rod toppling about its foot: th'' = 3g/(2L) sin th, N = m g (3cos th - 1)^2 / 4.
        Returns (t_reed_open, t_done, fate)."""
        p, U = self.p, self.U
        m = p["pole_g"]
        L = p["pole_len_mm"] / 1000.0
        k = 3 * G / (2 * L)
        th, w = math.radians(U(0.5, 2.0)), w0
        th_reed = math.radians(U(4.0, 12.0))       # the magnet foot tilts off the reed (ASSUMED)
        fate = "table" if self.r.random() < 0.75 else "rim"   # rulebook: it may rest on the rim (ASSUMED share)
        th_hit = math.radians(U(55.0, 75.0)) if fate == "table" else math.radians(U(25.0, 45.0))
        ths = []
        dt = 1.0 / FS
        while th < th_hit and len(ths) < 4000:
            w += k * math.sin(th) * dt
            th += w * dt
            ths.append(th)
        ths = np.array(ths)
        c = np.cos(ths)
        N = m * (3 * c - 1) ** 2 / 4
        N[np.maximum.accumulate(c < 1 / 3)] = 0.0   # foot unloads past 70.5 deg
        i_reed = int(np.argmax(ths >= th_reed)) if np.any(ths >= th_reed) else len(ths) - 1
        t_hit = len(ths) / FS
        v_hit = w * L * U(0.4, 0.7)                 # the shaft's speed where it meets the rim
        if fate == "table":                         # off over the rim onto the table
            share, tau = U(0.15, 0.4) * m, U(0.03, 0.1)
            tail = np.arange(int(5 * tau * FS)) / FS
            f = np.concatenate([N - m, share * np.exp(-tail / tau) - m])
            self.cv.impact(t0 + t_hit, _j_gs(m, v_hit) * U(0.3, 0.6), 0.008)
            self.cv.profile(t0, f, -m)
            self.pole_in = False
            self.load -= m
        else:                                       # foot in the bowl, shaft on the rim: weight stays
            tail = np.arange(int(0.3 * FS)) / FS
            f = np.concatenate([N - m, -m * np.exp(-tail / 0.05) * np.cos(2 * np.pi * 6 * tail)])
            self.cv.impact(t0 + t_hit, _j_gs(m, v_hit) * U(0.5, 1.0), 0.008)
            self.cv.profile(t0, f, 0.0)
        t_reed = t0 + i_reed / FS
        self.reed.append((t_reed, False))
        self.truth.append({"what": "pole_out", "t_in": self.ms(t0), "t_ms": self.ms(t_reed), "fate": fate})
        return t_reed, t0 + t_hit + 0.3, fate

    def pole_lift_out(self, t0):
        """A player pulls the pole out of the pile (before a pour)."""
        U, m = self.U, self.p["pole_g"]
        T = U(0.15, 0.4)
        n = int((T + 0.1) * FS)
        tt = np.arange(n) / FS
        f = -m * _smooth(tt / T) + self._contact_tremor(tt, _plateau(tt, 0, T, 0.02, 0.02))
        self.cv.profile(t0, f, -m)
        self.pole_in = False
        self.load -= m
        t_reed = t0 + T * 0.3
        self.reed.append((t_reed, False))
        self.truth.append({"what": "pole_out", "t_in": self.ms(t0), "t_ms": self.ms(t_reed), "fate": "lifted"})
        return t0 + T + 0.1

    def pole_back(self, t0, weight_back):
        """Stick the pole back between the eggs; the reed closes when it seats."""
        U, m = self.U, self.p["pole_g"]
        T_in = U(0.1, 0.4)
        Ps, Tps = U(5.0, 30.0), U(0.05, 0.15)
        t_seat = T_in + Tps * 0.5
        t_off = t_seat + U(0.05, 0.3)
        n = int((t_off + 0.1) * FS)
        tt = np.arange(n) / FS
        f = Ps * _bump(tt, T_in, Tps)
        if weight_back:
            f += m * _smooth(tt / T_in)
        f += self._contact_tremor(tt, _plateau(tt, 0, t_off, 0.02, 0.03))
        self.cv.profile(t0, f, m if weight_back else 0.0)
        if weight_back:
            self.pole_in = True
            self.load += m
        self.reed.append((t0 + t_seat, True))
        self.truth.append({"what": "pole_in", "t_in": self.ms(t0), "t_ms": self.ms(t0 + t_seat),
                           "t_hand_off": self.ms(t0 + t_off)})
        return t0 + t_off

    # -- refill -----------------------------------------------------------------------------------
    def refill(self, t0):
        """All eggs outside go back: poured from the cotton bag (rulebook), at times placed by hand."""
        r, p, U = self.r, self.p, self.U
        eggs = list(self.outside)
        r.shuffle(eggs)
        self.outside = []
        if not eggs:
            return t0
        poured = r.random() < 0.8
        t_land = []
        if poured:
            spread = U(0.2, 0.6) + 0.05 * len(eggs)
            t_land = np.sort(r.uniform(0.1, 0.1 + spread, len(eggs)))
            t_end = t_land[-1] + U(0.1, 0.4)
            rim = r.random() < 0.5                  # the bag or the hand rests on the rim
            n = int((t_end + 0.3) * FS)
            tt = np.arange(n) / FS
            f = np.zeros(n)
            if rim:
                R = U(20.0, 150.0)
                env = _plateau(tt, 0.0, t_end - 0.1, 0.08, 0.08)
                f += R * env + self._contact_tremor(tt, env, 1.0, extra=0.02 * R)
            total = 0.0
            for (c, m), tl in zip(eggs, t_land):
                h = p["pour_h_mm"] / 1000.0 * U(0.5, 1.5)
                v = math.sqrt(2 * G * h)
                e = U(0.2, 0.5)                     # restitution, wood on wooden eggs (ASSUMED)
                tf = 2 * e * v / G
                dur = p["impact_ms"] / 1000.0 * U(0.7, 1.3)
                self.cv.impact(t0 + tl, _j_gs(m, v * (1 + e)), dur)
                self.cv.impact(t0 + tl + tf, _j_gs(m, e * v), dur)
                f += m * (tt >= tl + tf)
                total += m
            self.cv.profile(t0, f, total)
        else:                                       # placed by hand, 1-3 at a time
            ts = 0.0
            i = 0
            pieces = []
            while i < len(eggs):
                k = int(r.integers(1, 4))
                grp = eggs[i:i + k]
                i += k
                T = U(0.06, 0.2)
                t_off = ts + T + U(0.05, 0.2)
                pieces.append((ts, T, t_off, sum(m for _, m in grp), U(2.0, 15.0)))
                t_land.append(ts + T)
                ts = t_off + U(0.3, 1.0)
            t_end = pieces[-1][2]
            n = int((t_end + 0.2) * FS)
            tt = np.arange(n) / FS
            f = np.zeros(n)
            mask = np.zeros(n)
            for ts, T, t_off, mg, P in pieces:
                f += mg * _smooth((tt - ts) / T) + P * _bump(tt, ts + T * 0.5, T + 0.05)
                mask = np.maximum(mask, _plateau(tt, ts, t_off, 0.02, 0.02))
            f += self._contact_tremor(tt, mask, 1.0)
            total = sum(m for _, m in eggs)
            self.cv.profile(t0, f, total)
        self.nest += eggs
        self.load += total
        self.truth.append({"what": "back", "t_in": self.ms(t0), "t_ms": self.ms(t0 + t_end),
                           "eggs": len(eggs), "how": "poured" if poured else "placed"})
        return t0 + t_end

    # -- the session script -----------------------------------------------------------------------
    def pick(self, colour):
        idx = [i for i, (c, _) in enumerate(self.nest) if c == colour]
        return self.nest.pop(int(self.r.choice(idx)))

    def after_alarm(self, t):
        """Players notice, gather the eggs into the bag, pour them back, stick the pole back."""
        U = self.U
        t = self.hands.after(t, U(1.5, 5.0))
        pole_was_out = not self.pole_in
        reed_open = not self.reed[-1][1]
        if not pole_was_out and not reed_open and self.r.random() < 0.5:
            t = self.pole_lift_out(t) + U(0.3, 1.0)
            pole_was_out = True
        if self.outside:
            t = self.refill(t) + U(0.3, 1.5)
        if pole_was_out or reed_open:
            t = self.pole_back(t, weight_back=not self.pole_in) + U(0.2, 1.0)
        return t

    def play(self):
        r, p, U = self.r, self.p, self.U
        target = int(round(p["outs"]))
        n_out = 0
        t = U(1.8, 3.5)                             # full nest at rest first
        next_bump = t + (r.exponential(60.0 / p["bump_per_min"]) if p["bump_per_min"] > 0 else 1e9)
        while n_out < target:
            # bumps fall between the hands' actions, drawn on the script's own clock (without the
            # waits for the game) so that waiting changes no draw
            while next_bump < t - self.hands.waited:
                self.bump(next_bump + self.hands.waited)
                next_bump += r.exponential(60.0 / p["bump_per_min"]) + 0.5
            if r.random() < p["p_idle_pole"]:       # a knock topples the pole, no penalty
                self.bump(t)
                _, t_done, _ = self.pole_fall(t + U(0.01, 0.05), U(0.2, 1.0))
                t = self.pole_back(t_done + U(1.5, 4.0), weight_back=not self.pole_in) + U(0.5, 2.0)
            if r.random() < p["p_lean"]:
                t0 = t
                t = self.lean(t0)
                self.truth.append({"what": "touch", "t_in": self.ms(t0), "t_ms": self.ms(t - 0.25),
                                   "lifted": False, "hand": "lean"})
                t += U(0.3, 1.5)
            weights = np.array([(1.0 if c != "P" else 0.15) * any(cc == c for cc, _ in self.nest)
                                for c in COLOURS])
            colour = COLOURS[int(r.choice(5, p=weights / weights.sum()))]
            if r.random() < p["p_touch"] and len(self.nest) > 1:
                c2, m2 = self.nest[int(r.integers(len(self.nest)))]
                lifted = r.random() < 0.3
                t0 = t
                t1, held = self.touch(t0, m2, lifted)
                self.truth.append({"what": "touch", "t_in": self.ms(t0), "t_ms": self.ms(t1),
                                   "lifted": lifted, "hand": "finger"})
                if held:   # the egg held clear from t_clear until t_down (lab.weighscore `held`)
                    self.truth[-1].update(colour=c2, t_clear=self.ms(held[0]), t_down=self.ms(held[1]))
                t = t1 + U(0.3, 2.0)
            kind = HANDS[int(r.choice(len(HANDS), p=HAND_P))]
            taken = [self.pick(colour)]
            if r.random() < p["p_pair"] and len(self.nest) > 2:
                taken.append(self.nest.pop(int(r.integers(len(self.nest)))))
                kind = "pair"
            knock = r.random() < p["p_pole"] and self.pole_in
            abort = knock and r.random() < 0.3
            t0 = t
            if abort:                               # the pole goes, the child lets go of the egg
                self.nest += taken
                t1, _ = self.touch(t0, sum(m for _, m in taken), False)
                self.truth.append({"what": "touch", "t_in": self.ms(t0), "t_ms": self.ms(t1),
                                   "lifted": False, "hand": "abort"})
                self.pole_fall(t0 + U(0.05, 0.3), U(0.5, 2.5))
                t = self.after_alarm(t1 + 0.5)
                continue
            mk = self.take(t0, [m for _, m in taken], "steady" if kind == "pair" else kind)
            for c, m in taken:
                self.truth.append({"what": "out", "t_in": self.ms(t0), "t_ms": self.ms(mk["t_ms"]),
                                   "colour": c, "cause": "take", "hand": kind, "t_lift": self.ms(mk["t_c"])})
            self.outside += taken
            n_out += len(taken)
            t = mk["t_end"]
            alarm = False
            fate = None
            if knock:
                _, t_done, fate = self.pole_fall(t0 + U(0.05, max(0.06, mk["t_clear"] - t0)), U(0.5, 2.5))
                t = max(t, t_done)
                alarm = fate == "table"
            if self.nest and r.random() < p["p_late"] + p["p_together"]:
                late = r.random() < p["p_late"] / (p["p_late"] + p["p_together"])
                c3, m3 = self.nest.pop(int(r.integers(len(self.nest))))
                if late:
                    delay = U(0.3, 0.5) if r.random() < 0.75 else U(0.5, 1.0)
                    t_exit = mk["t_ms"] + delay
                    t_start = min(mk["t_clear"] + U(0.0, 0.15), t_exit - 0.1)
                else:
                    t_start = mk["t_c"]
                    t_exit = mk["t_clear"] + U(0.0, 0.12)
                self.drop(t_start, t_exit, m3)
                self.truth.append({"what": "out", "t_in": self.ms(t_start), "t_ms": self.ms(t_exit),
                                   "colour": c3, "cause": "drop", "hand": "late" if late else "with"})
                self.outside.append((c3, m3))
                n_out += 1
                t = max(t, t_exit + 0.3)
                alarm = True
            last_of_colour = not any(c == taken[0][0] for c, _ in self.nest)
            if alarm or len(taken) > 1 or last_of_colour or not self.nest:
                t = self.after_alarm(t)
            elif fate == "rim":                     # no alarm: stuck back in by the player
                t = self.pole_back(t + U(0.5, 2.0), weight_back=False) + U(0.2, 1.0)
            t = self.hands.after(t, p["think_s"] * U(0.4, 1.6))
        if not self.pole_in or not self.reed[-1][1]:     # the session ends with the pole seated;
            t = self.pole_back(t, weight_back=not self.pole_in)   # eggs taken since the last refill stay out
        return t + U(2.0, 4.0)


# ---- parameters and eggs -----------------------------------------------------------------------------

def _draw(rng, over):
    unknown = [k for k in over if k not in PARAMS]
    if unknown:
        raise TypeError(f"unknown parameter(s) for handmodel.session: {', '.join(sorted(unknown))}")
    p = {}
    for name, (lo, hi) in PARAMS.items():
        v = float(rng.uniform(lo, hi))              # drawn even when overridden: the other draws stay put
        p[name] = float(over[name]) if name in over else v
    p["mains_hz"] = 50.0 if p["mains_hz"] < 55.0 else 60.0
    for name in INT_PARAMS:
        p[name] = float(int(round(p[name])))
    return p


def _eggs(rng, p):
    eggs = []
    for c in COLOURS:
        for _ in range(EGG_COUNTS[c]):
            eggs.append((c, NOMINAL_G[c] + float(rng.uniform(-p["egg_spread_g"], p["egg_spread_g"]))))
    return eggs


# ---- mechanics and electronics -------------------------------------------------------------------

def _mode_kernel(f_hz, zeta):
    """Step-invariant (ZOH-exact) impulse response of R'' + 2 z w R' + w^2 R = w^2 F on the grid;
    sums to 1 so a weight step reads its full weight once rung out."""
    w = 2 * np.pi * f_hz
    wd = w * math.sqrt(1 - zeta * zeta)
    n = int(min(14.0 / (zeta * w), 6.0) * FS) + 2
    t = np.arange(n + 1) / FS
    step = 1 - np.exp(-zeta * w * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta * zeta) * np.sin(wd * t))
    h = np.diff(step)
    return h / h.sum()


def _fftconv(x, h):
    n = len(x) + len(h) - 1
    nf = 1 << (n - 1).bit_length()
    y = np.fft.irfft(np.fft.rfft(x, nf) * np.fft.rfft(h, nf), nf)
    return y[:len(x)]


def _boxcar_mid(t_grid, x, T, t_eval):
    """Average of the ZOH signal x (x[k] on [t_k, t_k + dt)) over [t - T, t], at t_eval."""
    dt = 1.0 / FS
    C = np.concatenate([[0.0], np.cumsum(x) * dt])
    tc = np.concatenate([t_grid, [t_grid[-1] + dt]])
    return (np.interp(t_eval, tc, C) - np.interp(t_eval - T, tc, C)) / T


def session(seed, setting=80, waits=None, **over):
    """One session; `waits`: {k: extra seconds the k-th of Session.starts waits for the game}."""
    if isinstance(setting, bool) or setting not in (80, 10):
        raise ValueError(f"setting must be 80 or 10, not {setting!r}")
    seed = int(seed)
    prng = np.random.default_rng([seed, 0x6E657374])
    p = _draw(prng, over)
    eggs = _eggs(prng, p)
    game = _Game(np.random.default_rng([seed, 1]), p, eggs, waits)
    duration = game.play()
    erng = np.random.default_rng([seed, 2, setting])

    # -- force on the grid --
    n = int((duration + PRE_S) * FS) + 1
    t_grid = np.arange(n) / FS - PRE_S
    full = p["tare_g"] + p["pole_g"] + sum(m for _, m in eggs)
    F = np.zeros(n)
    D = np.zeros(n + 1)
    for i, d in game.cv.steps:
        D[min(max(i, 0), n)] += d
    static = full + np.cumsum(D)[:n]
    for i, arr in game.cv.pieces:
        if i >= n:
            continue
        a = arr[: n - i] if i >= 0 else arr[-i: n - i]
        F[max(i, 0): max(i, 0) + len(a)] += a
    F += static

    # -- bowl on the cell: one damped mode; mean moving mass over the session --
    m_kg = float(np.mean(static)) / 1000.0
    k_n_m = G / (p["defl_um_per_kg"] * 1e-6)
    f_mode = math.sqrt(k_n_m / m_kg) / (2 * np.pi)
    h = _mode_kernel(f_mode, p["zeta"])
    R = _fftconv(F - full, h) + full

    # -- input-referred extras before the ADC filter: mains pickup --
    g_per_v = 1000.0 / (p["rated_mv_v"] * 1e-3 * p["excitation_v"])     # grams per volt at the input
    mains_g = p["mains_nv"] * 1e-9 * g_per_v
    R = R + mains_g * np.sin(2 * np.pi * p["mains_hz"] * t_grid + erng.uniform(0, 2 * np.pi))

    # -- conversion times: internal oscillator, slow wander (ASSUMED +-0.2 %) --
    odr = setting * p["odr_factor"]
    T = 1.0 / odr
    t_first = erng.uniform(0.0, T)
    nconv = int((duration - t_first) * odr * 1.01) + 2
    k = np.arange(nconv)
    wander = 1.0 + 0.002 * np.interp(k * T, np.arange(0, duration + 60, 30.0),
                                     erng.uniform(-1, 1, len(np.arange(0, duration + 60, 30.0))))
    t_conv = t_first + np.concatenate([[0.0], np.cumsum(T * wander[:-1])])
    t_conv = t_conv[t_conv < duration - 0.01]

    # -- HX711 digital filter: sinc^4, four boxcars of one conversion period --
    mid = t_grid + 0.5 / FS
    y = R
    for _ in range(SETTLE_PERIODS - 1):
        y = _boxcar_mid(t_grid, y, T, mid)
    grams = _boxcar_mid(t_grid, y, T, t_conv)

    # -- slow errors: creep of the static load, zero drift, calibration --
    lp = np.full(len(t_conv), full * (1 - math.exp(-p["preload_age_s"] / p["creep_tau_s"])))
    lp += full * math.exp(-p["preload_age_s"] / p["creep_tau_s"]) * (1 - np.exp(-(t_conv + PRE_S) / p["creep_tau_s"]))
    for i, d in game.cv.steps:
        ts = i / FS - PRE_S
        dtc = t_conv - ts
        lp += np.where(dtc > 0, d * (1 - np.exp(-np.clip(dtc, 0, None) / p["creep_tau_s"])), 0.0)
    creep = p["creep_frac"] * lp
    knots = np.arange(0.0, duration + 2.0, 1.0)
    walk = np.cumsum(erng.normal(0.0, p["wander_g"] / math.sqrt(60.0), len(knots)))
    drift = p["drift_g_per_min"] * t_conv / 60.0 + np.interp(t_conv, knots, walk)
    noise_g = NOISE_NV[setting] * 1e-9 * p["noise_board"] * g_per_v
    true_g = grams + creep + drift + erng.normal(0.0, noise_g, len(t_conv))

    # -- 24-bit counts, bad reads, back to calibrated grams --
    cpg = 2.0 ** 24 * GAIN * p["rated_mv_v"] * 1e-6            # counts per gram, ratiometric
    zero = p["zero_mv_v"] * 1e-3 * 2.0 ** 24 * GAIN             # counts of the bridge's zero
    raw = np.clip(np.round(zero + true_g * cpg), -2 ** 23, 2 ** 23 - 1).astype(np.int64)
    env = list(game.env)
    nbad = erng.binomial(len(raw), min(p["spike_per_10k"] / 1e4, 1.0))
    for j in erng.choice(len(raw), nbad, replace=False) if nbad else []:
        kind = erng.integers(3)
        v = int(raw[j])
        if kind == 0:                                           # one clock slip: shifted by a bit
            v = v * 2 if erng.random() < 0.5 else v >> 1
        elif kind == 1:                                         # bits read as ones (bogde/HX711#83)
            v = (1 << int(erng.integers(17, 24))) - 1
        else:                                                   # one flipped bit
            v ^= 1 << int(erng.integers(8, 23))
        v = int(np.clip(((v + 2 ** 23) % 2 ** 24) - 2 ** 23, -2 ** 23, 2 ** 23 - 1))
        raw[j] = v
        env.append({"what": "bad_read", "t_ms": int(t_conv[j] * 1000), "kind": int(kind)})
    cal = cpg * (1.0 + p["scale_err"])
    reading = (raw - zero) / cal

    # -- the ESP32 reads and stamps: latency, stalls that lose a conversion --
    lat = p["latency_ms"] / 1000.0 * (0.5 + erng.exponential(0.5, len(t_conv)))
    t_read = t_conv + lat
    nst = erng.poisson(p["stall_per_min"] * duration / 60.0)
    for s0 in erng.uniform(0.0, duration, nst):
        s1 = s0 + p["stall_ms"] / 1000.0 * erng.uniform(0.5, 1.5)
        inside = (t_read >= s0) & (t_read < s1)
        t_read[inside] = s1 + lat[inside] * 0.2
    keep = np.ones(len(t_conv), bool)
    keep[:-1] = t_conv[1:] > t_read[:-1]                        # overwritten before it was read
    t_read, reading = t_read[keep], reading[keep]
    t_ms = np.floor(t_read * 1000.0).astype(np.int64)
    ar = np.arange(len(t_ms))
    t_ms = np.maximum.accumulate(t_ms - ar) + ar                # never two samples in one ms

    # -- the reed, as seen at the read --
    rt = np.array([a for a, _ in game.reed])
    rs = np.array([b for _, b in game.reed])
    seated = rs[np.searchsorted(rt, t_read, side="right") - 1]

    samples = [(int(a), float(b), bool(c)) for a, b, c in zip(t_ms.tolist(), reading.tolist(), seated.tolist())]
    truth = sorted(game.truth, key=lambda e: (e["t_ms"], e.get("t_in", e["t_ms"])))
    eggs_g = {c: [m for cc, m in eggs if cc == c] for c in COLOURS}
    masses = {c: float(np.mean(v)) for c, v in eggs_g.items()}
    derived = {"mode_hz": f_mode, "odr_sps": odr, "noise_g": noise_g, "mains_g": mains_g,
               "full_nest_g": full, "counts_per_g": cpg, "duration_s": duration,
               "lost_conversions": int((~keep).sum())}
    return Session(samples=samples, masses=masses, pole_g=p["pole_g"], setting=setting, params=dict(p),
                   eggs_g=eggs_g, truth=truth, derived=derived, env=env, starts=game.hands.starts)


# ---- picture ----------------------------------------------------------------------------------------

def plot(sess, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: cannot draw (pip install matplotlib)", file=sys.stderr)
        return False
    t = np.array([s[0] for s in sess.samples]) / 1000.0
    g = np.array([s[1] for s in sess.samples])
    pole = np.array([s[2] for s in sess.samples])
    fig, ax = plt.subplots(figsize=(16, 5))
    ax.plot(t, g, lw=0.6, color="k")
    lo, hi = np.percentile(g, 0.5), np.percentile(g, 99.5)
    ax.set_ylim(lo - 30, hi + 30)
    ax.fill_between(t, lo - 30, hi + 30, where=~pole, color="orange", alpha=0.15, step="post", label="reed open")
    col = {"G": "green", "Y": "gold", "R": "red", "B": "blue", "P": "purple"}
    for e in sess.truth:
        x = e["t_ms"] / 1000.0
        if e["what"] == "out":
            ax.axvline(x, color=col[e["colour"]], lw=0.8, ls="-" if e["cause"] == "take" else ":")
            ax.text(x, hi + 20, e["hand"][:3], fontsize=6, rotation=90, va="top")
        elif e["what"] == "back":
            ax.axvspan(e["t_in"] / 1000.0, x, color="cyan", alpha=0.3)
        elif e["what"] == "touch":
            ax.axvspan(e["t_in"] / 1000.0, x, color="grey", alpha=0.3)
    ax.set_xlabel("s")
    ax.set_ylabel("g (whole bowl)")
    ax.set_title(f"handmodel seed {sess.params.get('seed', '')} setting {sess.setting}: "
                 f"{sum(e['what'] == 'out' for e in sess.truth)} eggs out, mode {sess.derived['mode_hz']:.0f} Hz, "
                 f"{sess.derived['odr_sps']:.1f} SPS")
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) < 3:
        print("usage: python handmodel.py SEED OUT.png [80|10]", file=sys.stderr)
        return 2
    seed, out = int(argv[1]), argv[2]
    setting = int(argv[3]) if len(argv) > 3 else 80
    s = session(seed, setting)
    s.params["seed"] = seed
    ok = plot(s, out)
    print(f"{len(s.samples)} samples, {len(s.truth)} truth events, {s.derived['duration_s']:.1f} s"
          + (f", picture {out}" if ok else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
