"""gripmodel: a play-session simulator of the egg nest's load cell, written blind from physics.

One session: the full nest at rest, then turns (a child's hand takes an egg, touches, knocks the
pole, an egg rolls out late, eggs are poured back, the pole is re-seated), then rest. The chain:

  forces (egg weights, hand press + physiological tremor, grip-lift ramps, impacts)
    -> bowl on the cell as a mass-spring-damper (moving mass changes as eggs leave/land)
    -> cell creep, zero drift
    -> HX711: boxcar average over each conversion period, input-referred noise, 24-bit counts,
       rare bad reads
    -> sample clock: internal-oscillator rate, period jitter, ESP32 stamping latency, lost
       conversions when a read is late
    -> grams with a calibration's (slightly wrong) scale.

Usage::

    from lab.gripmodel import session
    t = session(seed, setting=80, **over)

`PARAMS` maps each parameter to its drawn range (low, high) or a fixed value; `session(...,
name=value)` holds it. Sources of every value: `PARAM_SOURCES` and docs/gripmodel.md.
`python -m lab.gripmodel SEED out.png` draws a session.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import expm
from scipy.signal import lfilter

from lab.closedloop import Hands

G = 9.80665          # m/s^2
FS = 2000.0          # internal simulation rate, Hz (>= 10x the stiffest ring frequency)
NOMINAL = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}
COUNTS = {"G": 5, "P": 2, "Y": 5, "R": 5, "B": 5}
HX_NOISE_NV = {80: 90.0, 10: 50.0}   # HX711 datasheet, key specifications: input noise, gain 128
HX_GAIN = 128
CELL_CAPACITY_G = 1000.0

# name: (low, high) drawn uniformly (per session, or per event for names in PER_EVENT), or a fixed value.
PARAMS: dict[str, tuple[float, float] | float] = {
    # --- masses -----------------------------------------------------------------------------
    "bowl_g": (120.0, 140.0),
    "spacer_screws_g": (5.0, 7.0),
    "cell_moving_g": (5.0, 15.0),
    "pole_true_g": (24.5, 25.5),
    "egg_offset_g": (-0.3, 0.3),
    "egg_sd_g": (0.05, 0.25),
    # --- bowl dynamics ----------------------------------------------------------------------
    "deflection_mm": (0.05, 0.4),
    "zeta_struct": (0.01, 0.03),
    "zeta_eggs": (0.02, 0.10),
    "zeta_hand": (0.10, 0.30),
    # --- cell and HX711 ---------------------------------------------------------------------
    "rated_output_mv_v": (0.85, 1.15),
    "excitation_v": (3.0, 4.3),
    "noise_factor": (1.0, 2.0),
    "spike_p": (0.0, 0.001),
    "drift_g_s": (-0.004, 0.004),
    "creep_frac": (0.0, 0.001),
    "creep_tau_s": (60.0, 600.0),
    "scale_err": (-0.003, 0.003),
    # --- sample clock -----------------------------------------------------------------------
    "rate_80": (86.0, 94.0),
    "rate_10": (10.0, 12.0),
    "period_jitter": (0.0005, 0.003),
    "latency_ms": (0.3, 2.0),
    "late_read_p": (0.002, 0.02),
    # --- the game ---------------------------------------------------------------------------
    "session_s": (40.0, 60.0),
    "start_rest_s": (2.0, 3.5),
    "end_rest_s": (3.0, 5.0),
    "gap_s": (0.8, 3.0),
    "p_touch": (0.08, 0.2),
    "p_touch_lift": (0.1, 0.3),
    "p_pole_knock": (0.04, 0.10),
    "p_late_egg": (0.05, 0.12),
    "p_still": (0.2, 0.4),
    "p_firm": (0.2, 0.4),
    "p_linger": (0.3, 0.6),
    "takes_before_refill": (4.0, 7.0),
    # --- the hand (per event) ---------------------------------------------------------------
    "preload_s": (0.10, 0.40),
    "load_s": (0.15, 0.60),
    "still_frac": (0.3, 0.8),
    "still_hold_s": (0.10, 0.50),
    "linger_s": (0.05, 0.60),
    "touch_s": (0.2, 1.0),
    "press_firm_gf": (30.0, 150.0),
    "press_light_gf": (2.0, 20.0),
    "press_still_gf": (0.0, 5.0),
    "tremor_firm_gf": (2.0, 8.0),
    "tremor_light_gf": (0.5, 2.0),
    "tremor_still_gf": (0.05, 0.5),
    "tremor_hz": (8.0, 12.0),
    "settle_mm": (0.2, 2.0),
    # --- late eggs, pole, pouring (per event) -----------------------------------------------
    "late_delay_s": (0.05, 1.5),
    "roll_s": (0.15, 0.6),
    "reed_open_s": (0.03, 0.15),
    "pole_fall_s": (0.3, 0.6),
    "pole_rest_frac": (0.0, 0.6),
    "pole_bump_v": (0.3, 1.5),
    "pole_seat_press_gf": (10.0, 80.0),
    "alarm_pause_s": (1.0, 3.0),
    "p_handful": (0.3, 0.6),
    "pour_h_cm": (2.0, 8.0),
    "pour_gap_s": (0.1, 0.4),
    "impact_ms": (2.0, 6.0),
    "hand_leave_s": (0.1, 0.4),
}

PER_EVENT = {
    "egg_offset_g", "gap_s", "preload_s", "load_s", "still_frac", "still_hold_s", "linger_s", "touch_s",
    "press_firm_gf", "press_light_gf", "press_still_gf", "tremor_firm_gf", "tremor_light_gf",
    "tremor_still_gf", "tremor_hz", "settle_mm", "late_delay_s", "roll_s", "reed_open_s",
    "pole_fall_s", "pole_rest_frac", "pole_bump_v", "pole_seat_press_gf", "alarm_pause_s",
    "pour_h_cm", "pour_gap_s", "impact_ms", "hand_leave_s",
}

PARAM_SOURCES = {
    "bowl_g": "enclosure/BOM.md: bowl 120 cm3 PLA = 130 g; +-10 g for infill/extrusion (ASSUMED)",
    "spacer_screws_g": "BOM.md spacer 2 g + 2 x M4x16 countersunk steel screws ~1.5-2.5 g each (ASSUMED)",
    "cell_moving_g": "ASSUMED effective moving mass of the cell's free end block (aluminium, 25 mm block)",
    "pole_true_g": "brief: 25 g; enclosure/params.py: pole within the eggs' 0.5 g tolerance",
    "egg_offset_g": "ASSUMED: colour mean off nominal by brass cut length (0.663 g/mm, params.py) +-0.5 mm",
    "egg_sd_g": "ASSUMED: within-colour spread kept inside the project's 0.5 g tolerance (params.py)",
    "deflection_mm": "ASSUMED band: ~0.03-0.05 mm from the 1 mV/V strain estimate (params.py stop "
                     "comment) to ~0.3-0.4 mm with the PLA bowl/spacer compliance in series",
    "zeta_struct": "ASSUMED: PLA loss factor ~0.02-0.06 (zeta = eta/2) with an aluminium cell",
    "zeta_eggs": "ASSUMED: friction among 22 loose eggs, scaled by the eggs present",
    "zeta_hand": "ASSUMED: a resting finger/hand adds strong damping (soft tissue)",
    "rated_output_mv_v": "TAL220 data sheet: 1.0 +- 0.15 mV/V (enclosure/params.py, firmware/HARDWARE.md)",
    "excitation_v": "ASSUMED: module AVDD 3.0 V (3.3 V rail minus drop) to 4.3 V (regulated module)",
    "noise_factor": "ASSUMED: a cheap module's noise is 1-2x the datasheet's input noise",
    "spike_p": "ASSUMED: rare bad reads (bit errors, shifted frames) from interrupted bit-banging",
    "drift_g_s": "ASSUMED: zero drift with warm-up/temperature, order 0.05 g/K at 0.5 K/min",
    "creep_frac": "OIML R60 (2000/2017) creep limits for class C3 ~0.035 % of load in 30 min; cheap "
                  "cells up to ~0.1 % (ASSUMED upper bound)",
    "creep_tau_s": "ASSUMED first-order creep time constant (OIML R60 creep test spans 30 min)",
    "scale_err": "ASSUMED: a calibration with a 200 g M1 mass and noisy averages, +-0.3 %",
    "rate_80": "brief/project spec from user reports: '80 SPS' is 86-94 SPS on the internal oscillator",
    "rate_10": "brief/project spec from user reports: '10 SPS' is 10-12 SPS",
    "period_jitter": "ASSUMED relative rms jitter of the RC oscillator's conversion period",
    "latency_ms": "ASSUMED mean ESP32 IRQ-flag -> MicroPython task latency (exponential)",
    "late_read_p": "ASSUMED probability a read is delayed 0.5-2.5 periods (GC pause, Wi-Fi task)",
    "session_s": "brief: sessions of ~40-60 s",
    "start_rest_s": "brief: >= 2 s of rest at the start",
    "end_rest_s": "brief: >= 3 s of rest at the end",
    "gap_s": "ASSUMED time between turns",
    "p_touch": "ASSUMED share of turns that touch and take nothing",
    "p_touch_lift": "ASSUMED share of touches that lift an egg clear and put it back",
    "p_pole_knock": "ASSUMED per take",
    "p_late_egg": "ASSUMED per take",
    "p_still": "ASSUMED share of 'still' (half-lifted, held) takes",
    "p_firm": "ASSUMED share of 'firm' takes; the rest are 'light'",
    "p_linger": "ASSUMED share of takes where the hand stays touching the nest after the lift",
    "takes_before_refill": "brief: pour eggs back now and then",
    "preload_s": "Forssberg et al. 1991 Exp Brain Res 85:451: grip-to-load delay (preload phase) "
                 "~0.1 s in adults, longer and variable in young children",
    "load_s": "Forssberg et al. 1991: loading phase (load force rise to lift-off) ~0.1-0.2 s in "
              "adults, several hundred ms in children, shortening with age",
    "still_frac": "brief: a still, half-lifted egg; ASSUMED fraction of its weight taken",
    "still_hold_s": "brief: held nearly motionless for up to ~0.5 s",
    "linger_s": "ASSUMED",
    "touch_s": "ASSUMED",
    "press_firm_gf": "ASSUMED; children press down before lifting (negative load force in the "
                     "preload phase, Forssberg et al. 1991)",
    "press_light_gf": "ASSUMED",
    "press_still_gf": "ASSUMED",
    "tremor_firm_gf": "ASSUMED; physiological tremor in grip/load force, larger in children",
    "tremor_light_gf": "ASSUMED",
    "tremor_still_gf": "ASSUMED: 'almost nothing'",
    "tremor_hz": "brief/physiological tremor 8-12 Hz (e.g. Elble & Koller 1990, Tremor)",
    "settle_mm": "ASSUMED equivalent free-fall height of a neighbour egg sliding into the gap",
    "late_delay_s": "brief: a late egg up to ~1.5 s after the hand left",
    "roll_s": "ASSUMED time for an egg to roll from moving to off the rim",
    "reed_open_s": "ASSUMED: the pole's foot moves the magnet out of the reed's range",
    "pole_fall_s": "rigid 190 mm rod toppling from near upright: ~0.3-0.6 s (mechanics)",
    "pole_rest_frac": "ASSUMED share of the pole's weight left leaning on the bowl after the fall",
    "pole_bump_v": "ASSUMED speed of the pole hitting the rim: v ~ sqrt(3 g L) at the tip, less mid-rod",
    "pole_seat_press_gf": "ASSUMED",
    "alarm_pause_s": "ASSUMED",
    "p_handful": "brief: poured one by one or in a handful",
    "pour_h_cm": "ASSUMED drop height of a poured egg",
    "pour_gap_s": "ASSUMED",
    "impact_ms": "ASSUMED contact time of a PLA egg landing on other eggs",
    "hand_leave_s": "ASSUMED",
}


@dataclass
class Trace:
    samples: list = field(default_factory=list)
    truth: list = field(default_factory=list)
    masses: dict = field(default_factory=dict)
    pole_g: float = 25.0
    params: dict = field(default_factory=dict)
    debug: dict = field(default_factory=dict)
    # each hand that follows the game (a turn's first, the first after an alarm): (its time, the
    # end of what came before it), ms; lab.closedloop makes them wait for the game
    starts: list = field(default_factory=list)


class _Draw:
    """Draws every parameter from the seeded stream; an override replaces the value but the
    draw still happens, so holding one parameter leaves the rest of the session unchanged."""

    def __init__(self, rng, over):
        self.rng = rng
        self.over = over

    def __call__(self, name):
        spec = PARAMS[name]
        if isinstance(spec, tuple):
            v = float(self.rng.uniform(spec[0], spec[1]))
        else:
            v = float(spec)
        return float(self.over[name]) if name in self.over else v


def spring_constant(deflection_mm):
    """k (N/m) of the cell from its deflection at rated load (1 kg)."""
    return CELL_CAPACITY_G / 1000.0 * G / (deflection_mm / 1000.0)


def ring_hz(k, m_g, zeta=0.0):
    """The damped ring frequency sqrt(k/m) sqrt(1 - zeta^2) / 2 pi."""
    return math.sqrt(k / (m_g / 1000.0)) * math.sqrt(max(0.0, 1.0 - zeta * zeta)) / (2 * math.pi)


def _disc(k, m_g, zeta, dt):
    """Exact zero-order-hold discretisation of m x'' + c x' + k x = F."""
    m = m_g / 1000.0
    c = 2.0 * zeta * math.sqrt(k * m)
    a = np.array([[0.0, 1.0, 0.0], [-k / m, -c / m, 1.0 / m], [0.0, 0.0, 0.0]])
    e = expm(a * dt)
    return e[0, 0], e[0, 1], e[1, 0], e[1, 1], e[0, 2], e[1, 2]


def bowl_response(force_gf, k, m_g, zeta, fs=FS):
    """Cell reading (grams) for a force history (gram-force) with constant or per-step mass and
    damping (arrays of the same length, or scalars). Starts at static equilibrium."""
    n = len(force_gf)
    m_arr = np.broadcast_to(np.asarray(m_g, float), (n,))
    z_arr = np.broadcast_to(np.asarray(zeta, float), (n,))
    f_n = np.asarray(force_gf, float) * G / 1000.0
    key_m = np.round(m_arr * 2.0) / 2.0          # cache per 0.5 g
    key_z = np.round(z_arr, 3)
    change = np.flatnonzero((np.diff(key_m) != 0) | (np.diff(key_z) != 0)) + 1
    bounds = np.concatenate(([0], change, [n]))
    x = f_n[0] / k
    v = 0.0
    out = np.empty(n)
    dt = 1.0 / fs
    cache = {}
    for s, e in zip(bounds[:-1], bounds[1:]):
        key = (float(key_m[s]), float(key_z[s]))
        if key not in cache:
            cache[key] = _disc(k, key[0], key[1], dt)
        a00, a01, a10, a11, b0, b1 = cache[key]
        seg = f_n[s:e].tolist()
        res = [0.0] * len(seg)
        for i, f in enumerate(seg):
            res[i] = x
            x, v = a00 * x + a01 * v + b0 * f, a10 * x + a11 * v + b1 * f
        out[s:e] = res
    return out * k / G * 1000.0


class _Builder:
    """Force, mass and contact histories on the internal grid, built event by event."""

    def __init__(self, rng, d, n):
        self.rng = rng
        self.d = d
        self.n = n
        self.t = np.arange(n) / FS
        self.load = np.zeros(n)     # weights resting on the bowl (gf)
        self.hand = np.zeros(n)     # hand press + tremor (gf, + = down)
        self.imp = np.zeros(n)      # impacts (gf)
        self.mass_ev = []           # (t, dm_g)
        self.egg_ev = []            # (t, dn)
        self.contact = np.zeros(n, bool)
        self.truth = []

    def i(self, t):
        return min(self.n, max(0, int(round(t * FS))))

    def step(self, arr, t0, t1, delta):
        """A smooth (raised-cosine) change of `delta` from t0 to t1, held after."""
        i0, i1 = self.i(t0), self.i(max(t1, t0 + 1.0 / FS))
        tt = self.t[i0:i1]
        arr[i0:i1] += delta * 0.5 * (1.0 - np.cos(np.pi * (tt - t0) / max(t1 - t0, 1e-9)))
        arr[i1:] += delta

    def env(self, arr, t0, t1, amp, rise):
        rise = min(rise, (t1 - t0) / 2)
        self.step(arr, t0, t0 + rise, amp)
        self.step(arr, t1 - rise, t1, -amp)

    def tremor(self, t0, t1, rms_gf, hz):
        """Physiological tremor: white noise through a resonator at `hz` (Q ~ 3), unit rms."""
        i0, i1 = self.i(t0), self.i(t1)
        if i1 - i0 < 4 or rms_gf <= 0:
            return
        w = self.rng.standard_normal(i1 - i0 + 400)
        r = math.exp(-math.pi * (hz / 3.0) / FS)
        th = 2 * math.pi * hz / FS
        y = lfilter([1.0], [1.0, -2 * r * math.cos(th), r * r], w)[400:]
        y /= max(1e-12, float(np.std(y)))
        e = np.ones(i1 - i0)
        ne = min(len(e) // 2, int(0.05 * FS))
        if ne > 0:
            ramp = 0.5 * (1 - np.cos(np.pi * np.arange(ne) / ne))
            e[:ne] = ramp
            e[-ne:] = ramp[::-1]
        self.hand[i0:i1] += rms_gf * y * e

    def impulse(self, t, j_ns, dur_s):
        """A half-sine force pulse of impulse j (N s) and duration dur."""
        i0 = self.i(t)
        nd = max(2, int(round(dur_s * FS)))
        ph = (np.arange(nd) + 0.5) / nd
        amp_n = j_ns * math.pi / (2 * dur_s)
        seg = amp_n * np.sin(np.pi * ph) / G * 1000.0
        e = min(self.n, i0 + nd)
        self.imp[i0:e] += seg[: e - i0]

    def touching(self, t0, t1):
        self.contact[self.i(t0):self.i(t1)] = True


def _ms(t):
    return int(round(t * 1000.0))


def session(seed, setting=80, waits=None, **over):
    """One session; `waits`: {k: extra seconds the k-th of Trace.starts waits for the game}."""
    if setting not in (80, 10):
        raise ValueError(f"setting must be 80 or 10, not {setting!r}")
    for name in over:
        if name not in PARAMS:
            raise TypeError(f"gripmodel.session: unknown parameter {name!r}")
    hands = Hands(waits)
    rng = np.random.default_rng(seed)
    d = _Draw(rng, over)
    p = {name: d(name) for name in PARAMS if name not in PER_EVENT}

    # --- the eggs and the pole ---------------------------------------------------------------
    eggs = []
    for col, cnt in COUNTS.items():
        mu = NOMINAL[col] + d("egg_offset_g")
        for _ in range(cnt):
            eggs.append({"colour": col, "g": float(mu + p["egg_sd_g"] * rng.standard_normal()), "in": True})
    masses = {c: round(float(np.mean([e["g"] for e in eggs if e["colour"] == c])), 2) for c in COUNTS}
    pole_true = p["pole_true_g"]

    n_grid = int((120 + hands.most_s) * FS)
    b = _Builder(rng, d, n_grid)
    base_g = p["bowl_g"] + p["spacer_screws_g"]
    b.load += base_g + pole_true + sum(e["g"] for e in eggs)
    m0 = base_g + p["cell_moving_g"] + pole_true + sum(e["g"] for e in eggs)
    state = {"pole_in": True, "pole_rest": 0.0, "since_refill": 0}

    def kind_of():
        u = rng.uniform()
        if u < p["p_still"]:
            return "still"
        if u < p["p_still"] + p["p_firm"]:
            return "firm"
        return "light"

    def hand_forces(kind, t0, t1, press_until):
        press = d(f"press_{kind}_gf")
        trem = d(f"tremor_{kind}_gf")
        hz = d("tremor_hz")
        rise = float(rng.uniform(0.03, 0.08))
        if press > 0 and press_until > t0 + 2 * rise:
            b.env(b.hand, t0, press_until, press, rise)
        b.tremor(t0, t1, trem, hz)
        b.touching(t0, t1)
        return trem

    def take(t):
        inn = [e for e in eggs if e["in"]]
        egg = inn[int(rng.integers(len(inn)))]
        kind = kind_of()
        me = egg["g"]
        t_in = t
        pre = d("preload_s")
        ld = d("load_s")
        t0 = t_in + pre
        ev = {"what": "out", "t_in": _ms(t_in), "colour": egg["colour"], "cause": "take",
              "hand": kind, "g": round(me, 3)}
        frac = d("still_frac")
        if kind == "still":
            hold = d("still_hold_s")
            t_half = t0 + ld * frac
            b.step(b.load, t0, t_half, -frac * me)
            t_rel = t_half + hold
            t_lift = t_rel + ld * (1 - frac)
            b.step(b.load, t_rel, t_lift, -(1 - frac) * me)
            ev["hold"] = [_ms(t_half), _ms(t_rel)]
            ev["held_g"] = round(frac * me, 3)
        else:
            t_lift = t0 + ld
            b.step(b.load, t0, t_lift, -me)
        linger = d("linger_s")
        t_ms = t_lift + (linger if rng.uniform() < p["p_linger"] else 0.0)
        # the press gives way to the lift during the first half of the loading phase (before a hold)
        t_press = t0 + 0.5 * ld * (frac if kind == "still" else 1.0)
        trem = hand_forces(kind, t_in, max(t_ms, t_lift + 0.02), t_press)
        if kind == "still":
            ev["tremor_gf"] = round(trem, 3)
        egg["in"] = False
        b.mass_ev.append((t_lift, -me))
        b.egg_ev.append((t_lift, -1))
        # a neighbour settles into the gap
        h = d("settle_mm") / 1000.0
        if rng.uniform() < 0.5:
            nb = inn[int(rng.integers(len(inn)))]["g"] / 1000.0
            b.impulse(t_lift + float(rng.uniform(0.02, 0.1)), nb * math.sqrt(2 * G * h), 0.004)
        ev["t_lift"] = _ms(t_lift)
        ev["t_ms"] = _ms(t_ms)
        b.truth.append(ev)
        alarm = False
        end = t_ms
        if state["pole_in"] and rng.uniform() < p["p_pole_knock"]:
            tk = float(rng.uniform(t_in + 0.5 * pre, t_lift))
            end = max(end, pole_fall(tk))
            alarm = True
        late = d("late_delay_s")
        roll = d("roll_s")
        if rng.uniform() < p["p_late_egg"] and len(inn) > 1:
            others = [e for e in inn if e is not egg]
            le = others[int(rng.integers(len(others)))]
            tl = t_ms + late
            t_start = max(t_in, tl - roll)
            b.step(b.load, tl - 0.03, tl, -le["g"])
            b.impulse(t_start, le["g"] / 1000.0 * 0.05, 0.005)
            le["in"] = False
            b.mass_ev.append((tl, -le["g"]))
            b.egg_ev.append((tl, -1))
            b.truth.append({"what": "out", "t_in": _ms(t_start), "t_ms": _ms(tl), "colour": le["colour"],
                            "cause": "drop", "g": round(le["g"], 3), "take_t_ms": _ms(t_ms)})
            end = max(end, tl)
            alarm = True
        return end, alarm

    def pole_fall(tk):
        t_open = tk + d("reed_open_s")
        fall = d("pole_fall_s")
        rest = d("pole_rest_frac")
        v = d("pole_bump_v")
        t_end = tk + fall
        b.step(b.load, tk, t_end, -(1 - rest) * pole_true)
        if rng.uniform() < 0.6:
            b.impulse(t_end, pole_true / 1000.0 * v * 0.5, 0.004)
        b.mass_ev.append((t_end, -(1 - rest) * pole_true))
        state["pole_in"] = False
        state["pole_rest"] = rest
        state["t_reed_open"] = t_open
        b.truth.append({"what": "pole_out", "t_in": _ms(tk), "t_ms": _ms(t_open)})
        return max(t_end, t_open)

    def pole_back(t):
        t_in = t
        rest = state["pole_rest"]
        tt = t_in
        if rest > 0:
            lift = float(rng.uniform(0.1, 0.2))
            b.step(b.load, tt, tt + lift, -rest * pole_true)
            b.mass_ev.append((tt + lift, -rest * pole_true))
            tt += lift + float(rng.uniform(0.3, 0.8))
        seat = float(rng.uniform(0.05, 0.1))
        b.step(b.load, tt, tt + seat, pole_true)
        b.mass_ev.append((tt + seat, pole_true))
        press = d("pole_seat_press_gf")
        hold = float(rng.uniform(0.1, 0.4))
        b.env(b.hand, tt, tt + seat + hold, press, 0.04)
        b.tremor(tt, tt + seat + hold, d("tremor_light_gf"), d("tremor_hz"))
        t_close = tt + seat + float(rng.uniform(0.0, 0.05))
        t_end = tt + seat + hold
        b.touching(t_in if rest > 0 else tt, t_end)
        state["pole_in"] = True
        state["pole_rest"] = 0.0
        b.truth.append({"what": "pole_in", "t_in": _ms(t_in), "t_ms": _ms(t_close)})
        return t_end

    def pour(t):
        out = [e for e in eggs if not e["in"]]
        if not out:
            return t
        handful = rng.uniform() < p["p_handful"]
        t_in = t
        tl = t_in + float(rng.uniform(0.1, 0.3))
        lands = []
        for k, e in enumerate(out):
            if k:
                tl += float(rng.uniform(0.005, 0.04)) if handful else d("pour_gap_s")
            h = d("pour_h_cm") / 100.0
            dur = d("impact_ms") / 1000.0
            b.step(b.load, tl, tl + dur, e["g"])
            b.impulse(tl, e["g"] / 1000.0 * math.sqrt(2 * G * h), dur)
            b.mass_ev.append((tl, e["g"]))
            b.egg_ev.append((tl, 1))
            e["in"] = True
            lands.append(tl)
        t_ms = lands[-1] + d("hand_leave_s")
        # the hand rests lightly on the rim while pouring
        b.env(b.hand, t_in, t_ms, d("press_light_gf"), 0.05)
        b.tremor(t_in, t_ms, d("tremor_light_gf"), d("tremor_hz"))
        b.touching(t_in, t_ms)
        b.truth.append({"what": "back", "t_in": _ms(t_in), "t_ms": _ms(t_ms), "eggs": len(out),
                        "g": round(sum(e["g"] for e in out), 3), "handful": bool(handful)})
        state["since_refill"] = 0
        return t_ms

    def touch(t):
        kind = kind_of()
        dur = d("touch_s")
        t_end = t + dur
        ev = {"what": "touch", "t_in": _ms(t), "hand": kind}
        if rng.uniform() < p["p_touch_lift"]:
            inn = [e for e in eggs if e["in"]]
            egg = inn[int(rng.integers(len(inn)))]
            ld = d("load_s")
            t_up = t + 0.1 + ld
            t_down = t_up + float(rng.uniform(0.2, 0.8))
            b.step(b.load, t + 0.1, t_up, -egg["g"])
            b.mass_ev.append((t_up, -egg["g"]))
            b.step(b.load, t_down, t_down + 0.1, egg["g"])
            b.mass_ev.append((t_down + 0.1, egg["g"]))
            b.impulse(t_down, egg["g"] / 1000.0 * 0.1, 0.004)
            t_end = max(t_end, t_down + 0.2)
            ev.update(lifted=True, colour=egg["colour"], t_clear=_ms(t_up), t_down=_ms(t_down))
        hand_forces(kind, t, t_end, t_end)
        ev["t_ms"] = _ms(t_end)
        b.truth.append(ev)
        return t_end

    t = p["start_rest_s"]
    refill_at = int(round(p["takes_before_refill"]))
    follows = False     # the next hand follows the game (after a take or a pour, not a touch)
    while t - hands.waited < p["session_s"] - 4.0:     # waited: the same turns, later
        t = hands.after(t, d("gap_s")) if follows else t + d("gap_s")
        n_in = sum(e["in"] for e in eggs)
        follows = True
        if state["since_refill"] >= refill_at or n_in < 4:
            t = pour(t)
            continue
        if rng.uniform() < p["p_touch"]:
            t = touch(t)
            follows = False
            continue
        t, alarm = take(t)
        state["since_refill"] += 1
        if alarm:
            t = hands.after(t, d("alarm_pause_s"))
            t = pour(t)
            if not state["pole_in"]:
                t += d("gap_s") * 0.5
                t = pole_back(t)
    t_end = t + p["end_rest_s"]
    n = min(n_grid, int(t_end * FS) + 1)

    # --- dynamics ----------------------------------------------------------------------------
    k = spring_constant(p["deflection_mm"])
    tg = b.t[:n]
    m = np.full(n, m0)
    for te, dm in sorted(b.mass_ev):
        m[b.i(te):] += dm
    neggs = np.full(n, float(len(eggs)))
    for te, dn in sorted(b.egg_ev):
        neggs[b.i(te):] += dn
    zeta = p["zeta_struct"] + p["zeta_eggs"] * neggs / 22.0 + p["zeta_hand"] * b.contact[:n]
    force = b.load[:n] + b.hand[:n] + b.imp[:n]
    y = bowl_response(force, k, m, zeta)

    # --- creep and drift ---------------------------------------------------------------------
    a = math.exp(-1.0 / (FS * p["creep_tau_s"]))
    lp = lfilter([1 - a], [1, -a], y - y[0]) + y[0]
    y_cell = y + p["creep_frac"] * (lp - y[0]) + p["drift_g_s"] * tg

    # --- sample clock and HX711 conversions --------------------------------------------------
    rate = p["rate_80"] if setting == 80 else p["rate_10"]
    period = 1.0 / rate
    cum = np.concatenate(([0.0], np.cumsum(y_cell))) / FS
    tcum = np.arange(n + 1) / FS
    ends = []
    te = period * (1 + rng.uniform(0, 1))
    while te < tg[-1]:
        ends.append(te)
        te += period * (1 + p["period_jitter"] * rng.standard_normal())
    ends = np.array(ends)
    pers = np.diff(np.concatenate(([ends[0] - period], ends)))
    avg = (np.interp(ends, tcum, cum) - np.interp(ends - pers, tcum, cum)) / pers
    ro = p["rated_output_mv_v"] / 1000.0
    v_per_g = ro * p["excitation_v"] / CELL_CAPACITY_G
    sigma_g = HX_NOISE_NV[setting] * 1e-9 * p["noise_factor"] / v_per_g
    cpg = ro * HX_GAIN * 2 ** 24 / CELL_CAPACITY_G
    zero = int(rng.integers(-60000, 60000))
    counts = np.round((avg + sigma_g * rng.standard_normal(len(avg))) * cpg).astype(np.int64) + zero
    spikes = rng.uniform(size=len(counts)) < p["spike_p"]
    for j in np.flatnonzero(spikes):
        c = int(counts[j]) & 0xFFFFFF
        if rng.uniform() < 0.5:
            c ^= 1 << int(rng.integers(8, 24))
        else:
            c = (c << 1) & 0xFFFFFF
        counts[j] = c - (1 << 24) if c & 0x800000 else c
    cal = cpg * (1 + p["scale_err"])
    grams = (counts - zero) / cal

    # pole reed state over time
    reed = []
    for ev in b.truth:
        if ev["what"] in ("pole_out", "pole_in"):
            reed.append((ev["t_ms"], ev["what"] == "pole_in"))
    reed.sort()

    def seated(tms):
        s = True
        for tr, st in reed:
            if tr <= tms:
                s = st
            else:
                break
        return s

    samples = []
    lat_mean = p["latency_ms"] / 1000.0
    j = 0
    last_ms = -1
    while j < len(ends):
        lat = float(rng.exponential(lat_mean))
        if rng.uniform() < p["late_read_p"]:
            lat += float(rng.uniform(0.5, 2.5)) * period
        t_read = ends[j] + lat
        jj = int(np.searchsorted(ends, t_read, side="right")) - 1   # latest finished conversion
        tms = int(t_read * 1000.0)
        if tms > last_ms:
            samples.append((tms, float(grams[jj]), seated(tms)))
            last_ms = tms
        j = jj + 1

    tr = Trace(samples=samples, truth=sorted(b.truth, key=lambda e: e["t_ms"]), masses=masses,
               pole_g=round(pole_true, 2), params=dict(p), starts=hands.starts)
    tr.params.update({"k_n_m": k, "sigma_g": sigma_g, "rate": rate, "m0_g": m0,
                      "rest_g": base_g + pole_true + sum(e["g"] for e in eggs)})
    tr.debug = {"t": tg, "y": y, "force": force, "m": m, "zeta": zeta}
    return tr


def draw(tr, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ts = np.array([s[0] for s in tr.samples]) / 1000.0
    gs = np.array([s[1] for s in tr.samples])
    fig, ax = plt.subplots(figsize=(12, 4.5))
    ax.plot(ts, gs, lw=0.7, color="k", label="samples (g)")
    lo, hi = np.percentile(gs, 1) - 30, np.percentile(gs, 99) + 30
    colours = {"out": "tab:red", "back": "tab:green", "pole_out": "tab:purple", "pole_in": "tab:blue",
               "touch": "tab:orange"}
    seen = set()
    for ev in tr.truth:
        c = colours[ev["what"]]
        lab = ev["what"] if ev["what"] not in seen else None
        seen.add(ev["what"])
        ax.axvspan(ev["t_in"] / 1000, ev["t_ms"] / 1000, color=c, alpha=0.15, label=lab)
        ax.axvline(ev["t_ms"] / 1000, color=c, lw=0.8)
        how = ev.get("hand", ev.get("cause", ""))
        txt = ev.get("colour", "") + (" " + how if ev["what"] == "out" else "")
        if ev["what"] == "back":
            txt = f"+{ev['eggs']}"
        ax.text(ev["t_ms"] / 1000, hi - 5, txt, fontsize=6, rotation=90, va="top")
    pole_off = [s[0] / 1000 for s in tr.samples if not s[2]]
    if pole_off:
        ax.plot(pole_off, [lo + 5] * len(pole_off), "|", color="tab:purple", ms=4, label="reed open")
    ax.set_ylim(lo, hi)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("load on the cell (g)")
    ax.set_title(f"gripmodel session: rate {tr.params['rate']:.1f} SPS, "
                 f"noise {tr.params['sigma_g']:.3f} g rms")
    ax.legend(fontsize=7, loc="lower left", ncol=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: python -m lab.gripmodel SEED out.png [10|80]")
        return 2
    setting = int(argv[2]) if len(argv) > 2 else 80
    tr = session(int(argv[0]), setting)
    draw(tr, argv[1])
    print(f"{len(tr.samples)} samples, {len(tr.truth)} truth events -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
