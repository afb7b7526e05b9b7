"""Does each nest model's pick-up look like a real plate's? Measured against the one public labelled
recording of hands on a load plate found (the AiFi store's 60 Hz shelf plates, CPS-IoT 2020
autonomous-checkout competition, a 105 g pick-up: a touch of about +30 g for about 50 ms, an
undershoot about 57 g below the final level, the level settled after about 0.8 s).

    .venv/bin/python -m lab.pickup_shape [--sessions 30] [--rate 80]

For every clean single-egg take of each model (no other change from 1 s before the hand came to 2 s
after the egg left), from its
samples: the level before (median of the 300 ms before the hand came), the final level (median of
the samples 1.5-2 s after the egg left); the touch (the highest sample above the level before,
between the hand's coming and the egg leaving, and how long the samples stay above half of it);
the undershoot (how far the lowest sample from the hand's coming to 1 s after the egg left lies
below the final level, also as a share of the egg's mass: AiFi 57/105 = 0.54); the settle time
(from the egg leaving to the last sample further than max(0.5 g, 4 x the noise at rest) from
the final level). Medians and 90th percentiles per model; a model is flagged where its median
lies outside half to twice AiFi's figure (the touch, the undershoot's share, the settle time).
"""

import argparse
import statistics
import sys

from lab.weighscore import MODELS, trace

AIFI = {"touch_g": 30.0, "touch_ms": 50.0, "under_share": 57.0 / 105.0, "settle_ms": 800.0}


def _median(xs):
    return statistics.median(xs) if xs else float("nan")


def _p90(xs):
    if not xs:
        return float("nan")
    v = sorted(xs)
    return v[min(len(v) - 1, int(0.9 * len(v)))]


def takes(world, samples):
    """The shape of each clean single-egg take of one session: dicts of the figures above."""
    truth = sorted(world.truth, key=lambda e: e.get("t_in", e["t_ms"]))
    changes = [e for e in truth if e["what"] in ("out", "back", "pole_out", "pole_in", "touch")]
    ts = [s[0] for s in samples]
    gs = [s[1] for s in samples]

    def span(a, b):
        return [gs[i] for i in range(len(ts)) if a <= ts[i] < b]

    out = []
    for e in truth:
        if e["what"] != "out" or e.get("cause", "take") != "take":
            continue
        t_in, t_out = e["t_in"], e["t_ms"]
        near = [c for c in changes if c is not e
                and (t_in - 1000 < c.get("t_in", c["t_ms"]) < t_out + 2000
                     or t_in - 1000 < c["t_ms"] < t_out + 2000)]
        if near:
            continue
        pre, fin = span(t_in - 300, t_in), span(t_out + 1500, t_out + 2000)
        during, after = span(t_in, t_out), span(t_in, t_out + 1000)
        if len(pre) < 3 or len(fin) < 3 or not during:
            continue
        level, final = statistics.median(pre), statistics.median(fin)
        noise = statistics.pstdev(pre)
        mass = level - final
        if mass < 5:
            continue
        touch = max(during) - level
        above = [ts[i] for i in range(len(ts)) if t_in <= ts[i] < t_out and gs[i] - level > touch / 2]
        band = max(0.5, 4 * noise)
        late = [ts[i] for i in range(len(ts)) if t_out <= ts[i] < t_out + 1500 and abs(gs[i] - final) > band]
        out.append({"mass": mass, "touch_g": max(0.0, touch),
                    "touch_ms": (above[-1] - above[0]) if len(above) > 1 else 0.0,
                    "under_g": final - min(after), "under_share": (final - min(after)) / mass,
                    "settle_ms": (late[-1] - t_out) if late else 0.0})
    return out


def measure(model, sessions, rate):
    got = []
    for seed in range(1, sessions + 1):
        world, samples = trace(model, seed, rate)
        got += takes(world, samples)
    return got


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m lab.pickup_shape", description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=30)
    p.add_argument("--rate", type=int, default=80, choices=(80, 10))
    a = p.parse_args(argv)
    print(f"AiFi (105 g): touch +{AIFI['touch_g']:.0f} g for ~{AIFI['touch_ms']:.0f} ms, undershoot 57 g "
          f"({AIFI['under_share']:.2f} of the pick-up), settled after ~{AIFI['settle_ms']:.0f} ms")
    print("| model | takes | touch g (median / p90) | touch ms | undershoot g | undershoot / egg mass "
          "| settle ms after the egg left | unlike AiFi |")
    print("|---|---|---|---|---|---|---|---|")
    for model in MODELS:
        t = measure(model, a.sessions, a.rate)
        col = {k: [x[k] for x in t] for k in ("touch_g", "touch_ms", "under_g", "under_share", "settle_ms")}
        unlike = [name for name, k in (("touch", "touch_g"), ("undershoot", "under_share"),
                                       ("settle", "settle_ms"))
                  if not AIFI[k] / 2 <= _median(col[k]) <= AIFI[k] * 2]
        print(f"| {model} | {len(t)} | {_median(col['touch_g']):.1f} / {_p90(col['touch_g']):.1f} "
              f"| {_median(col['touch_ms']):.0f} "
              f"| {_median(col['under_g']):.1f} / {_p90(col['under_g']):.1f} "
              f"| {_median(col['under_share']):.2f} | {_median(col['settle_ms']):.0f} / "
              f"{_p90(col['settle_ms']):.0f} | {', '.join(unlike) or 'none'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
