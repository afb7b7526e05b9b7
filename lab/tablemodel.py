"""A family's table under the nest: an independent simulator of the load cell's readings.

Written blind to the weigher and to the project's other models, from the nest's parts (enclosure/),
the HX711 and load-cell data sheets and published measurements; docs/tablemodel.md has the chain,
every parameter's range and its source, and what is left out.

The chain, one session:

    game script (takes, drops, pole, pour-backs, touches)      -> forces on the bowl (gram-force)
    + table bumps (base acceleration x the mass on the cell)
    -> cell + bowl as one damped spring-mass mode, overload stop    -> the bridge's strain (grams)
    + creep, temperature drift, mains pickup (input-referred)
    -> HX711: sinc4 average over 4 conversion periods, white noise, 24-bit counts, rare read glitches
    -> the reading task: latency, jitter, stalls (GC, flash writes), overwritten conversions
    -> samples (t_ms, grams, pole_seated) with the reed debounced as the firmware does (20 ms)

    session(seed, setting=80, **over) -> Session
    python -m lab.tablemodel SEED OUT.png [80|10]

Standard library + numpy/scipy only; the same seed and overrides give the same session.
"""
import math
import sys
from dataclasses import dataclass, field

import numpy as np
from scipy import signal

from lab.closedloop import Hands

G = 9.81                    # m/s^2
DT = 0.0005                 # s, the world's time step: 40 steps per 50 Hz cycle, 10 per 200 Hz mode
PRE_ROLL = 0.6              # s simulated before t = 0 so the ADC's filter is full at the first sample

# Nominal egg masses per colour (enclosure/ASSEMBLY.md "Weighted eggs", firmware/HARDWARE.md "Eggs"):
# each egg within +-0.5 g of its colour's figure.
NOMINAL_G = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
EGG_COUNTS = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}      # shared/docs/rules.md
EGG_TOL_G = 0.5

# HX711 (Avia Semiconductor data sheet, key specifications): input noise 50 nV rms at RATE=0
# (10 SPS) and 90 nV rms at RATE=1 (80 SPS), channel A gain 128, full scale +-0.5 AVDD / gain
# over 2^23 counts each way; settling 400 ms / 50 ms = 4 conversion periods.
NOISE_NV = {10: 50.0, 80: 90.0}
GAIN = 128
SETTLE_PERIODS = 4
DEBOUNCE_S = 0.020          # firmware/HARDWARE.md: reed state confirmed once stable 20 ms

# Every drawn parameter: (low, high). Sources in docs/tablemodel.md; the short form beside each.
PARAMS = {
    # --- HX711 and the reading task --------------------------------------------------------------
    "odr_scale": (1.075, 1.18),       # real rate / nominal (80 or 10): internal oscillator runs fast
                                      # (olkal/HX711_ADC#29: 92 SPS, #98: 93.7 SPS; klipper#14: 10.8)
    "noise_factor": (1.0, 2.5),       # x data-sheet input noise: module layout, USB supply (ASSUMED)
    "excitation_v": (2.9, 4.3),       # AVDD = bridge excitation: 3.3 V rail .. module regulator (ASSUMED)
    "rated_output_mv_v": (0.85, 1.15),  # TAL220: 1.0 +- 0.15 mV/V (enclosure/params.py)
    "zero_balance": (-0.05, 0.05),    # bridge zero / rated output (senstech terms: e.g. +-5 % R.O.)
    "mains_hz": (50.0, 60.0),         # drawn as one end or the other: the country's grid
    "mains_nv": (0.0, 200.0),         # input-referred mains pickup, peak (ASSUMED)
    "drift_g_per_min": (-0.1, 0.1),   # zero drift: 0.05 % FS / 10 K (cell spec) x up to 2 K/min warm-up
    "creep_frac": (0.0, 0.0005),      # creep 0.05 % of a load change over 30 min (cell spec)
    "creep_tau_s": (60.0, 600.0),     # creep time constant (ASSUMED)
    "glitch_per_10k": (0.0, 3.0),     # corrupted reads per 10 000 samples (ASSUMED)
    "latency_ms": (0.3, 3.0),         # DOUT fall -> the task's timestamp, typical (ASSUMED)
    "jitter_ms": (0.2, 2.0),          # extra latency, exponential mean (ASSUMED)
    "gc_per_min": (2.0, 20.0),        # MicroPython GC pauses of the reading task (ASSUMED)
    "gc_ms": (3.0, 40.0),             # their length (pybricks#1780, micropython PR 7933: 5-15 ms+)
    "flash_ms": (10.0, 80.0),         # game-log write after each verdict blocks the loop (ASSUMED)
    # --- mechanics -------------------------------------------------------------------------------
    "tare_g": (130.0, 155.0),         # bowl 120 cm3 PLA x 1.24 g/cm3 x fill 0.85-1 + spacer + 2 M4
    "pole_g": (24.5, 25.5),           # 25 g within 0.5 g (enclosure/params.py, pole_mass.py)
    "egg_tol_g": (0.1, 0.5),          # half-width of one colour's egg spread (ASSEMBLY.md: +-0.5 g)
    "cell_um_per_kg": (12.5, 150.0),  # cell deflection: strain 500 ue x l^2/(3t), enclosure/stop.py
    "bowl_um_per_kg": (0.0, 100.0),   # printed bowl floor, spacer, base on TPU feet (ASSUMED)
    "mech_zeta": (0.02, 0.2),         # damping ratio of that mode; loose eggs add friction (ASSUMED)
    "stop_g": (1050.0, 1200.0),       # overload stop: set with 1 kg on the bowl; 120 % safe overload
    "bump_per_min": (0.0, 4.0),       # someone knocks the table (ASSUMED)
    "bump_ms2": (0.01, 0.3),          # peak table-top acceleration of a knock (ASSUMED)
    "bump_hz": (8.0, 30.0),           # table-top mode (ASSUMED)
    "bump_decay_s": (0.05, 0.4),      # its decay time constant (ASSUMED)
    # --- the game and the hands -------------------------------------------------------------------
    "session_s": (40.0, 60.0),        # the brief
    "rest0_s": (2.0, 4.0),            # full nest at rest, pole seated, before the first hand
    "turn_gap_s": (0.2, 1.2),         # hands off between turns (set so 12-15 takes fit, the brief)
    "p_drop": (0.02, 0.10),           # per take: another egg rolls out (ASSUMED)
    "p_pole": (0.02, 0.10),           # per take: the pole is knocked out (ASSUMED)
    "p_wrong": (0.0, 0.05),           # per take: wrong colour taken (ASSUMED)
    "p_touch": (0.05, 0.25),          # per turn: an egg touched first, then another taken (ASSUMED)
    "p_rim": (0.03, 0.2),             # per turn: a hand rests on the rim (ASSUMED)
    "preload_g": (2.0, 40.0),         # fingers press the egg into the pile before the lift (ASSUMED)
    "load_s": (0.1, 0.8),             # load phase: egg weight into the hand (ASSUMED; Forssberg 1992)
    "still_hold_max_s": (0.5, 2.5),   # a still take's hold is drawn per take in 0.5 s .. this (ASSUMED);
                                      # not drawn per session: the model as written holds up to 2.5 s
    "tremor_hz": (7.0, 12.0),         # physiological tremor peak (Lakie 2015: 6-12 Hz; Marsden 1969)
    "tremor_g": (0.1, 1.0),           # its force amplitude on the pile (ASSUMED)
    "rim_g": (30.0, 400.0),           # a resting hand/forearm on the rim (ASSUMED)
    "p_lean": (0.0, 0.15),            # per rim rest: a child leans on it, 0.5-1.5 kg (ASSUMED)
    "drop_h_mm": (10.0, 80.0),        # eggs poured back fall this far onto the pile (ASSUMED)
    "impact_ms": (2.0, 8.0),          # PLA egg on PLA eggs: contact time (ASSUMED)
}

# Ranges a session does not draw from: each is the top of a per-take draw, written into the model
# as a fixed number at first (2026-11-27, made a parameter so the sweep can hold it; no draw added,
# so every session is as before)
NOT_DRAWN = ("still_hold_max_s",)

HANDS = ("firm", "light", "slow", "still")
HAND_P = (0.3, 0.3, 0.2, 0.2)         # ASSUMED shares of the kinds of take
POLE_FATES = ("table", "rim_in", "rim_table")
POLE_FATE_P = (0.5, 0.3, 0.2)         # ASSUMED
# A pole with its foot on the table and its shaft on the rim: share of its weight on the rim.
# Uniform rod, length 190 mm, frictionless rim ~97 mm above the table, foot 110-190 mm from the
# contact along the rod: vertical share = L cos^2(a) / (2 d), sin(a) = 97 / d -> 0.19-0.37.
RIM_SHARE = (0.19, 0.37)


@dataclass
class Session:
    samples: list
    masses: dict
    pole_g: float
    params: dict
    truth: list
    setting: int = 80
    eggs_g: dict = field(default_factory=dict)   # every egg's own mass, per colour
    derived: dict = field(default_factory=dict)  # figures computed from params (the bowl's mode)
    # each hand that follows the game (a turn's first, the first after an alarm): (its time, the
    # end of what came before it), ms; lab.closedloop makes them wait for the game
    starts: list = field(default_factory=list)


# --- parameters ------------------------------------------------------------------------------------

def _draw(rng, over):
    for name, value in over.items():
        if name not in PARAMS:
            raise ValueError(f"unknown parameter {name!r}")
        lo, hi = PARAMS[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"parameter {name!r}: {value!r} is not a number")
        if not lo <= value <= hi:
            raise ValueError(f"parameter {name!r}: {value} outside [{lo}, {hi}]")
    p = {}
    for name, (lo, hi) in PARAMS.items():      # every draw happens, so an override shifts nothing else
        if name in NOT_DRAWN:
            p[name] = float(over.get(name, hi))
            continue
        v = float(rng.uniform(lo, hi))
        if name == "mains_hz":
            v = lo if rng.random() < 0.5 else hi
        p[name] = float(over.get(name, v))
    return p


# --- forces on the bowl, on a fine time grid ---------------------------------------------------

class Track:
    """Force on the bowl (gram-force) on the grid t = -PRE_ROLL + i * DT. Steps are kept as a
    derivative (added once at the end) so that each event costs only its own window."""

    def __init__(self, duration):
        self.n = int((duration + PRE_ROLL) / DT) + 1
        self.shape = np.zeros(self.n)
        self.dstep = np.zeros(self.n + 1)

    def idx(self, t):
        return min(max(int(round((t + PRE_ROLL) / DT)), 0), self.n - 1)

    def t(self):
        return np.arange(self.n) * DT - PRE_ROLL

    def ramp(self, t0, t1, delta):
        """Smooth (cosine) change by delta over [t0, t1], held after."""
        i0, i1 = self.idx(t0), self.idx(max(t1, t0 + DT))
        u = (np.arange(i0, i1) - i0) / max(i1 - i0, 1)
        self.shape[i0:i1] += delta * 0.5 * (1 - np.cos(np.pi * u))
        self.dstep[i1] += delta

    def pulse(self, t, area_gs, width_s):
        """Half-sine force pulse of area area_gs (gram-force x s): an impact."""
        i0, i1 = self.idx(t), self.idx(t + max(width_s, 2 * DT))
        u = (np.arange(i0, i1) - i0 + 0.5) / max(i1 - i0, 1)
        w = np.sin(np.pi * u)
        if w.sum() > 0:
            self.shape[i0:i1] += area_gs / DT * w / w.sum()

    def wobble(self, rng, t0, t1, amp, hz):
        """Hand tremor over [t0, t1]: a tone near the tremor peak plus slower wander, faded in/out."""
        i0, i1 = self.idx(t0), self.idx(t1)
        if i1 - i0 < 4:
            return
        tt = np.arange(i1 - i0) * DT
        f = hz * rng.uniform(0.9, 1.1)
        x = amp * np.sin(2 * np.pi * f * tt + rng.uniform(0, 2 * np.pi))
        x += amp * 0.7 * np.sin(2 * np.pi * rng.uniform(1.0, 3.0) * tt + rng.uniform(0, 2 * np.pi))
        fade = np.minimum(1.0, np.minimum(tt, tt[-1] - tt) / 0.05)
        self.shape[i0:i1] += x * fade

    def total(self):
        return self.shape + np.cumsum(self.dstep)[: self.n]


# --- the game script ---------------------------------------------------------------------------

class World:
    """Plays one session: writes forces into the track, truth events and reed transitions."""

    def __init__(self, rng, p, eggs, waits=None):
        self.rng, self.p = rng, p
        self.hands = Hands(waits)             # the hands that follow the game (lab.closedloop)
        self.eggs = eggs                      # [(colour, mass)]
        self.in_nest = set(range(len(eggs)))
        self.out_round = []                   # eggs out since the last pour-back
        self.track = Track(p["session_s"] + 12.0 + self.hands.most_s)
        self.truth = []
        self.reed = []                        # (t, seated) raw reed transitions
        self.verdicts = []                    # times the firmware would write its log
        self.pole_fate = None                 # None = seated

    # hands --------------------------------------------------------------------------------------
    def _u(self, lo, hi):
        return float(self.rng.uniform(lo, hi))

    def _tremor(self, t0, t1, scale=1.0):
        self.track.wobble(self.rng, t0, t1, self.p["tremor_g"] * scale * self._u(0.3, 1.0),
                          self.p["tremor_hz"])

    def _impact(self, t, mass_g, v):
        """An egg of mass_g landing at v m/s: impulse m v (gram-force s = g * v / G)."""
        self.track.pulse(t, mass_g * v / G, self.p["impact_ms"] * 1e-3 * self._u(0.7, 1.3))

    def _settle_pile(self, t0, t1, k):
        """Eggs sliding into a hole left in the pile: small falls of a few mm."""
        for _ in range(k):
            m = self._u(10, 18)
            self._impact(self._u(t0, t1), m, math.sqrt(2 * G * self._u(0.002, 0.015)))

    def _lift_profile(self, t0, mass, kind):
        """Egg weight leaves the bowl from t0: returns t_lift. Young children's force rate is not
        yet one bell (Forssberg et al. 1992, doi:10.1007/BF00227253): 1-3 smooth sub-ramps."""
        tl = self.p["load_s"] * {"firm": 0.6, "light": 0.5, "slow": 1.8, "still": 1.0}[kind]
        tl *= self._u(0.7, 1.3)
        if kind == "still":               # held half-lifted, nearly still, then lifted clear
            share = self._u(0.3, 0.9)
            self.track.ramp(t0, t0 + tl, -mass * share)
            hold = self._u(0.5, self.p["still_hold_max_s"])
            self.track.ramp(t0 + tl + hold, t0 + tl + hold + tl * 0.5, -mass * (1 - share))
            return t0 + tl * 1.5 + hold
        parts = self.rng.integers(1, 4)
        cuts = np.sort(self.rng.uniform(0, 1, parts - 1))
        shares = np.diff(np.concatenate(([0.0], cuts, [1.0])))
        t = t0
        for s in shares:
            d = tl * max(float(s), 0.15)
            self.track.ramp(t, t + d, -mass * float(s))
            t += d + self._u(0.0, 0.08)
        return t

    def _pick(self, colour):
        cands = sorted(i for i in self.in_nest if self.eggs[i][0] == colour)
        return int(self.rng.choice(cands)) if cands else None

    def take(self, t, colour, p_fail_drop, p_fail_pole):
        """One take from first touch at t. Returns (hand gone or a dropped egg off, failed)."""
        p, rng = self.p, self.rng
        i = self._pick(colour)
        kind = HANDS[rng.choice(len(HANDS), p=HAND_P)]
        mass = self.eggs[i][1]
        t_in = t
        pre = {"firm": 1.0, "light": 0.15, "slow": 0.5, "still": 0.5}[kind] * p["preload_g"]
        pre *= self._u(0.5, 1.2)
        tp = self._u(0.1, 0.4)
        self.track.ramp(t_in, t_in + tp * 0.5, pre)           # fingers press the egg into the pile
        t_load = t_in + tp
        self.track.ramp(t_load, t_load + 0.1, -pre)
        t_lift = self._lift_profile(t_load, mass, kind)
        if rng.random() < 0.4:
            self._settle_pile(t_lift - 0.05, t_lift + 0.3, int(rng.integers(1, 4)))
        t_out = t_lift + self._u(0.2, 0.8)                    # hand withdraws with the egg
        t_touch = t_lift + 0.05                               # its last contact: the tremor's end
        if rng.random() < 0.3:                                # wrist brushes the rim on the way out
            tb = self._u(t_lift, t_out - 0.05)
            b = self._u(5, 30)
            self.track.ramp(tb, tb + 0.05, b)
            t_touch = tb + self._u(0.1, 0.2)
            self.track.ramp(tb + 0.05, t_touch, -b)
        self._tremor(t_in, t_lift + 0.05, {"firm": 1.0, "light": 0.5, "slow": 0.7, "still": 0.6}[kind])
        self.in_nest.discard(i)
        self.out_round.append(i)
        # t_ms: the egg gone and the hand no longer touching the bowl, eggs or pole (the scorer's
        # "hand gone", as the interface asks); t_away: the hand withdrawn from over the nest.
        # (Added after the first score, 2026-11-27: t_ms was t_away, 0.2-0.8 s after the lift with
        # the hand in the air over the nest, which no load cell can see. The physics is unchanged.)
        self.truth.append({"what": "out", "t_in": _ms(t_in), "t_ms": _ms(max(t_lift, t_touch)),
                           "colour": colour, "cause": "take", "hand": kind, "t_lift": _ms(t_lift),
                           "t_away": _ms(t_out)})
        failed, t_end = False, t_out
        if rng.random() < p_fail_drop:
            t_off = self._drop(self._u(t_in, t_lift + 0.2))
            if t_off is not None:
                failed, t_end = True, max(t_end, t_off)
        if rng.random() < p_fail_pole and self.pole_fate is None:
            self._pole_out(self._u(t_in + 0.05, t_out))
            failed = True
        return t_end, failed

    def _drop(self, t_roll):
        """Another egg rolls up the wall and over the rim (the top layer sits ~3.5 mm below it)."""
        cands = sorted(self.in_nest)
        if len(cands) < 2:
            return None
        i = int(self.rng.choice(cands))
        colour, mass = self.eggs[i]
        t_off = t_roll + self._u(0.1, 0.6)
        self.track.pulse(t_roll, mass * self._u(0.02, 0.1) / G, 0.02)   # nudged by the hand
        self.track.ramp(t_off - self._u(0.02, 0.06), t_off, -mass)      # tips over the rim
        self.in_nest.discard(i)
        self.out_round.append(i)
        self.truth.append({"what": "out", "t_in": _ms(t_roll), "t_ms": _ms(t_off), "colour": colour,
                           "cause": "drop", "hand": "drop", "t_lift": _ms(t_off)})
        return t_off

    def _pole_out(self, t):
        """The pole leaves its socket: the reed opens at t; its weight leaves as it falls."""
        fate = POLE_FATES[self.rng.choice(3, p=POLE_FATE_P)]
        pg = self.p["pole_g"]
        self.pole_share = {"table": 0.0, "rim_in": 1.0, "rim_table": self._u(*RIM_SHARE)}[fate]
        t_gone = t + self._u(0.05, 0.3)
        self.track.ramp(t, t_gone, -pg * (1 - self.pole_share))
        if fate != "table":                                   # the shaft lands on the rim
            self.track.pulse(t_gone, pg * self._u(0.3, 1.0) / G * 0.5, 0.004)
        self.pole_fate = fate
        self.reed.append((t, False))
        self.truth.append({"what": "pole_out", "t_ms": _ms(t)})

    def pole_back(self, t):
        """A hand sets the pole back in its socket; returns when the hand is gone."""
        pg = self.p["pole_g"]
        if self.pole_fate == "rim_in" or self.pole_fate == "rim_table":
            self.track.ramp(t, t + self._u(0.1, 0.3), -pg * self.pole_share)   # picked up
        t_seat = t + self._u(0.4, 1.2)
        self.track.ramp(t_seat - 0.05, t_seat, pg)
        push = self._u(0, 30)
        self.track.ramp(t_seat, t_seat + 0.05, push)
        self.track.ramp(t_seat + 0.1, t_seat + self._u(0.15, 0.4), -push)
        self._tremor(t_seat - 0.1, t_seat + 0.3, 0.5)
        self.reed.append((t_seat, True))
        self.truth.append({"what": "pole_in", "t_ms": _ms(t_seat)})
        self.pole_fate = None
        return t_seat + self._u(0.3, 0.7)

    def pour_back(self, t):
        """Every egg out this round goes back: poured from a hand or put in one by one."""
        ids = list(self.out_round)
        if not ids:
            return t
        t_in = t
        poured = self.rng.random() < 0.6
        tl = t_in + self._u(0.1, 0.4)
        hand = self._u(0, 80)                                 # the hand on the rim while pouring
        self.track.ramp(t_in, t_in + 0.1, hand)
        for i in ids:
            m = self.eggs[i][1]
            v = math.sqrt(2 * G * self.p["drop_h_mm"] * 1e-3 * self._u(0.5, 1.5))
            self._impact(tl, m, v)
            self.track.ramp(tl, tl + 0.01, m)
            if self.rng.random() < 0.5:                       # a bounce and a second landing
                self._impact(tl + self._u(0.03, 0.1), m, v * self._u(0.1, 0.4))
            self.in_nest.add(i)
            tl += self._u(0.03, 0.15) if poured else self._u(0.3, 0.8)
        self._settle_pile(t_in + 0.1, tl + 0.2, int(self.rng.integers(1, 5)))
        t_out = tl + self._u(0.2, 0.6)
        self.track.ramp(t_out - 0.1, t_out, -hand)
        self._tremor(t_in, t_out, 0.7)
        self.truth.append({"what": "back", "t_in": _ms(t_in), "t_ms": _ms(t_out), "eggs": len(ids)})
        self.out_round = []
        return t_out

    def touch(self, t, lifted):
        """A hand touches an egg and lets go (or lifts it clear and puts it back)."""
        cands = sorted(self.in_nest)
        i = int(self.rng.choice(cands))
        m = self.eggs[i][1]
        pre = self.p["preload_g"] * self._u(0.1, 0.8)
        self.track.ramp(t, t + 0.1, pre)
        self.track.ramp(t + 0.15, t + 0.25, -pre)
        t1 = t + 0.25
        if lifted:
            tl = self._lift_profile(t1, m, "light")
            t_down = tl + self._u(0.3, 1.5)
            self._impact(t_down, m, self._u(0.05, 0.3))
            self.track.ramp(t_down, t_down + 0.05, m)
            t_end = t_down + 0.1
        else:
            s = self._u(0.0, 0.5)
            self.track.ramp(t1, t1 + self._u(0.1, 0.4), -m * s)
            t_end = t1 + self._u(0.3, 1.0)
            self.track.ramp(t_end - 0.1, t_end, m * s)
        self._tremor(t, t_end, 0.6)
        t_out = t_end + self._u(0.1, 0.5)
        touch = {"what": "touch", "t_in": _ms(t), "t_ms": _ms(t_out), "lifted": bool(lifted)}
        if lifted:   # the egg held clear of the nest from t_clear until t_down (lab.weighscore `held`)
            touch.update(colour=self.eggs[i][0], t_clear=_ms(tl), t_down=_ms(t_down))
        self.truth.append(touch)
        return t_out

    def rim_rest(self, t):
        """A hand or forearm rests on the rim, then leaves; the overload stop may catch it."""
        f = self.p["rim_g"] * self._u(0.3, 1.0)
        if self.rng.random() < self.p["p_lean"]:              # leaning: the overload stop catches it
            f = self._u(500.0, 1500.0)
        d = self._u(0.5, 3.0)
        self.track.ramp(t, t + self._u(0.05, 0.3), f)
        self.track.ramp(t + d, t + d + self._u(0.05, 0.3), -f)
        self._tremor(t, t + d + 0.3, 2.0)
        t_out = t + d + 0.35
        self.truth.append({"what": "touch", "t_in": _ms(t), "t_ms": _ms(t_out), "lifted": False})
        return t_out

    # the game -------------------------------------------------------------------------------------
    def demand(self):
        """The demanded colour: path tiles are G/Y/R/B, purple only from the deck's J (rare)."""
        left = {c: sum(1 for i in self.in_nest if self.eggs[i][0] == c) for c in NOMINAL_G}
        w = np.array([0.0 if left[c] == 0 else (0.04 if c == "P" else 1.0) for c in NOMINAL_G])
        return list(NOMINAL_G)[int(self.rng.choice(5, p=w / w.sum()))]

    def play(self):
        p, rng = self.p, self.rng
        t = p["rest0_s"]
        end = p["session_s"] - 2.5
        while t < end + self.hands.waited:                   # waited: the same turns, later
            if rng.random() < p["p_rim"]:
                t = self.rim_rest(t) + self._u(0.2, 0.8)
            if rng.random() < p["p_touch"]:
                t = self.touch(t, lifted=rng.random() < 0.3) + self._u(0.2, 1.0)
            colour = demanded = self.demand()
            if rng.random() < p["p_wrong"]:
                others = [c for c in NOMINAL_G if c != colour and self._pick(c) is not None]
                colour = others[int(rng.integers(len(others)))] if others else colour
                wrong = True
            else:
                wrong = False
            n = len(self.truth)
            t, failed = self.take(t, colour, p["p_drop"], p["p_pole"])
            self.truth[n]["demand"] = demanded          # the take's own record comes first
            self.verdicts.append(t + self._u(0.1, 0.5))
            last = not any(self.eggs[i][0] == colour for i in self.in_nest)
            if failed or wrong or last:
                t = self.hands.after(t, self._u(1.0, 3.0))    # the alarm, the players, a hand comes
                order = rng.random() < 0.5
                if self.pole_fate is not None and order:
                    t = self.pole_back(t) + self._u(0.2, 0.8)
                t = self.pour_back(t) + self._u(0.2, 0.8)
                if self.pole_fate is not None:
                    t = self.pole_back(t) + self._u(0.2, 0.8)
                self.verdicts.append(t)
            t = self.hands.after(t, p["turn_gap_s"] * self._u(0.5, 1.5))
        return max(t, end + 2.5 + self.hands.waited) + 1.0


def _ms(t):
    return int(round(t * 1000))


# --- table, cell and bowl ------------------------------------------------------------------------

def _table_bumps(rng, p, n, duration):
    """Base acceleration (m/s^2) from knocks on the table: decaying table-top oscillations."""
    a = np.zeros(n)
    k = rng.poisson(p["bump_per_min"] * duration / 60)
    for _ in range(k):
        t0 = rng.uniform(0, duration)
        i0 = int((t0 + PRE_ROLL) / DT)
        tau = p["bump_decay_s"] * rng.uniform(0.7, 1.3)
        m = min(n - i0, int(5 * tau / DT))
        tt = np.arange(m) * DT
        amp = p["bump_ms2"] * rng.uniform(0.3, 1.0)
        f = p["bump_hz"] * rng.uniform(0.9, 1.1)
        a[i0:i0 + m] += amp * np.sin(2 * np.pi * f * tt) * np.exp(-tt / tau)
    return a


def _mechanics(p, force_g, mass_g):
    """Cell + bowl as one mode: x'' + 2 z w x' + w^2 x = w^2 F; the reading follows x. The mode's
    stiffness is the cell's and the printed parts' compliances in series; its mass is the full nest."""
    defl_m_per_n = (p["cell_um_per_kg"] + p["bowl_um_per_kg"]) * 1e-6 / G
    k = 1.0 / defl_m_per_n
    w = math.sqrt(k / (mass_g * 1e-3))
    b, a = signal.bilinear([w * w], [1.0, 2 * p["mech_zeta"] * w, w * w], fs=1 / DT)
    zi = signal.lfilter_zi(b, a) * force_g[0]
    y, _ = signal.lfilter(b, a, force_g, zi=zi)
    return np.minimum(y, p["stop_g"]), w / (2 * math.pi)


def _creep(p, load_g):
    """Creep: the output follows a fraction of each load change with a first-order lag."""
    alpha = DT / p["creep_tau_s"]
    d = load_g - load_g[0]
    c = signal.lfilter([alpha], [1, alpha - 1], d, zi=[0.0])[0]
    return p["creep_frac"] * c


# --- the HX711 ---------------------------------------------------------------------------------

def _sinc4_kernel(period_s):
    """Weights of one conversion over the last 4 periods: a 4th-order sinc filter decimated at the
    output rate is the cubic B-spline over 4 periods (settles in 4 conversions, data sheet)."""
    m = int(round(SETTLE_PERIODS * period_s / DT))
    u = (np.arange(m) + 0.5) / m * 4
    w = np.where(u < 1, u ** 3,
        np.where(u < 2, -3 * u ** 3 + 12 * u ** 2 - 12 * u + 4,
        np.where(u < 3, 3 * u ** 3 - 24 * u ** 2 + 60 * u - 44, (4 - u) ** 3))) / 6
    return w / w.sum()


def _grams_per_volt(p):
    return 1000.0 / (p["rated_output_mv_v"] * 1e-3 * p["excitation_v"])     # bridge: RO x E per 1 kg


def _hx711(rng, p, setting, strain_g, t_grid):
    """Conversion end times and their readings (grams, ideal calibration)."""
    odr = setting * p["odr_scale"]
    period = 1.0 / odr
    gpv = _grams_per_volt(p)
    x = strain_g.copy()
    x += p["drift_g_per_min"] * t_grid / 60
    x += p["mains_nv"] * 1e-9 * gpv * np.sin(2 * np.pi * p["mains_hz"] * t_grid + rng.uniform(0, 2 * np.pi))
    filt = signal.fftconvolve(x, _sinc4_kernel(period))[: len(x)]
    c0 = rng.uniform(0, period)
    ends = np.arange(c0, t_grid[-1] - 0.05, period)
    idx = np.clip(((ends + PRE_ROLL) / DT).astype(int), 0, len(x) - 1)
    g = filt[idx]
    sigma = NOISE_NV[setting] * 1e-9 * p["noise_factor"] * gpv
    g = g + rng.normal(0, sigma, len(g))
    cpg = p["rated_output_mv_v"] * 1e-3 * GAIN * 2 ** 24 / 1000            # counts per gram, ratiometric
    zero = p["zero_balance"] * p["rated_output_mv_v"] * 1e-3 * GAIN * 2 ** 24
    counts = np.clip(np.round(g * cpg + zero), -2 ** 23, 2 ** 23 - 1).astype(np.int64)
    keep = np.ones(len(counts), bool)
    for k in np.nonzero(rng.random(len(counts)) < p["glitch_per_10k"] / 1e4)[0]:
        kind = rng.integers(4)
        raw = int(counts[k]) & 0xFFFFFF
        if kind == 0:                                  # one bit misread (an interrupt mid-read)
            raw ^= 1 << int(rng.integers(8, 23))
        elif kind == 1:                                # shifted by one clock
            raw = (raw << 1) & 0xFFFFFF
        elif kind == 2:                                # read before DOUT was ready: all ones
            raw = 0xFFFFFF
        else:                                          # SCK held high > 60 us: power-down, reset,
            keep[k: k + SETTLE_PERIODS] = False        # no data until the filter has settled again
            continue
        counts[k] = raw - (1 << 24) if raw & 0x800000 else raw
    return ends[keep], (counts[keep] - zero) / cpg


def _reads(rng, p, ends, verdicts, duration):
    """When the task reads each conversion; a conversion not read before the next one ends is lost."""
    n = len(ends)
    lat = (p["latency_ms"] * rng.uniform(0.5, 1.5, n) + rng.exponential(p["jitter_ms"], n)) / 1000
    r = ends + lat
    stalls = []
    for _ in range(rng.poisson(p["gc_per_min"] * duration / 60)):
        stalls.append((rng.uniform(0, duration), p["gc_ms"] * rng.uniform(0.5, 1.5) / 1000))
    for t in verdicts:
        stalls.append((t, p["flash_ms"] * rng.uniform(0.5, 1.5) / 1000))
    for s, d in sorted(stalls):                        # in time order: a stall can push reads into the next
        inside = (r >= s) & (r < s + d)
        r[inside] = s + d + rng.uniform(0.0002, 0.001, inside.sum())
    keep = np.ones(len(r), bool)
    keep[:-1] = r[:-1] < ends[1:]                      # overwritten by the next conversion
    return keep, r


def _debounced(reed, times):
    """The reed as the firmware reports it: a new state once it has held DEBOUNCE_S."""
    reed = sorted(reed)
    eff = []
    for j, (t, s) in enumerate(reed):
        nxt = reed[j + 1][0] if j + 1 < len(reed) else math.inf
        if nxt - t >= DEBOUNCE_S:
            eff.append((t + DEBOUNCE_S, s))
    out = np.ones(len(times), bool)
    for t, s in eff:
        out[times >= t] = s
    return out


# --- the session -------------------------------------------------------------------------------

def _eggs(rng, p):
    eggs = []
    for c, n in EGG_COUNTS.items():
        for _ in range(n):
            eggs.append((c, NOMINAL_G[c] + float(rng.uniform(-p["egg_tol_g"], p["egg_tol_g"]))))
    return eggs


def session(seed, setting=80, waits=None, **over):
    """One session; `waits`: {k: extra seconds the k-th of Session.starts waits for the game}."""
    if setting not in (80, 10) or isinstance(setting, bool):
        raise ValueError(f"setting must be 80 or 10, not {setting!r}")
    rng = np.random.default_rng([int(seed), 711])
    p = _draw(rng, over)
    eggs = _eggs(rng, p)
    world = World(np.random.default_rng([int(seed), 1]), p, eggs, waits)
    duration = world.play()
    tr = world.track
    tr_n = tr.idx(duration) + 1
    contents = p["tare_g"] + p["pole_g"] + sum(m for _, m in eggs)
    force = contents + tr.total()[:tr_n]
    t_grid = tr.t()[:tr_n]
    erng = np.random.default_rng([int(seed), 2, setting])
    accel = _table_bumps(erng, p, tr_n, duration)
    force = force + force * accel / G                  # the base's acceleration loads the mass on it
    strain, f_mode = _mechanics(p, force, contents)
    strain = strain + _creep(p, strain)
    ends, grams = _hx711(erng, p, setting, strain, t_grid)
    ok = ends > 0
    ends, grams = ends[ok], grams[ok]
    keep, r = _reads(erng, p, ends, world.verdicts, duration)
    r, grams = r[keep], grams[keep]
    seated = _debounced(world.reed, r)
    samples, last = [], -1
    for ti, gi, si in zip(r, grams, seated):
        t_ms = max(int(ti * 1000), last + 1)           # ticks_ms; never two samples in one ms
        last = t_ms
        samples.append((t_ms, float(gi), bool(si)))
    masses = {c: float(np.mean([m for cc, m in eggs if cc == c])) for c in NOMINAL_G}
    params = dict(p)
    derived = {"mode_hz": f_mode, "odr_sps": setting * p["odr_scale"],
               "noise_g": NOISE_NV[setting] * 1e-9 * p["noise_factor"] * _grams_per_volt(p),
               "full_nest_g": contents}
    eggs_g = {c: [m for cc, m in eggs if cc == c] for c in NOMINAL_G}
    return Session(samples=samples, masses=masses, pole_g=p["pole_g"], params=params,
                   truth=world.truth, setting=setting, eggs_g=eggs_g, derived=derived,
                   starts=world.hands.starts)


# --- picture -----------------------------------------------------------------------------------

def plot(s, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.array([x[0] for x in s.samples]) / 1000
    g = np.array([x[1] for x in s.samples])
    pole = np.array([x[2] for x in s.samples])
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(16, 8), sharex=True, height_ratios=[5, 1])
    ax.plot(t, g, lw=0.6, color="k")
    lo, hi = np.percentile(g, [0.5, 99.5])
    ax.set_ylim(lo - 60, hi + 40)        # the rarest spikes (impacts, glitches) run off the chart
    colours = {"G": "green", "P": "purple", "Y": "goldenrod", "R": "red", "B": "blue"}
    for e in s.truth:
        w = e["what"]
        if w == "out":
            c = colours[e["colour"]]
            ax.axvspan(e["t_in"] / 1000, e["t_ms"] / 1000, color=c, alpha=0.15)
            ax.axvline(e["t_lift"] / 1000, color=c, lw=0.8, ls="--")
            ax.text(e["t_lift"] / 1000, hi + 35 - (0.15 * (hi - lo) if e["cause"] == "drop" else 0),
                    f"{e['colour']} {e['hand']}", fontsize=7, color=c, rotation=90, va="top")
        elif w == "back":
            ax.axvspan(e["t_in"] / 1000, e["t_ms"] / 1000, color="grey", alpha=0.25)
            ax.text(e["t_in"] / 1000, lo - 50, f"back {e['eggs']}", fontsize=7)
        elif w == "touch":
            ax.axvspan(e["t_in"] / 1000, e["t_ms"] / 1000, color="orange", alpha=0.2, hatch="//")
            ax.text(e["t_in"] / 1000, lo - 35, "touch+lift" if e["lifted"] else "touch", fontsize=7)
        else:
            ax2.axvline(e["t_ms"] / 1000, color="red" if w == "pole_out" else "green", lw=1)
    ax.set_ylabel("reading (g)")
    ax.set_title(f"tablemodel session: {s.setting} SPS, {len(s.samples)} samples; "
                 f"shaded = hand in the nest (colour = egg out, grey = pour-back, hatched = touch), "
                 f"dashed = egg weight off")
    ax2.step(t, pole.astype(int), where="post")
    ax2.set_ylabel("pole seated")
    ax2.set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        print("usage: python -m lab.tablemodel SEED OUT.png [80|10]", file=sys.stderr)
        return 2
    s = session(int(argv[0]), int(argv[2]) if len(argv) == 3 else 80)
    plot(s, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
