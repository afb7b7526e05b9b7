"""A second nest model, written from physics and published figures, for hold-out scoring.

    from lab.physmodel import session
    trace = session(seed, setting=80)      # or setting=10; keyword overrides for sweeps
    trace.samples   [(t_ms, grams, pole_seated), ...] as the ESP32 would timestamp them
    trace.truth     ground truth in the format lab.weighscore reads (same as nest.world's; a take
                    also has t_hold, t_lift and tremor_g: its hold's start, the lift-off, the hand's
                    tremor rms in grams, for lab.stilllimit)
    trace.masses    what a calibration would store (each colour's mean egg mass), trace.pole_g

It is independent of nest.world / nest.tracegen (the model the weigher was first tuned on): other
authorship of the phenomena, other parameters, and every parameter named below with where its
value comes from (docs/weigher.md, "The physics model", has the table with the sources).

The chain, at 1 kHz internally:
  forces on the bowl (grams-force): the eggs and the pole resting, the hand's contact force with
  physiological tremor, the loading ramp of a lift (Johansson & Westling), eggs landing (impulses)
  -> the bowl on the cell as a mass-spring-damper (second-order low pass: ring frequency from the
     cell's stiffness and the moving mass, damping ratio)
  -> the HX711: each conversion is the mean of the bridge signal over its conversion period (a
     sinc filter, which is what gives the 10 SPS setting its 50/60 Hz rejection), plus input noise,
     drift, creep, rare bit errors of a disturbed read
  -> the sample clock: the internal oscillator's rate (80 SPS setting: 86-94/s; 10 SPS: 10-12/s),
     small period jitter, and the ESP32's timestamp latency (asyncio wake-up after DOUT falls),
     which now and then is late enough that a conversion is overwritten and lost.
"""

import math

import numpy as np
from scipy import signal

from lab.closedloop import Hands

COLOURS = ("G", "P", "Y", "R", "B")
NOMINAL = {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}   # the project's egg classes
NEST_FULL = {"G": 5, "P": 2, "Y": 5, "R": 5, "B": 5}                 # gulo.rules.NEST_FULL
G = 9.81
DT = 1e-3   # s: the force model's step

# Every range a trace draws from (uniform unless said). Sources in docs/weigher.md.
RANGES = {
    # the cell and the bowl
    "deflection_mm": (0.15, 0.6),    # rated deflection of a 1 kg single-point bar cell (assumed, swept)
    "bowl_g": (130.0, 200.0),        # PLA bowl 130 g (enclosure/BOM.md) + spacer, cell's moving end
    "zeta": (0.02, 0.15),            # damping ratio: metal cell 0.01 + friction of 22 loose eggs
    # the HX711
    "rate_80": (86.0, 94.0),         # "80 SPS" on the internal oscillator (olkal/HX711_ADC #29, #98)
    "rate_10": (10.0, 12.0),         # "10 SPS" (garethky/klipper #14: 10.8/s measured)
    "noise_mult": (1.0, 4.0),        # module noise / datasheet input noise (layout, supply ripple)
    "sens_mv_v": (0.85, 1.15),       # cell rated output 1.0 mV/V +-15 %
    "excite_v": (3.0, 4.3),          # bridge excitation: 3.3 V ESP32 supply or the module's regulator
    "spike_per_sample": (1 / 20000, 1 / 3000),
    "drift_g_per_min": (-0.3, 0.3),  # zero drift (temperature) of cell + HX711, room air, hands
    "warmup_g": (-0.5, 0.5),         # HX711 self-heating after power-up, tau 3 min
    "creep_frac": (0.0002, 0.001),   # creep: 0.02-0.1 % of a load change, tau 20 s
    # the ESP32's timestamps
    "latency_ms": (0.3, 3.0),        # DOUT IRQ -> sampler task runs (asyncio, other tasks)
    "late_prob": (0.001, 0.01),      # a wake-up this late: LED frame, flash write (5-25 ms)
    # the eggs
    "mass_sd_g": (0.0, 0.25),        # per-egg spread within a colour (sd)
    # the hands
    "tremor_hz": (8.0, 12.0),        # physiological tremor peak (Lakie 2015: 6-12 Hz; Sutton & Sykes 8-10)
    "tremor_floor_g": (0.005, 0.05), # rms force tremor at vanishing force (intercept, Sutton & Sykes)
    "tremor_slope": (0.01, 0.05),    # rms tremor per unit contact force (linear in force)
    "hold_max_ms": (500.0, 500.0),   # a still, half-lifted egg held up to this long
}

# how often each kind of take happens
TAKES = (("light", 35), ("firm", 20), ("still", 25), ("fumbled", 20))


class Trace:
    def __init__(self, seed, setting, params, masses, pole_g, truth, samples, eggs):
        self.seed = seed
        self.setting = setting
        self.params = params
        self.masses = masses
        self.pole_g = pole_g
        self.truth = truth
        self.samples = samples
        self.eggs = eggs
        self.rate = params["rate"]
        self.noise_g = params["noise_g"]

    def events(self):
        """Ground truth sorted by time (as nest.world gives it)."""
        return sorted(self.truth, key=lambda e: e["t_ms"])


def draw_params(rng, setting, over=None):
    p = {}
    for k, (lo, hi) in RANGES.items():
        p[k] = float(rng.uniform(lo, hi))
    p["rate"] = p["rate_80"] if setting == 80 else p["rate_10"]
    # datasheet input noise at gain 128: 90 nV rms at 80 SPS, 50 nV at 10 SPS
    nv = 90.0 if setting == 80 else 50.0
    uv_per_g = p["sens_mv_v"] * p["excite_v"] * 1000.0 / 1000.0   # uV per gram on a 1 kg cell
    p["uv_per_g"] = uv_per_g
    p["noise_g"] = p["noise_mult"] * nv / 1000.0 / uv_per_g
    # counts per gram: 24-bit over +-0.5 AVDD / 128 (full scale +-20 mV at 5 V, datasheet)
    p["counts_per_g"] = uv_per_g * 1e-6 * 128 * (2 ** 24) / p["excite_v"]
    for k, v in (over or {}).items():
        p[k] = v
    if over and "rate" not in over and ("rate_80" in over or "rate_10" in over):
        p["rate"] = p["rate_80"] if setting == 80 else p["rate_10"]
    if over and "noise_g" not in over and "noise_mult" in over:
        p["noise_g"] = p["noise_mult"] * nv / 1000.0 / p["uv_per_g"]
    return p


class _Forces:
    """Force on the bowl (grams-force) on a 1 ms grid, built up event by event."""

    def __init__(self, n, rng, p):
        self.f = np.zeros(n)
        self.n = n
        self.rng = rng
        self.p = p

    def idx(self, t_ms):
        return max(0, min(self.n, int(round(t_ms))))

    def step(self, t_ms, g, ramp_ms=0.0):
        """A load change of g grams, linear over ramp_ms (a lift's loading phase)."""
        a = self.idx(t_ms)
        if ramp_ms < 1:
            self.f[a:] += g
            return
        b = self.idx(t_ms + ramp_ms)
        k = np.arange(b - a) / max(1, b - a)
        self.f[a:b] += g * k
        self.f[b:] += g

    def impulse(self, t_ms, momentum_gs, width_ms):
        """A half-sine force pulse of the given impulse (gram-force seconds): an egg landing."""
        a = self.idx(t_ms)
        b = self.idx(t_ms + width_ms)
        if b <= a:
            return
        x = np.sin(np.pi * (np.arange(b - a) + 0.5) / (b - a))
        self.f[a:b] += x * momentum_gs / (x.sum() * DT)

    def tremor(self, a_ms, b_ms, rms_g, hz=None):
        """Band-limited physiological tremor (a resonance at 8-12 Hz) of a given rms."""
        a = self.idx(a_ms)
        b = self.idx(b_ms)
        if b - a < 4 or rms_g <= 0:
            return
        hz = hz or self.p["tremor_hz"]
        w = self.rng.standard_normal(b - a + 400)
        # second-order resonance, Q ~ 3: the tremor peak width in published spectra
        bq, aq = signal.iirpeak(hz, 3.0, fs=1000.0)
        x = signal.lfilter(bq, aq, w)[400:]
        x *= rms_g / max(1e-12, x.std())
        # the contact's envelope: a hand's touch starts and ends over ~20 ms
        env = np.ones(b - a)
        r = min(20, (b - a) // 2)
        env[:r] = np.linspace(0, 1, r)
        env[-r:] = np.linspace(1, 0, r)
        self.f[a:b] += x * env

    def contact(self, a_ms, b_ms, press_g, rise_ms=60.0):
        """A hand pressing down with press_g over [a, b], with tremor proportional to the force
        (Sutton & Sykes 1967: rms error linear in force with a positive intercept) and a slow
        wander of the hand (under 3 Hz)."""
        a = self.idx(a_ms)
        b = self.idx(b_ms)
        if b - a < 4:
            return
        env = np.ones(b - a)
        r = int(min(rise_ms, (b - a) / 2))
        if r > 0:
            env[:r] = np.linspace(0, 1, r)
            env[-r:] = np.linspace(1, 0, r)
        self.f[a:b] += press_g * env
        rms = self.p["tremor_floor_g"] + self.p["tremor_slope"] * abs(press_g)
        self.tremor(a_ms, b_ms, rms)
        self.tremor(a_ms, b_ms, rms * 0.7, hz=float(self.rng.uniform(0.8, 3.0)))


def _script(rng, p, masses_of, n_turns, hands):
    """The play: returns (events for the force model, truth, end time). Events are closures that
    add to _Forces, so the force array can be sized first. `hands` (lab.closedloop.Hands, in ms)
    times the hands that follow the game."""
    acts = []
    truth = []
    nest = {c: list(masses_of[c]) for c in COLOURS}   # egg masses in the bowl, by colour
    out = []            # (colour, mass) out of the bowl
    pole_in = True
    reed = [(0, True)]
    t = 2000.0

    def pour_back(t):
        """Every egg that is out goes back in: a hand tips them in one after another."""
        n = len(out)
        t_in = t
        dur = float(rng.uniform(300, 1200))
        rim = float(rng.uniform(5, 30))   # the hand on the rim, g
        acts.append(lambda F, a=t, b=t + dur + 150, g=rim: F.contact(a, b, g))
        for i, (c, m) in enumerate(out):
            tl = t + 80 + dur * i / max(1, n)
            h = float(rng.uniform(0.005, 0.04))       # drop height, m: placed to tipped in
            v = math.sqrt(2 * G * h)
            width = float(rng.uniform(4, 15))        # ms the landing lasts
            acts.append(lambda F, tl=tl, m=m, v=v, w=width: (F.step(tl, m), F.impulse(tl, m * v / G, w)))
            nest[c].append(m)
        out.clear()
        t_gone = t + dur + 150
        truth.append({"what": "back", "t_in": t_in, "t_ms": t_gone, "eggs": n})
        return t_gone

    def knock(t, during=None):
        nonlocal pole_in
        jolt = float(rng.uniform(5, 20))
        acts.append(lambda F, t=t, j=jolt: F.impulse(t, j * 0.02, 20))
        fall = float(rng.uniform(40, 120))
        acts.append(lambda F, t=t, f=fall: F.step(t + 10, -p["pole_g"], f))
        t_reed = t + float(rng.uniform(10, 40))
        reed.append((t_reed, False))
        pole_in = False
        truth.append({"what": "pole_out", "t_ms": t_reed, "t_in": t, "t_end": t + 10 + fall})
        return t + 10 + fall

    def seat(t):
        nonlocal pole_in
        press = float(rng.uniform(10, 40))
        dur = float(rng.uniform(200, 500))
        acts.append(lambda F, t=t, d=dur, g=press: F.contact(t, t + d, g))
        acts.append(lambda F, t=t: F.step(t + 50, p["pole_g"], 30))
        reed.append((t + 80, True))
        pole_in = True
        truth.append({"what": "pole_in", "t_ms": t + 80, "t_in": t, "t_leave": t + dur})
        return t + dur

    def roll_out(t):
        """An egg pushed over the rim rolls out: its weight leaves as it climbs, with a wobble."""
        left = [c for c in COLOURS if nest[c]]
        if not left:
            return t
        c = left[int(rng.integers(len(left)))]
        m = nest[c].pop()
        out.append((c, m))
        dur = float(rng.uniform(60, 250))
        acts.append(lambda F, t=t, m=m, d=dur: (F.step(t, -m, d), F.tremor(t, t + d, m * 0.05, hz=4.0)))
        truth.append({"what": "out", "t_in": t, "t_ms": t + dur, "colour": c, "cause": "drop"})
        return t + dur

    follows = False     # the next hand follows the game (after a take or a pour, not a touch)
    for _ in range(n_turns):
        gap = float(rng.uniform(800, 2500))
        t = hands.after(t, gap) if follows else t + gap
        follows = True
        r = float(rng.random())
        if not pole_in:
            t = seat(t) + float(rng.uniform(600, 1500))
        if r < 0.04:
            t = knock(t)
            t = seat(t + float(rng.uniform(800, 2000)))
            continue
        left = [c for c in COLOURS if nest[c]]
        if len(out) >= 10 or len(left) < 2 or (out and r > 0.93):
            t = pour_back(t)
            continue
        kind = TAKES[-1][0]
        x = int(rng.integers(100))
        for name, w in TAKES:
            if x < w:
                kind = name
                break
            x -= w
        t_in = t
        reach = float(rng.uniform(100, 400))      # hand on the eggs before the grip
        if kind == "firm":
            press = float(rng.uniform(15, 60))
        elif kind == "still":
            press = float(rng.uniform(0.0, 2.0))
        else:
            press = float(rng.uniform(1.0, 10.0))
        if kind == "fumbled" and rng.random() < 0.5:
            # a touch without a take
            dur = float(rng.uniform(200, 1200))
            acts.append(lambda F, a=t, b=t + reach + dur, g=press: F.contact(a, b, g))
            truth.append({"what": "touch", "t_ms": t + reach + dur, "t_in": t, "hand": kind})
            t += reach + dur
            follows = False
            continue
        c = left[int(rng.integers(len(left)))]
        m = nest[c].pop()
        out.append((c, m))
        # Lift: the loading phase raises the load force over 80-300 ms until lift-off
        # (Johansson & Westling 1984). A "still" hand stops half way and holds.
        t_grip = t + reach
        load = float(rng.uniform(80, 300))
        hold = 0.0
        frac = 1.0
        if kind == "still":
            hold = float(rng.uniform(0.0, p["hold_max_ms"]))
            frac = float(rng.uniform(0.3, 0.8))
        t_lift = t_grip + load + hold
        brush = float(rng.uniform(0, 150))        # fingers still on other eggs after lift-off
        t_gone = t_lift + brush
        acts.append(lambda F, a=t, b=t_gone, g=press: F.contact(a, b, g))
        if hold > 0:
            acts.append(lambda F, a=t_grip, m=m, fr=frac, d=load: F.step(a, -m * fr, d * fr))
            acts.append(lambda F, a=t_grip + load * frac + hold, m=m, fr=frac, d=load:
                        F.step(a, -m * (1 - fr), d * (1 - fr)))
        else:
            acts.append(lambda F, a=t_grip, m=m, d=load: F.step(a, -m, d))
        truth.append({"what": "out", "t_in": t_in, "t_ms": t_gone, "colour": c, "cause": "take",
                      "hand": kind, "hold_ms": hold, "t_hold": t_grip + load * frac, "t_lift": t_lift,
                      "tremor_g": p["tremor_floor_g"] + p["tremor_slope"] * press})
        if rng.random() < 0.5:
            # a neighbour egg rolls into the gap the lifted one left: a knock, no weight change
            tk = t_lift + float(rng.uniform(0, 300))
            kick = float(rng.uniform(0.005, 0.1))    # gram-force seconds
            acts.append(lambda F, a=tk, j=kick: F.impulse(a, j, 15))
        t = t_gone
        y = float(rng.random())
        if y < 0.03:
            # two eggs dragged out together: the second leaves with the first
            t = max(t, roll_out(t_lift - 50))
        elif y < 0.11:
            # an egg rolls out late: 0.1-1.2 s after the hand left
            t = roll_out(t + float(rng.uniform(100, 1200)))
        elif y < 0.14:
            # the pole, shaken, falls late: 0.2-1.2 s after the hand left
            t = knock(t + float(rng.uniform(200, 1200)))
        elif y < 0.17:
            t = knock(t_lift - float(rng.uniform(0, 100)))
        if y < 0.17 or len(out) >= 8:
            t = pour_back(hands.after(t, float(rng.uniform(800, 2000))))
    if not pole_in:
        t = seat(t + 1000)
    return acts, truth, t + 3000, reed


def session(seed, setting=80, turns=None, waits=None, **over):
    """One random play session on the physics model (see the module doc). `waits`: {k: extra
    seconds the k-th of Trace.starts waits for the game}."""
    if setting not in (10, 80):
        raise ValueError("setting must be 10 or 80 (the HX711's RATE pin)")
    rng = np.random.default_rng([seed, setting, 0x9E37])
    p = draw_params(rng, setting, over)
    p.setdefault("pole_g", 25.0)
    # every egg's own mass: a colour's nominal mass with a spread
    masses_of = {c: [float(NOMINAL[c] + rng.normal(0, p["mass_sd_g"])) for _ in range(NEST_FULL[c])]
                 for c in COLOURS}
    calib = {c: float(np.mean(masses_of[c])) for c in COLOURS}   # `nest calibrate`: each colour's eggs
    n_turns = turns if turns is not None else int(rng.integers(12, 21))
    hands = Hands(waits, unit_s=0.001)
    acts, truth, end_ms, reed = _script(rng, p, masses_of, n_turns, hands)
    n = int(end_ms) + 200
    F = _Forces(n, rng, p)
    rest = p["bowl_g"] + p["pole_g"] + sum(sum(v) for v in masses_of.values())
    F.f += rest
    for a in acts:
        a(F)
    # the bowl on the cell: m x'' + c x' + k x = F; the cell reads k x (grams)
    moving_kg = (p["bowl_g"] + 25 + 300) / 1000.0
    k = 1.0 * G / (p["deflection_mm"] / 1000.0)              # N/m: 1 kg rated load over its deflection
    w0 = math.sqrt(k / moving_kg)
    p["ring_hz"] = over.get("ring_hz", w0 / (2 * math.pi))
    w0 = 2 * math.pi * p["ring_hz"]
    num = [w0 * w0]
    den = [1.0, 2 * p["zeta"] * w0, w0 * w0]
    bz, az = signal.bilinear(num, den, fs=1000.0)
    zi = signal.lfilter_zi(bz, az) * F.f[0]
    y, _ = signal.lfilter(bz, az, F.f, zi=zi)
    # slow errors: drift, warm-up, creep (first order on every load change)
    tt = np.arange(n) / 1000.0
    y += p["drift_g_per_min"] * tt / 60.0 + p["warmup_g"] * (1 - np.exp(-tt / 180.0))
    dF = np.diff(F.f, prepend=F.f[0])
    creep = signal.lfilter([1 - math.exp(-DT / 20.0)], [1, -math.exp(-DT / 20.0)], np.cumsum(dF))
    y += p["creep_frac"] * creep
    # the HX711's conversions: mean over each conversion period, ending at its DOUT edge
    period = 1000.0 / p["rate"]
    c = np.cumsum(np.concatenate([[0.0], y]))
    t_end = float(rng.uniform(period, 2 * period))
    samples = []
    reed_i = 0
    seated = True
    lat_lo, lat_hi = 0.3, p["latency_ms"]
    while t_end < n - 1:
        a = int(t_end - period)
        b = int(t_end)
        g = (c[b] - c[max(0, a)]) / max(1, b - max(0, a))
        g += rng.normal(0, p["noise_g"])
        if rng.random() < p["spike_per_sample"]:
            bit = int(rng.integers(8, 22))                    # a bit error of a disturbed read
            g += (1 if rng.random() < 0.5 else -1) * (2 ** bit) / p["counts_per_g"]
        lat = float(rng.uniform(lat_lo, lat_hi))
        lost = False
        if rng.random() < p["late_prob"]:
            lat = float(rng.uniform(5, 25))
            lost = lat > period        # the next conversion overwrote this one
        t_ms = int(t_end + lat)
        while reed_i + 1 < len(reed) and reed[reed_i + 1][0] <= t_ms:
            reed_i += 1
            seated = reed[reed_i][1]
        if not lost:
            samples.append((t_ms, round(float(g), 3), seated))
        # the internal oscillator: its period wanders a little (0.1 % jitter)
        t_end += period * (1 + rng.normal(0, 0.001))
    # a sample's time must never go back (a late one followed by a prompt one)
    out = []
    last = -1
    for s in samples:
        if s[0] > last:
            out.append(s)
            last = s[0]
    for e in truth:
        for k in ("t_ms", "t_in", "t_end", "t_leave", "t_hold", "t_lift"):
            if k in e:
                e[k] = int(round(e[k]))
    tr = Trace(seed, setting, p, calib, p["pole_g"], truth, out, masses_of)
    tr.starts = hands.starts    # each hand that follows the game: (its time, the end before it), ms
    return tr
