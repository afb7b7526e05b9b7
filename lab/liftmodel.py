"""liftmodel: a third, independently written simulator of one play session on the egg weigher.

Written blind (without reading the detector or the two other simulators): from physics, the parts
list (enclosure/BOM.md, enclosure/params.py, firmware/HARDWARE.md) and published figures. Every
parameter, its range and its source is in PARAMS below and in docs/liftmodel.md.

The chain, all at an internal rate FS (2 kHz):

  script (turns of the game)  ->  forces on the bowl [N] and the moving mass [kg]
  -> bowl on the cell: m(t) x'' + c x' + k x = F(t)   (k from the deflection at 1 kg)
  -> cell output k x + creep (first order, OIML R60 bound) + mains pick-up   [grams]
  -> HX711: each conversion a weighted mean over the last N conversion periods (sinc^N, N = 4 from
     the datasheet's settling time), input-referred noise through the same filter, zero drift
     with temperature, 24-bit counts, rare bad reads (bit errors)
  -> sample clock: the internal oscillator's rate (86-94 or 10-12 /s) with jitter; the ESP32
     reads each conversion after a task latency, and a late read loses conversions; ms stamps.

Usage:  t = session(seed, setting=80, **over);  t.samples, t.truth, t.masses, t.pole_g
(t.meta holds the drawn parameters and physical truths for tests and plots; t.internal the
cell's output at FS before the HX711.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import signal

from lab.closedloop import Hands

G = 9.80665          # m/s^2
FS = 2000.0          # internal simulation rate, Hz
COLOURS = "GPYRB"
NOMINAL_G = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}   # HARDWARE.md / brief
EGG_COUNT = {"G": 5, "P": 2, "Y": 5, "R": 5, "B": 5}                     # docs/rules.md
COUNTS_PER_G_NOMINAL = 1.0e-3 * 128 * 2 ** 24 / 1000.0                   # HARDWARE.md: ~2147

# ------------------------------------------------------------------------------------------------
# Parameters: name -> (low, high, unit, source). A session draws each uniformly in [low, high]
# (log-uniform where marked "log") unless overridden: session(seed, name=value).
# "ASSUMED" marks a value without a published figure behind it (argued in docs/liftmodel.md).
# ------------------------------------------------------------------------------------------------
PARAMS: dict[str, tuple] = {
    # --- masses on the cell --------------------------------------------------------------------
    "bowl_g": (120.0, 140.0, "g", "BOM.md printed parts: bowl ~130 g (120 cm3 PLA); +-10 g ASSUMED"),
    "spacer_g": (1.5, 2.5, "g", "BOM.md: spacer 2 g"),
    "screws_g": (2.5, 3.5, "g", "2 x M4x16 ISO 10642 steel screws through bowl+spacer (BOM #14); "
                 "~1.5 g each, ASSUMED from steel density and size"),
    "cell_free_g": (8.0, 12.0, "g", "moving end block of the cell: 25 x 12.7 x 12.7 mm aluminium "
                    "(params.py CELL_MOUNT_LEN, CELL_W/H) x 2.7 g/cm3 = 10.9 g, minus the bores"),
    "pole_true_g": (24.6, 25.4, "g", "brief/BOM: pole 25 g; ASSEMBLY/params: ballast cut to +-0.5 g"),
    "colour_mean_dev_g": (0.0, 0.2, "g", "max deviation of a colour's mean from nominal; ASSEMBLY.md "
                          "eggs weighed on a 0.01 g scale and filed to size; ASSUMED"),
    "egg_spread_g": (0.1, 0.25, "g", "half-range of eggs within a colour: ASSEMBLY.md step 3 keeps "
                     "each egg within +-0.5 g of the others of its colour"),
    # --- the cell and the bowl as a mass-spring-damper ----------------------------------------
    "defl_mm": (0.05, 0.3, "mm", "log; effective deflection at 1 kg (9.81 N) of the cell with the bowl "
                "floor in series; sets k = 9.81 N / defl. Cell alone: ~0.03-0.1 mm from 500 ue at "
                "rated load (1 mV/V over gauge factor 2, params.py) on its hinge webs; the 4 mm PLA floor "
                "on its small pad adds ~0.01-0.05 mm per 3 N; up to 0.3 mm for soft cells. ASSUMED range "
                "(no deflection figure found for this cell)"),
    "zeta": (0.03, 0.12, "-", "damping ratio: aluminium flexure ~0.001-0.005, PLA loss factor "
             "~0.02-0.05 (zeta = eta/2), plus friction of 22 loose eggs; ASSUMED"),
    "creep_frac": (0.0002, 0.0015, "-", "creep after 30 min as a fraction of the load change: "
                   "OIML R60 class C3 allows 0.7 x MPE (~0.035 % of load at Dmax); up to 4x that "
                   "for an unclassed hobby cell, ASSUMED"),
    "creep_tau_s": (60.0, 600.0, "s", "log; creep time constant, ASSUMED (R60 reads at 20/30 min)"),
    # --- HX711 ---------------------------------------------------------------------------------
    "avdd_v": (3.0, 4.3, "V", "bridge excitation = AVDD: 4.3 V from the common module's regulator "
               "on 5 V (datasheet: VAVDD = VBG (R1+R2)/R1, VBG 1.25 V), ~3.0-3.2 V on a 3.3 V supply"),
    "rated_output": (0.85e-3, 1.15e-3, "V/V", "TAL220 data sheet: 1.0 +- 0.15 mV/V (HARDWARE.md)"),
    "noise_excess": (1.0, 1.6, "x", "module/wiring noise above the chip's figure; ASSUMED"),
    "filt_order": (4, 4, "-", "sinc order N: HX711 datasheet output settling time 50 ms at 80 SPS, "
                   "400 ms at 10 SPS = 4 conversion periods"),
    "zero0_g": (-0.3, 0.3, "g", "zero error at session start (tare drifted since); ASSUMED"),
    "tc_zero_g_per_c": (0.01, 0.05, "g/degC", "cell zero TC ~0.02-0.05 % RO /10 degC (typical "
                        "single-point data sheets) + HX711 offset drift 6 nV/degC (datasheet)"),
    "temp_rate_c_per_min": (-0.3, 0.3, "degC/min", "warm-up / room drift during a session, ASSUMED"),
    "wander_g_per_rts": (0.0, 0.003, "g/sqrt(s)", "slow random-walk zero wander (1/f, thermal "
                         "gradients); ASSUMED"),
    "mains_g": (0.0, 0.02, "g", "50 Hz pick-up amplitude at the input; ASSUMED (USB-powered)"),
    "scale_cal_err": (-0.004, 0.004, "-", "scale error at calibration (200 g M1 mass, off-centre "
                      "load error of a single-point cell); ASSUMED"),
    "scale_drift": (-0.002, 0.002, "-", "scale change since the egg calibration (span TC, "
                    "eccentric egg positions); ASSUMED"),
    "spike_p": (0.0002, 0.002, "/sample", "bad reads: bogde/HX711 issues #83 (values 2^k-1 and 0 "
                "in 1-5 % of slow reads on an AVR) and #216 (single-sample spikes on ESP32); "
                "rate for an IRQ-driven ESP32 reader ASSUMED lower"),
    # --- sample clock and ESP32 ----------------------------------------------------------------
    "rate80_sps": (86.0, 94.0, "1/s", "project spec (user reports): RATE=1 gives 86-94 SPS"),
    "rate10_sps": (10.0, 12.0, "1/s", "project spec (user reports): RATE=0 gives 10-12 SPS"),
    "jitter_frac": (0.001, 0.005, "-", "rms period jitter of the on-chip RC oscillator; ASSUMED"),
    "lat_mean_ms": (0.3, 2.0, "ms", "mean task latency DOUT fall -> read (IRQ flag, asyncio "
                    "task; HARDWARE.md); ASSUMED"),
    "late_p": (0.002, 0.02, "/sample", "chance a read is delayed by a GC pause / LED refresh / "
               "console line; ASSUMED"),
    "late_ms": (5.0, 35.0, "ms", "length of such a delay (MicroPython GC on ESP32 takes some "
                "ms to tens of ms); ASSUMED"),
    "service_ms": (1.0, 2.5, "ms", "read + processing time of one sample; ASSUMED"),
    "debounce_ms": (20.0, 20.0, "ms", "HARDWARE.md: reed state confirmed after 20 ms stable"),
    # --- the game around it ---------------------------------------------------------------------
    "duration_s": (40.0, 60.0, "s", "brief: sessions of ~40-60 s"),
    "p_pole_fall": (0.04, 0.12, "/take", "ASSUMED (game: the pole falls now and then)"),
    "p_drop": (0.04, 0.12, "/take", "another egg rolls out during/after a take; ASSUMED"),
    "p_double": (0.0, 0.04, "/take", "two eggs come out in the hand together; ASSUMED"),
    "p_touch": (0.05, 0.2, "/turn", "a hand touches the nest and takes nothing; ASSUMED"),
    "p_bump": (0.0, 0.15, "/turn", "someone bumps the table or presses a button hard between turns: "
               "the base accelerates; ASSUMED"),
    "bump_ms2": (0.1, 1.5, "m/s^2", "peak acceleration of such a bump (one sine period of 30-100 ms); "
                 "ASSUMED"),
    "p_wrong": (0.05, 0.15, "/take", "the wrong colour taken: an alarm (rules.md ruling), eggs go "
                "back; ASSUMED"),
    "stop_g": (1000.0, 1100.0, "g", "overload stops: set to touch at 1.1 kg on the cell (params.py "
               "STOP_SET_LOAD_G, ASSEMBLY step 9); the cell reads no more than this"),
}

# Hand kinds. Forces in N (1 N = 102 g). press: the fingers resting on / pushing the eggs while
# searching; preload: the extra push-down before lift (negative load force, Forssberg et al. 1991
# Exp Brain Res 85:451 report it prolonged in children); tremor: rms of the 8-12 Hz physiological
# tremor in the contact force; slow: rms of the slow (< 2 Hz) wander of the press, as a fraction.
HANDS = {
    "firm": dict(p=0.3, press=(0.3, 2.0), preload=(0.1, 0.6), tremor=(0.02, 0.08), slow=0.25),
    "light": dict(p=0.45, press=(0.02, 0.3), preload=(0.0, 0.1), tremor=(0.004, 0.03), slow=0.2),
    "still": dict(p=0.25, press=(0.01, 0.15), preload=(0.0, 0.05), tremor=(0.001, 0.006), slow=0.05),
}
# Phase durations of a take, s. Forssberg et al. 1991 (Exp Brain Res 85:451-457) and 1992
# (90:393-398): children's preload and loading phases are longer and more variable than adults'
# (~0.1 s each), adult-like only by 8-11 years; mainly bell-shaped load-force rates from ~2 years,
# multi-peaked in the younger. The numbers are ranges ASSUMED from those qualitative findings.
PHASES = dict(search=(0.2, 1.2), preload=(0.05, 0.3), load=(0.1, 0.4), hold=(0.1, 0.5),
              finish=(0.05, 0.2), leave=(0.05, 0.4), still_frac=(0.3, 0.85))


@dataclass
class Trace:
    samples: list
    truth: list
    masses: dict
    pole_g: float
    meta: dict = field(default_factory=dict)
    internal: tuple = ()
    # each hand that follows the game (a turn's first, the first after an alarm): (its time, the
    # end of what came before it), ms; lab.closedloop makes them wait for the game
    starts: list = field(default_factory=list)


def draw_params(rng, setting=80, **over):
    """Draw one session's parameters (unknown names in `over` are an error)."""
    for k in over:
        if k not in PARAMS:
            raise TypeError(f"unknown liftmodel parameter {k!r}")
    p = {}
    for name, (lo, hi, _unit, src) in PARAMS.items():
        if src.startswith("log") and lo > 0:
            v = float(math.exp(rng.uniform(math.log(lo), math.log(hi))))
        else:
            v = float(rng.uniform(lo, hi))
        p[name] = over.get(name, v)
    p["filt_order"] = int(round(p["filt_order"]))
    p["setting"] = setting
    return p


# ------------------------------------------------------------------------------------------------
# Force timeline
# ------------------------------------------------------------------------------------------------
class _Timeline:
    """Forces on the bowl (N, down positive), mass steps (kg) and reed switch edges at FS."""

    def __init__(self, t_max):
        self.n = int(t_max * FS)
        self.f = np.zeros(self.n)
        self.dm = np.zeros(self.n)
        self.reed = []             # (t_s, seated)

    def i(self, t):
        return min(self.n - 1, max(0, int(round(t * FS))))

    def add(self, t0, values):
        i0 = self.i(t0)
        i1 = min(self.n, i0 + len(values))
        self.f[i0:i1] += values[: i1 - i0]

    def mass_step(self, t, dm_kg):
        """The mass joins/leaves the bowl at t: its weight and its inertia."""
        self.dm[self.i(t)] += dm_kg

    def pulse(self, t, impulse_ns, dur_s):
        """A half-sine impact force of the given impulse (N s) and contact duration."""
        n = max(1, int(round(dur_s * FS)))
        w = np.sin(np.pi * (np.arange(n) + 0.5) / n)
        self.add(t, impulse_ns * w / (w.sum() / FS))


def _ramp(n):
    """0 -> 1 over n samples: minimum-jerk (bell-shaped rate, Forssberg 1991/1992)."""
    if n <= 0:
        return np.zeros(0)
    u = (np.arange(n) + 0.5) / n
    return 10 * u ** 3 - 15 * u ** 4 + 6 * u ** 5


def _tremor(rng, n, f0):
    """Unit-rms physiological tremor: white noise through a 2nd-order band-pass at f0 +- 2 Hz."""
    if n < 4:
        return np.zeros(n)
    b, a = signal.butter(2, [f0 - 2.0, f0 + 2.0], btype="bandpass", fs=FS)
    pad = int(FS)        # let the filter settle
    x = signal.lfilter(b, a, rng.standard_normal(n + pad))[pad:]
    return x / (np.sqrt(np.mean(x ** 2)) + 1e-12)


def _slow(rng, n):
    """Unit-rms slow wander of a held force (< 2 Hz)."""
    if n < 4:
        return np.zeros(n)
    b, a = signal.butter(2, 2.0, fs=FS)
    pad = int(FS)
    x = signal.lfilter(b, a, rng.standard_normal(n + pad))[pad:]
    return x / (np.sqrt(np.mean(x ** 2)) + 1e-12)


def _envelope(n, ramp_n):
    """1 in the middle, raised-cosine edges of ramp_n samples."""
    e = np.ones(n)
    r = min(ramp_n, n // 2)
    if r > 0:
        w = 0.5 - 0.5 * np.cos(np.pi * (np.arange(r) + 0.5) / r)
        e[:r] = w
        e[n - r:] = w[::-1]
    return e


def _hand_contact(tl, rng, t0, t1, press_n, tremor_n, slow_frac, ramp_s=0.08):
    """A hand resting on the eggs/rim from t0 to t1: press + slow wander + tremor, smooth edges."""
    n = tl.i(t1) - tl.i(t0)
    if n <= 0:
        return
    env = _envelope(n, int(ramp_s * FS))
    f0 = rng.uniform(8.0, 12.0)
    f = env * (press_n * (1 + slow_frac * _slow(rng, n)) + tremor_n * _tremor(rng, n, f0))
    tl.add(t0, f)


# ------------------------------------------------------------------------------------------------
# Actions of the game
# ------------------------------------------------------------------------------------------------
def _take(tl, rng, t, mass_g, kind):
    """A child takes one egg (or two stuck together: mass_g their sum). Returns (t_in, t_lift,
    t_gone, info)."""
    h = HANDS[kind]
    m = mass_g / 1000.0
    t_in = t
    search = rng.uniform(*PHASES["search"])
    pre = rng.uniform(*PHASES["preload"])
    load = rng.uniform(*PHASES["load"])
    press = rng.uniform(*h["press"])
    preload = rng.uniform(*h["preload"])
    trem = rng.uniform(*h["tremor"])
    t_pre = t_in + search
    t_load = t_pre + pre
    info = {"kind": kind, "tremor_n": trem}
    # the hand on the eggs from first touch until the egg is lifted (press fades during loading)
    n_all = tl.i(t_load + load + 1.0) - tl.i(t_in)   # longer than any load profile below
    n_pre = tl.i(t_load) - tl.i(t_in)
    press_prof = np.full(n_all, press)
    # preload: extra push-down, bell-shaped up and back during the preload phase
    i_pre = tl.i(t_pre) - tl.i(t_in)
    n_p = max(1, n_pre - i_pre)
    press_prof[i_pre:n_pre] += preload * np.sin(np.pi * (np.arange(n_p) + 0.5) / n_p)
    # load force: the weight comes off the bowl through the fingers
    w = m * G
    if kind == "still":
        frac = rng.uniform(*PHASES["still_frac"])
        hold = rng.uniform(*PHASES["hold"])
        fin = rng.uniform(*PHASES["finish"])
        n1 = tl.i(t_load + load) - tl.i(t_load)
        n2 = tl.i(t_load + load + hold) - tl.i(t_load + load)
        n3 = max(1, tl.i(t_load + load + hold + fin) - tl.i(t_load + load + hold))
        lf = np.concatenate([frac * w * _ramp(n1), np.full(n2, frac * w),
                             frac * w + (1 - frac) * w * _ramp(n3)])
        info["hold"] = (t_load + load, t_load + load + hold)
        info["hold_frac"] = frac
        t_lift = t_load + load + hold + fin
    else:
        n1 = max(1, tl.i(t_load + load) - tl.i(t_load))
        if rng.random() < 0.3:   # younger pattern: a two-step load with a pause (multi-peaked rate)
            k = rng.uniform(0.3, 0.7)
            na = max(1, int(n1 * 0.5))
            npause = int(rng.uniform(0.03, 0.12) * FS)
            lf = np.concatenate([k * w * _ramp(na), np.full(npause, k * w),
                                 k * w + (1 - k) * w * _ramp(max(1, n1 - na))])
        else:
            lf = w * _ramp(n1)
        t_lift = t_load + len(lf) / FS
    # the press fades while the load force rises (for a still hold: during its first ramp only, so
    # that the half-lifted egg is then held by the fingers alone, nearly motionless)
    i_l = tl.i(t_load) - tl.i(t_in)
    n_l = len(lf)
    press_prof[i_l:i_l + n1] *= (1.0 - _ramp(n1))[: len(press_prof[i_l:i_l + n1])]
    press_prof[i_l + n1:] = 0.0
    n_c = i_l + n_l
    # tremor and slow wander ride on the whole contact up to lift-off
    f0 = rng.uniform(8.0, 12.0)
    env = _envelope(n_c, int(0.06 * FS))
    tremor = trem * _tremor(rng, n_c, f0)
    force = press_prof[:n_c] * (1 + h["slow"] * _slow(rng, n_c)) * env + tremor * env
    force[i_l:n_c] -= lf[: n_c - i_l]
    tl.add(t_in, force)
    tl.mass_step(t_lift, -m)
    # the neighbours slide/roll into the gap the egg leaves (a drop of 0.5-3 mm, stopped over
    # 5-20 ms by the eggs under them: small soft impacts, no net weight change); ASSUMED
    for _ in range(int(rng.integers(0, 3))):
        tl.pulse(t_lift + rng.uniform(0.02, 0.3), 0.014 * math.sqrt(2 * G * rng.uniform(0.0005, 0.003)),
                 rng.uniform(0.005, 0.02))
    # lift-off: the egg leaves its neighbours; the hand carries it out, fingers may brush eggs
    leave = rng.uniform(*PHASES["leave"])
    if leave > 0.1 and rng.random() < 0.6:
        _hand_contact(tl, rng, t_lift, t_lift + leave, rng.uniform(0.0, 0.6) * press + 0.01,
                      0.5 * trem, 0.3, ramp_s=0.03)
    t_gone = t_lift + leave
    return t_in, t_lift, t_gone, info


def _regrip(tl, rng, t, mass_g):
    """A hand lifts an egg clear, holds it over the nest, and puts it back. Returns t_gone."""
    m = mass_g / 1000.0
    grip = rng.uniform(0.2, 0.8)
    load = rng.uniform(0.1, 0.3)
    air = rng.uniform(0.2, 0.8)
    n0, n1 = int(grip * FS), max(1, int(load * FS))
    press = rng.uniform(0.02, 0.3)
    trem = rng.uniform(0.004, 0.03)
    f = np.concatenate([np.full(n0, press), press * (1 - _ramp(n1))])
    f = f * _envelope(len(f), 100) + trem * _tremor(rng, len(f), rng.uniform(8, 12)) * _envelope(len(f), 100)
    f[n0:] -= m * G * _ramp(n1)
    tl.add(t, f)
    t_lift = t + (n0 + n1) / FS
    tl.mass_step(t_lift, -m)
    t_back = t_lift + air
    tl.pulse(t_back, m * rng.uniform(0.02, 0.1) * 1.3, 0.003)
    tl.mass_step(t_back, m)
    rel = rng.uniform(0.05, 0.3)
    n2 = max(1, int(rel * FS))
    tl.add(t_back, -m * G * rng.uniform(0.2, 0.8) * (1 - _ramp(n2)))
    return t_back + rel


def _drop(tl, rng, t_off, egg):
    """An egg rolls up the wall and falls over the rim, leaving the bowl at t_off.
    Returns (t_in, t_off): t_in when it started moving."""
    m = egg[1] / 1000.0
    roll = rng.uniform(0.1, 0.6)
    tip = rng.uniform(0.02, 0.08)
    t_start = t_off - roll - tip
    # over the rim: its weight goes to the rim's edge (still the bowl) then it leaves; the small
    # upward kick as it tips (its centre of mass accelerating down off the rim) is a short dip.
    n = max(2, int(tip * FS))
    tl.add(t_off - tip, -m * G * _ramp(n) * 0.3)
    tl.mass_step(t_off, -m)
    tl.pulse(t_off, -m * rng.uniform(0.05, 0.2), 0.01)
    return t_start, t_off


def _pole_fall(tl, rng, t_knock, pole_kg, theta_reed):
    """A knocked pole tips over its foot, strikes the rim and slides off onto the table.

    Rod pivoting on its foot (uniform, length L): theta'' = 3 g / (2 L) sin(theta); the vertical
    reaction at the foot is N = m g (1 - 3 cos(theta))^2 / 4 (from rest at theta = 0) while it
    pivots. Returns (t_reed_open, t_off)."""
    L = 0.19                                  # params.py POLE_LEN
    th = math.radians(rng.uniform(2.0, 8.0))  # tilt given by the knock
    om = rng.uniform(0.5, 3.0)                # rad/s
    dt = 1.0 / FS
    th_rim = math.atan2(0.075, 0.052)         # rim: ~75 mm out, ~52 mm up (params.py bowl)
    forces = []
    t_reed = None
    t = t_knock
    while th < th_rim and len(forces) < 2 * FS:
        al = 3 * G / (2 * L) * math.sin(th)
        om += al * dt
        th += om * dt
        c = math.cos(th)
        n_foot = pole_kg * G * (1 - 3 * c) ** 2 / 4.0
        forces.append(n_foot - pole_kg * G)
        if t_reed is None and th > theta_reed:
            t_reed = t
        t += dt
    if t_reed is None:
        t_reed = t
    tl.add(t_knock, np.array(forces))
    # the knock itself: the hand's bump on the bowl
    tl.pulse(t_knock, rng.uniform(0.01, 0.05), rng.uniform(0.02, 0.06))
    # rim strike: (1+e) x effective mass x speed of the rod where it meets the rim
    lc = math.hypot(0.075, 0.052)
    v = om * lc
    tl.pulse(t, (1 + rng.uniform(0.2, 0.5)) * pole_kg * 0.5 * v * math.sin(th_rim), 0.004)
    # then it lies partly on the rim and slides off over 0.1-0.3 s
    part = rng.uniform(0.3, 0.6) * pole_kg * G
    slide = rng.uniform(0.1, 0.3)
    n = max(1, int(slide * FS))
    tl.add(t, part * (1 - _ramp(n)) - pole_kg * G)
    t_off = t + slide
    # until t_off the pole's mass is on the bowl: the forces above are relative to its weight
    tl.mass_step(t_off, -pole_kg)
    return t_reed, t_off


def _pole_lift(tl, rng, t, pole_kg):
    """A hand lifts the seated pole out (to re-seat it). Returns (t_in, t_reed_open, t_gone)."""
    grip = rng.uniform(0.15, 0.5)
    load = rng.uniform(0.1, 0.3)
    trem = rng.uniform(0.003, 0.02)
    n = max(1, int(load * FS))
    n0 = int(grip * FS)
    f = np.concatenate([np.zeros(n0), -pole_kg * G * _ramp(n)])
    f += trem * _tremor(rng, len(f), rng.uniform(8, 12)) * _envelope(len(f), int(0.05 * FS))
    tl.add(t, f)
    t_lift = t + (n0 + n) / FS
    tl.mass_step(t_lift, -pole_kg)
    t_reed = t_lift + rng.uniform(0.02, 0.08)     # the magnet rises a few mm
    return t, t_reed, t_lift + rng.uniform(0.05, 0.2)


def _pole_seat(tl, rng, t, pole_kg):
    """A hand lowers the pole into its socket. Returns (t_in, t_reed_close, t_gone)."""
    approach = rng.uniform(0.1, 0.4)
    t_touch = t + approach
    v = rng.uniform(0.02, 0.15)                   # m/s at touch-down
    tl.pulse(t_touch, pole_kg * v * (1 + rng.uniform(0.1, 0.4)), 0.004)
    tl.mass_step(t_touch, pole_kg)
    # the hand still holds part of the weight, then lets go
    hold = rng.uniform(0.1, 0.5)
    n = max(1, int(hold * FS))
    part = rng.uniform(0.2, 1.0) * pole_kg * G
    trem = rng.uniform(0.003, 0.02)
    f = -part * (1 - _ramp(n)) + trem * _tremor(rng, n, rng.uniform(8, 12)) * _envelope(n, 40)
    tl.add(t_touch, f)
    t_reed = t_touch - rng.uniform(0.0, 0.03)
    return t, t_reed, t_touch + hold


def _pour(tl, rng, t, eggs):
    """Eggs out go back: one by one or in a handful. Returns (t_in, t_done)."""
    handful = rng.random() < 0.5
    tt = t + rng.uniform(0.1, 0.4)
    lands = []
    for _egg in eggs:
        lands.append(tt)
        tt += rng.uniform(0.0, 0.12) if handful else rng.uniform(0.2, 0.8)
    for egg, tl_ in zip(eggs, lands):
        m = egg[1] / 1000.0
        h = rng.uniform(0.01, 0.08)
        v = math.sqrt(2 * G * h)
        e = rng.uniform(0.2, 0.5)
        tl.pulse(tl_, (1 + e) * m * v, rng.uniform(0.001, 0.004))
        tl.mass_step(tl_, m)
        if rng.random() < 0.5:   # one small bounce
            tb = 2 * e * v / G
            tl.pulse(tl_ + tb, (1 + e) * m * e * v * 0.5, 0.002)
    t_last = lands[-1]
    t_done = t_last + rng.uniform(0.05, 0.3)
    if rng.random() < 0.6:       # the hand rests on the rim / the eggs while pouring
        _hand_contact(tl, rng, t, t_done, rng.uniform(0.02, 0.6), rng.uniform(0.005, 0.04), 0.2)
    return t, t_done


# ------------------------------------------------------------------------------------------------
# The session
# ------------------------------------------------------------------------------------------------
def _eggs(rng, p):
    eggs, means = [], {}
    for c in COLOURS:
        mean = NOMINAL_G[c] + rng.uniform(-1, 1) * p["colour_mean_dev_g"]
        ms = mean + rng.uniform(-1, 1, EGG_COUNT[c]) * p["egg_spread_g"]
        means[c] = float(np.mean(ms))
        eggs += [(c, float(x)) for x in ms]
    return eggs, means


def _script(rng, p, tl, eggs, hands):
    """Play turns until the session's duration; returns truth (seconds) and notes. `hands`
    (lab.closedloop.Hands) times the hands that follow the game."""
    truth, notes = [], {"holds": [], "late": [], "bumps": []}
    bowl = list(eggs)
    out = []
    pole_in = True
    pole_kg = p["pole_true_g"] / 1000.0
    tl.reed.append((0.0, True))
    t = rng.uniform(2.5, 4.0)
    takes_since_pour = 0
    while t - hands.waited < p["duration_s"] - 3.0:     # waited: the same turns, later
        if rng.random() < p["p_touch"]:
            if rng.random() < 0.25:
                # picks an egg up, sees the colour is wrong, puts it back: nothing taken
                t_ms = _regrip(tl, rng, t, bowl[int(rng.integers(len(bowl)))][1])
                truth.append({"what": "touch", "t_in": t, "t_ms": t_ms, "hand": "regrip"})
                t = t_ms + rng.uniform(0.3, 1.5)
            else:
                kind = rng.choice(list(HANDS))
                d = rng.uniform(0.2, 1.5)
                h = HANDS[kind]
                _hand_contact(tl, rng, t, t + d, rng.uniform(*h["press"]), rng.uniform(*h["tremor"]),
                              h["slow"])
                truth.append({"what": "touch", "t_in": t, "t_ms": t + d, "hand": str(kind)})
                t += d + rng.uniform(0.3, 1.5)
        # the take
        kinds = list(HANDS)
        kind = str(rng.choice(kinds, p=[HANDS[k]["p"] for k in kinds]))
        egg = bowl.pop(int(rng.integers(len(bowl))))
        leaving = [(egg, "take")]
        wrong = rng.random() < p["p_wrong"]
        alarm = wrong
        if rng.random() < p["p_double"] and bowl:
            # a second egg comes up with the first (wedged against it): one lift, both weights
            leaving.append((bowl.pop(int(rng.integers(len(bowl)))), "take"))
            alarm = True
        t_in, t_lift, t_gone, info = _take(tl, rng, t, sum(e[0][1] for e in leaving), kind)
        if "hold" in info:
            notes["holds"].append({"t0": info["hold"][0], "t1": info["hold"][1], "colour": egg[0],
                                   "mass_g": sum(e[0][1] for e in leaving), "frac": info["hold_frac"],
                                   "tremor_n": info["tremor_n"]})
        end = t_gone
        for e, _cause in leaving:
            truth.append({"what": "out", "t_in": t_in, "t_ms": t_gone, "colour": e[0], "cause": "take",
                          "hand": kind, "_mass": e[1], "t_lift": t_lift,
                          "demand": None if wrong else egg[0]})
            out.append(e)
        if pole_in and rng.random() < p["p_pole_fall"]:
            t_knock = rng.uniform(t_in + 0.1, t_lift)
            t_reed, t_off = _pole_fall(tl, rng, t_knock, pole_kg, math.radians(rng.uniform(8, 25)))
            tl.reed.append((t_reed, False))
            truth.append({"what": "pole_out", "t_in": t_knock, "t_ms": t_reed, "_off": t_off})
            pole_in = False
            alarm = True
            end = max(end, t_off)
        if bowl and rng.random() < p["p_drop"]:
            e = bowl.pop(int(rng.integers(len(bowl))))
            # a late egg: leaves from shortly before the hand is gone up to 1.5 s after (brief)
            t_off = max(t_gone + rng.uniform(-0.3, 1.5), t_lift + 0.15)
            t_in2, t_off = _drop(tl, rng, t_off, e)
            t_ms = max(t_off, t_gone)
            truth.append({"what": "out", "t_in": t_in2, "t_ms": t_ms, "colour": e[0], "cause": "drop",
                          "_mass": e[1], "_off": t_off})
            notes["late"].append({"take_t_ms": t_gone, "t_off": t_off})
            out.append(e)
            alarm = True
            end = max(end, t_ms)
        gap = rng.uniform(1.0, 3.0)
        if rng.random() < p["p_bump"]:
            # the base moves, the bowl lags: in the cell's frame a force -m a (no net impulse)
            tb = end + rng.uniform(0.2, gap - 0.2)
            dur = rng.uniform(0.03, 0.1)
            nb = max(2, int(dur * FS))
            a = p["bump_ms2"] * np.sin(2 * np.pi * (np.arange(nb) + 0.5) / nb)
            tl.add(tb, -0.48 * a)
            notes["bumps"].append(tb)
        t = hands.after(end, gap)
        takes_since_pour += 1
        last_of_colour = not any(b[0] == egg[0] for b in bowl)
        refill = len(bowl) < 10 or (takes_since_pour >= 4 and rng.random() < 0.3)
        if alarm or last_of_colour or refill:
            order = ["pole", "eggs"] if rng.random() < 0.5 else ["eggs", "pole"]
            if not alarm:
                order = ["eggs"]
            elif pole_in and rng.random() < 0.5:
                # an egg fell out with the pole still seated: it gets lifted and re-seated
                t0, t_reed, t_g = _pole_lift(tl, rng, t, pole_kg)
                tl.reed.append((t_reed, False))
                truth.append({"what": "pole_out", "t_in": t0, "t_ms": t_reed, "_off": t_g})
                pole_in = False
                t = hands.after(t_g, rng.uniform(0.3, 1.0))
            for what in order:
                if what == "pole" and not pole_in:
                    t0, t_reed, t_g = _pole_seat(tl, rng, t, pole_kg)
                    tl.reed.append((t_reed, True))
                    truth.append({"what": "pole_in", "t_in": t0, "t_ms": t_reed, "_off": t_g})
                    pole_in = True
                    t = hands.after(t_g, rng.uniform(0.3, 1.0))
                elif what == "eggs" and out:
                    t0, t_done = _pour(tl, rng, t, out)
                    truth.append({"what": "back", "t_in": t0, "t_ms": t_done, "eggs": len(out),
                                  "_mass": sum(e[1] for e in out)})
                    bowl += out
                    out = []
                    takes_since_pour = 0
                    t = hands.after(t_done, rng.uniform(0.8, 2.0))
            if not pole_in:      # the pole always goes back before the next attempt
                t0, t_reed, t_g = _pole_seat(tl, rng, t, pole_kg)
                tl.reed.append((t_reed, True))
                truth.append({"what": "pole_in", "t_in": t0, "t_ms": t_reed, "_off": t_g})
                pole_in = True
                t = hands.after(t_g, rng.uniform(0.8, 2.0))
    t_end = t + rng.uniform(3.0, 4.0)
    return truth, notes, t_end


def _bowl_dynamics(tl, p, m0_kg, n):
    """Integrate m x'' + c x' + k x = F exactly per step (ZOH), mass updated at its steps."""
    k = G / (p["defl_mm"] / 1000.0)              # 1 kg at rated load deflects defl_mm
    mass = m0_kg + np.cumsum(tl.dm[:n])
    F = mass * G + tl.f[:n]
    c = 2 * p["zeta"] * math.sqrt(k * m0_kg)
    dt = 1.0 / FS
    cache = {}

    def mats(m):
        key = round(m, 6)
        if key not in cache:
            A = np.array([[0.0, 1.0], [-k / m, -c / m]])
            Bc = np.array([0.0, 1.0 / m])
            lam, V = np.linalg.eig(A)                    # exact ZOH: e^{A dt}, A^-1 (e^{A dt} - I) B
            Ad = (V @ np.diag(np.exp(lam * dt)) @ np.linalg.inv(V)).real
            Bd = np.linalg.solve(A, (Ad - np.eye(2)) @ Bc)
            E = np.zeros((3, 3))
            E[:2, :2], E[:2, 2] = Ad, Bd
            cache[key] = (E[:2, :2], E[:2, 2])
        return cache[key]

    # per constant-mass segment: s[n] = A^n s0 (eigen-decomposed) + forced response (lfilter of the
    # exact discrete transfer functions F -> x and F -> v)
    x = np.empty(n)
    st = np.array([F[0] / k, 0.0])
    changes = np.flatnonzero(np.diff(mass)) + 1
    bounds = [0, *changes.tolist(), n]
    for a, b in zip(bounds[:-1], bounds[1:]):
        Ad, Bd = mats(mass[a])
        num, den = signal.ss2tf(Ad, Bd.reshape(2, 1), np.eye(2), np.zeros((2, 1)))
        u = F[a:b]
        fx = signal.lfilter(num[0], den, u)
        fv = signal.lfilter(num[1], den, u)
        lam, V = np.linalg.eig(Ad)
        coef = np.linalg.solve(V, st.astype(complex))
        nn = np.arange(b - a + 1)
        pw = lam[None, :] ** nn[:, None] * coef[None, :]
        free = (pw @ V.T).real                      # rows: A^n s0
        x[a:b] = free[: b - a, 0] + fx
        # state at the segment's end (n = b - a): free part + forced part one step on
        last_x = Ad[0] @ np.array([free[b - a - 1, 0] + fx[-1], free[b - a - 1, 1] + fv[-1]]) + Bd[0] * u[-1]
        last_v = Ad[1] @ np.array([free[b - a - 1, 0] + fx[-1], free[b - a - 1, 1] + fv[-1]]) + Bd[1] * u[-1]
        st = np.array([last_x, last_v])
    return k * x / G * 1000.0, mass, k     # grams on the cell


def _kernel(order, period_s):
    box = np.ones(max(1, int(round(period_s * FS))))
    ker = box
    for _ in range(order - 1):
        ker = np.convolve(ker, box)
    return ker / ker.sum()


def session(seed, setting=80, waits=None, **over):
    """One play session: see the module docstring and docs/liftmodel.md. `waits`: {k: extra
    seconds the k-th of Trace.starts waits for the game}."""
    if setting not in (80, 10):
        raise ValueError("setting is the HX711 RATE pin: 80 or 10")
    rng = np.random.default_rng(seed)
    p = draw_params(rng, setting, **over)
    eggs, means = _eggs(rng, p)
    hands = Hands(waits)
    tl = _Timeline(p["duration_s"] + 40.0 + hands.most_s)
    truth_s, notes, t_end = _script(rng, p, tl, eggs, hands)
    n = tl.i(t_end)
    fixed_g = p["bowl_g"] + p["spacer_g"] + p["screws_g"] + p["cell_free_g"]
    m0 = (fixed_g + p["pole_true_g"] + sum(e[1] for e in eggs)) / 1000.0
    cell_g, mass, k = _bowl_dynamics(tl, p, m0, n)
    # the overload stop takes what exceeds its setting (an impact's peak, a hard press); ASSUMED
    # rigid, the bowl's dynamics otherwise unchanged
    cell_g = np.minimum(cell_g, p["stop_g"])
    tt = np.arange(n) / FS
    # creep: c x (load low-passed with tau - initial load), the initial load long settled
    a = math.exp(-1.0 / (FS * p["creep_tau_s"]))
    lp = signal.lfilter([1 - a], [1, -a], cell_g - cell_g[0]) + cell_g[0]
    cell_g = cell_g + p["creep_frac"] * (lp - cell_g[0])
    # mains pick-up and zero drift (temperature ramp + random walk)
    cell_g = cell_g + p["mains_g"] * np.sin(2 * np.pi * 50.0 * tt + rng.uniform(0, 2 * np.pi))
    drift = p["zero0_g"] + p["tc_zero_g_per_c"] * p["temp_rate_c_per_min"] / 60.0 * tt
    drift = drift + p["wander_g_per_rts"] * np.cumsum(rng.standard_normal(n)) / math.sqrt(FS)
    internal = (tt, cell_g.copy())
    # HX711 conversions on its own clock
    rate = p["rate80_sps"] if setting == 80 else p["rate10_sps"]
    period = 1.0 / rate
    ker = _kernel(p["filt_order"], period)
    filt = signal.fftconvolve(cell_g, ker)[:n]
    filt[: len(ker)] = cell_g[0]                 # powered up long before: settled
    noise_v = (90e-9 if setting == 80 else 50e-9) * p["noise_excess"]
    sens_v_per_g = p["rated_output"] * p["avdd_v"] / 1000.0
    sigma_g = noise_v / sens_v_per_g
    wn = signal.fftconvolve(rng.standard_normal(n), ker)[:n]
    wn *= sigma_g / np.std(wn[len(ker):])
    t0 = rng.uniform(0.0, period)
    per = period * (1 + p["jitter_frac"] * rng.standard_normal(int(t_end * rate * 1.2) + 10))
    T = t0 + np.cumsum(per)
    T = T[T < t_end - 0.002]
    idx = np.minimum((T * FS).astype(int), n - 1)
    scale = (1 + p["scale_cal_err"]) * (1 + p["scale_drift"])
    conv_g = (filt[idx] + wn[idx]) * scale + drift[idx]
    # 24-bit counts with the real cell's counts/g, back to grams with the calibrated scale
    cpg_true = p["rated_output"] * 128 * 2 ** 24 / 1000.0
    counts = np.round(conv_g * cpg_true)
    bad = rng.random(len(counts)) < p["spike_p"]
    zero_counts = int(rng.integers(-200000, 200000))    # the empty cell's raw zero
    raw = counts + zero_counts
    for j in np.flatnonzero(bad):
        r = rng.random()
        if r < 0.4:        # a bit flipped in the 24-bit word
            raw[j] = int(raw[j]) ^ (1 << int(rng.integers(8, 23)))
        elif r < 0.7:      # the low bits read as ones: 2^k - 1 patterns (bogde/HX711 #83)
            raw[j] = (1 << int(rng.integers(16, 23))) - 1
        else:              # a read of all zeros
            raw[j] = 0
    grams = (raw - zero_counts) / cpg_true
    # the ESP32 reads: latency, lost conversions, ms stamps
    lat = rng.exponential(p["lat_mean_ms"] / 1000.0, len(T))
    late = rng.random(len(T)) < p["late_p"]
    lat[late] += rng.uniform(p["late_ms"] * 0.5, p["late_ms"], late.sum()) / 1000.0
    svc = p["service_ms"] / 1000.0
    reads = []
    prev = -1.0
    k_ = 0
    while k_ < len(T):
        r = max(T[k_] + lat[k_], prev + svc)
        j = k_
        while j + 1 < len(T) and T[j + 1] <= r:
            j += 1
        if r > t_end:
            break
        reads.append((r, j))
        prev = r
        k_ = j + 1
    # reed: physical edges, the firmware's 20 ms debounce
    edges = sorted(tl.reed)
    deb = p["debounce_ms"] / 1000.0

    def seated(tr):
        s = True
        for te, st in edges:
            if te + deb <= tr:
                s = st
        return s

    ms0 = int(rng.integers(1000, 60000))     # the ESP32's ticks_ms at the session's start
    samples = []
    last = None
    for r, j in reads:
        tm = ms0 + int(math.floor(r * 1000.0))
        if last is not None and tm <= last:
            tm = last + 1
        samples.append((tm, float(grams[j]), bool(seated(r))))
        last = tm

    def ms(ts):
        return ms0 + int(round(ts * 1000.0))

    truth = []
    for ev in truth_s:
        d = {kk: v for kk, v in ev.items() if not kk.startswith("_")}
        d["t_in"], d["t_ms"] = ms(ev["t_in"]), ms(ev["t_ms"])
        if "t_lift" in d:   # a take's lift-off: the egg off the bowl, the hand still over the nest
            d["t_lift"] = ms(ev["t_lift"])
        truth.append(d)
    cal = (1 + p["scale_cal_err"])
    masses = {c: float(round(means[c] * cal + float(rng.normal(0, 0.02)), 2)) for c in COLOURS}
    pole_g = float(round(p["pole_true_g"] * cal + float(rng.normal(0, 0.03)), 2))
    meta = {
        "params": p, "k_n_per_m": k, "m0_kg": m0, "fixed_g": fixed_g, "eggs": eggs,
        "scale": scale, "sigma_g": sigma_g, "rate_sps": rate, "ms0": ms0,
        "f_ring_hz": math.sqrt(k / m0) / (2 * math.pi),
        "holds": [{**h, "t0_ms": ms(h["t0"]), "t1_ms": ms(h["t1"])} for h in notes["holds"]],
        "late": [{"take_t_ms": ms(x["take_t_ms"]), "off_ms": ms(x["t_off"])} for x in notes["late"]],
        "bumps_ms": [ms(x) for x in notes["bumps"]],
        "truth_s": truth_s, "n_conversions": len(T), "drift_g": (float(drift[0]), float(drift[-1])),
    }
    starts = [(ms0 + hand, ms0 + after) for hand, after in hands.starts]
    return Trace(samples, truth, masses, pole_g, meta, internal, starts)


def plot(seed, path, setting=80):
    """Draw one session (grams over time, truth marked, a zoom on a take) to `path` (matplotlib)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = session(seed, setting=setting)
    ts = np.array([s[0] for s in t.samples])
    g = np.array([s[1] for s in t.samples])
    pole = np.array([s[2] for s in t.samples])
    t0 = ts[0]
    x = (ts - t0) / 1000.0
    cols = {"G": "green", "P": "purple", "Y": "goldenrod", "R": "red", "B": "blue"}
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(11, 7), gridspec_kw={"height_ratios": [3, 2]})
    ax.plot(x, g, lw=0.7, color="k", label=f"samples ({setting} SPS setting, {t.meta['rate_sps']:.1f}/s)")
    lo, hi = np.percentile(g, 1) - 30, np.percentile(g, 99) + 20
    ax.fill_between(x, lo, hi, where=~pole, color="orange", alpha=0.25, label="pole not seated (flag)")
    for e in t.truth:
        xe = (e["t_ms"] - t0) / 1000.0
        if e["what"] == "out":
            ax.axvline(xe, color=cols[e["colour"]], lw=1, ls="-" if e["cause"] == "take" else ":")
            lab = e["colour"] + ("" if e["cause"] == "take" else " drop") + ("\n" + e.get("hand", "")[:2])
            ax.text(xe, hi - 12, lab, color=cols[e["colour"]], fontsize=7, ha="center")
        elif e["what"] == "back":
            ax.axvline(xe, color="gray", lw=1, ls="--")
            ax.text(xe, lo + 3, f"+{e['eggs']}", fontsize=8, ha="center")
        elif e["what"] == "touch":
            ax.axvspan((e["t_in"] - t0) / 1000.0, xe, color="0.85", alpha=0.6)
    ax.set_ylim(lo, hi)
    ax.set_ylabel("g on the cell")
    ax.set_xlabel("s")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"lab.liftmodel session(seed={seed}): out (solid: take, dotted: drop), back (dashed), "
                 "touch (grey)", fontsize=10)
    hold = t.meta["holds"][0] if t.meta["holds"] else None
    c = (hold["t0_ms"] if hold else t.truth[0]["t_in"]) - t0
    tt, cg = t.internal
    ti = tt * 1000.0 + t.meta["ms0"] - t0
    m = (ti > c - 2000) & (ti < c + 1200)
    ax2.plot(ti[m] / 1000.0, cg[m], lw=0.5, color="0.6", label="cell output at 2 kHz (before the HX711)")
    sm = ((ts - t0) > c - 2000) & ((ts - t0) < c + 1200)
    ax2.plot(x[sm], g[sm], ".-", ms=3, lw=0.7, color="k", label="samples")
    if hold:
        ax2.axvspan((hold["t0_ms"] - t0) / 1000.0, (hold["t1_ms"] - t0) / 1000.0, color="c", alpha=0.25,
                    label="still hold (egg partly lifted)")
    for e in t.truth:
        if e["what"] == "out" and c - 2000 < e["t_ms"] - t0 < c + 1200:
            ax2.axvline((e["t_in"] - t0) / 1000.0, color="0.3", ls=":", lw=1)
            ax2.axvline((e["t_ms"] - t0) / 1000.0, color=cols[e["colour"]], lw=1)
    if sm.any():
        ax2.set_ylim(np.percentile(g[sm], 5) - 12, np.percentile(g[sm], 90) + 12)
    ax2.set_xlabel("s (dotted: t_in, solid: t_ms)")
    ax2.set_ylabel("g")
    ax2.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


if __name__ == "__main__":
    import sys
    plot(int(sys.argv[1]) if len(sys.argv) > 1 else 1, sys.argv[2] if len(sys.argv) > 2 else "liftmodel.png")
