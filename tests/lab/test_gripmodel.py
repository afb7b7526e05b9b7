"""Physics checks of lab.gripmodel (never a detector). Each test names the fault it catches."""
import math

import numpy as np
import pytest

from lab import gripmodel as gm

SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def traces():
    out = {}
    for s in SEEDS:
        for st in (80, 10):
            out[(s, st)] = gm.session(s, st, spike_p=0.0)
    return out


def _arr(tr):
    t = np.array([s[0] for s in tr.samples], float)
    g = np.array([s[1] for s in tr.samples], float)
    return t, g


def _level(tr, t0_ms, t1_ms):
    t, g = _arr(tr)
    sel = (t >= t0_ms) & (t <= t1_ms)
    assert sel.sum() >= 2, (t0_ms, t1_ms)
    return float(np.median(g[sel]))


def _busy(tr, t0, t1, skip=None):
    """True if any truth event other than `skip` overlaps [t0, t1] (ms)."""
    for ev in tr.truth:
        if ev is skip:
            continue
        if ev["t_in"] <= t1 and ev["t_ms"] >= t0:
            return True
    return False


@pytest.mark.parametrize("setting,lo,hi", [(80, 85.0, 95.0), (10, 9.5, 12.5)])
def test_clock_rate_and_order(traces, setting, lo, hi):
    # Catches: nominal 80/10 SPS instead of the internal oscillator's 86-94 / 10-12, non-increasing
    # or duplicated stamps, a lost-conversion logic that stalls or repeats samples.
    for s in SEEDS:
        t, _ = _arr(traces[(s, setting)])
        assert np.all(np.diff(t) > 0)
        rate = (len(t) - 1) / ((t[-1] - t[0]) / 1000.0)
        assert lo <= rate <= hi, rate
        assert t.dtype == float and all(isinstance(x[0], int) for x in traces[(s, setting)].samples[:50])


def test_same_seed_same_trace():
    # Catches: a draw from an unseeded generator (global numpy/random state).
    a = gm.session(7, 80)
    b = gm.session(7, 80)
    c = gm.session(8, 80)
    assert a.samples == b.samples and a.truth == b.truth
    assert a.samples != c.samples


def test_overrides():
    # Catches: overrides silently ignored, or unknown names accepted.
    tr = gm.session(4, 80, deflection_mm=0.4, p_late_egg=0.0)
    assert tr.params["deflection_mm"] == 0.4
    assert not [e for e in tr.truth if e.get("cause") == "drop"]
    with pytest.raises((TypeError, KeyError), match="no_such"):
        gm.session(4, 80, no_such=1.0)


def test_rest_level_is_bowl_pole_eggs(traces):
    # Catches: a load missing from the cell (pole, spacer, eggs), a wrong counts-per-gram chain or
    # a scale error far beyond the calibration's +-0.3 %.
    for (s, st), tr in traces.items():
        p = tr.params
        want = (p["bowl_g"] + p["spacer_screws_g"] + p["pole_true_g"]
                + sum(tr.masses[c] * gm.COUNTS[c] for c in gm.COUNTS)) / (1 + p["scale_err"])
        got = _level(tr, 0, 1500)
        assert abs(got - want) < 0.05 + 4 * p["sigma_g"], (s, st, got, want)
        assert 430 < got < 520


def test_noise_at_rest_matches_datasheet():
    # Catches: noise not scaled from the datasheet's nV (50 at 10 SPS, 90 at 80 SPS) through the
    # rated output and excitation, or swapped between the settings.
    for s in SEEDS:
        for st in (80, 10):
            tr = gm.session(s, st, spike_p=0.0, start_rest_s=10.0, session_s=12.0)
            t, g = _arr(tr)
            sel = t < tr.params["start_rest_s"] * 1000 - 100
            x = g[sel]
            x = x - np.polyval(np.polyfit(t[sel], x, 1), t[sel])
            want = tr.params["sigma_g"]
            n_v = want * tr.params["rated_output_mv_v"] * 1e-3 * tr.params["excitation_v"] / 1000 * 1e9
            assert abs(n_v / tr.params["noise_factor"] - gm.HX_NOISE_NV[st]) < 1e-6
            tol = 0.3 if st == 10 else 0.15
            assert abs(np.std(x) / want - 1) < tol, (s, st, np.std(x), want)
    assert gm.HX_NOISE_NV[80] == 90.0 and gm.HX_NOISE_NV[10] == 50.0


def test_out_drops_level_by_egg_mass(traces):
    # Catches: an egg taken whose weight never leaves the cell, or leaves twice; truth times
    # that do not match the samples (the level must be down a second after t_ms).
    checked = 0
    for tr in traces.values():
        for ev in tr.truth:
            if ev["what"] != "out" or _busy(tr, ev["t_in"] - 700, ev["t_ms"] + 1600, skip=ev):
                continue
            before = _level(tr, ev["t_in"] - 650, ev["t_in"] - 50)
            after = _level(tr, ev["t_ms"] + 1000, ev["t_ms"] + 1550)
            want = ev["g"] / (1 + tr.params["scale_err"])
            assert abs((before - after) - want) < 0.12 + 3 * tr.params["sigma_g"], (ev, before - after)
            checked += 1
    assert checked >= 10


def test_back_restores_level(traces):
    # Catches: poured eggs whose weight is not added back, or a wrong count of eggs in `back`.
    checked = 0
    for tr in traces.values():
        for ev in tr.truth:
            if ev["what"] != "back" or _busy(tr, ev["t_in"] - 700, ev["t_ms"] + 1600, skip=ev):
                continue
            before = _level(tr, ev["t_in"] - 650, ev["t_in"] - 50)
            after = _level(tr, ev["t_ms"] + 1000, ev["t_ms"] + 1550)
            want = ev["g"] / (1 + tr.params["scale_err"])
            assert abs((after - before) - want) < 0.15 + 3 * tr.params["sigma_g"], (ev, after - before)
            checked += 1
        # after the whole session, every egg is either in the bowl or has an unanswered `out`
        outs = sum(e["what"] == "out" for e in tr.truth)
        backs = sum(e["eggs"] for e in tr.truth if e["what"] == "back")
        assert 0 <= outs - backs <= 22
    assert checked >= 3


@pytest.mark.parametrize("defl,m_g,zeta", [(0.05, 480.0, 0.02), (0.4, 300.0, 0.05), (0.2, 470.0, 0.1)])
def test_ring_frequency(defl, m_g, zeta):
    # Catches: a wrong stiffness from the rated deflection, mass in g used as kg, a discretisation
    # that shifts the ring frequency, damping not applied.
    k = gm.spring_constant(defl)
    n = int(2.0 * gm.FS)
    f = np.full(n, m_g)
    f[100:104] += 2000.0                 # a 2 ms knock
    y = gm.bowl_response(f, k, m_g, zeta)
    x = y[110:] - m_g
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x)), 16 * len(x)))
    fr = np.fft.rfftfreq(16 * len(x), 1 / gm.FS)
    f_peak = fr[np.argmax(spec)]
    want = math.sqrt(k / (m_g / 1000)) / (2 * math.pi)
    assert abs(f_peak / want - 1) < 0.03, (f_peak, want)
    # log decrement -> zeta
    pk = [abs(v) for v in x[: int(gm.FS / want * 6)]]
    env1 = max(pk[: int(gm.FS / want)])
    env5 = max(pk[int(4 * gm.FS / want): int(5 * gm.FS / want)])
    z_est = math.log(env1 / env5) / (2 * math.pi * 4)
    assert abs(z_est / zeta - 1) < 0.25, (z_est, zeta)


def test_still_hold_stays_within_tremor(traces):
    # Catches: a 'still' take that is not still (tremor too big, the egg's weight moving during the
    # hold), or a hold whose egg is not partly lifted.
    checked = 0
    for s in range(10, 16):
        tr = gm.session(s, 80, spike_p=0.0, p_still=1.0, p_firm=0.0, p_pole_knock=0.0, p_late_egg=0.0)
        t, g = _arr(tr)
        for ev in tr.truth:
            if ev.get("hand") != "still" or ev["what"] != "out":
                continue
            h0, h1 = ev["hold"]
            if h1 - h0 < 150 or _busy(tr, ev["t_in"] - 500, ev["t_in"], skip=ev):
                continue
            sel = (t >= h0 + 60) & (t <= h1)
            x = g[sel]
            bound = 5 * math.hypot(ev["tremor_gf"], tr.params["sigma_g"]) + 0.05
            assert np.max(np.abs(x - np.median(x))) < bound, (ev, np.ptp(x), bound)
            before = _level(tr, ev["t_in"] - 650, ev["t_in"] - 50)
            assert abs((before - np.median(x)) - ev["held_g"]) < 0.2 + bound / 2, ev
            assert 0.2 * ev["g"] < before - np.median(x) < 0.9 * ev["g"]
            checked += 1
    assert checked >= 5


def test_late_egg_leaves_after_take():
    # Catches: a late egg that leaves before its take's hand is gone, or beyond ~1.5 s after it.
    checked = 0
    for s in range(20, 28):
        tr = gm.session(s, 80, spike_p=0.0, p_late_egg=1.0, p_pole_knock=0.0)
        for ev in tr.truth:
            if ev.get("cause") != "drop":
                continue
            assert ev["take_t_ms"] < ev["t_ms"] <= ev["take_t_ms"] + 1500
            if ev["t_in"] - ev["take_t_ms"] < 700:    # rings of the take (a neighbour settling) die
                continue
            before = _level(tr, ev["t_in"] - 250, ev["t_in"] - 10)
            after = _level(tr, ev["t_ms"] + 300, ev["t_ms"] + 600)
            want = ev["g"] / (1 + tr.params["scale_err"])
            assert abs((before - after) - want) < 0.12 + 3 * tr.params["sigma_g"], ev
            checked += 1
    assert checked >= 3


def test_pole_reed_and_weight(traces):
    # Catches: a reed flag that does not follow pole_out/pole_in, or a pole whose weight stays.
    tr = gm.session(31, 80, spike_p=0.0, p_pole_knock=1.0, p_late_egg=0.0, pole_rest_frac=0.0)
    evs = [e for e in tr.truth if e["what"] == "pole_out"]
    assert evs
    for ev in evs:
        after = [s for s in tr.samples if ev["t_ms"] + 5 <= s[0] <= ev["t_ms"] + 200]
        before = [s for s in tr.samples if ev["t_in"] - 200 <= s[0] < ev["t_ms"] - 5]
        assert after and not any(s[2] for s in after)
        assert before and all(s[2] for s in before)
    assert tr.samples[-1][2] and tr.samples[0][2]


def test_runtime():
    # Catches: a session too slow for 300 per setting.
    import time
    t0 = time.process_time()
    gm.session(99, 80)
    assert time.process_time() - t0 < 1.5
