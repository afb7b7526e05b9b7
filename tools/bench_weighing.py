"""The egg weigher against the plain max-min window detector, on the same generated traces.

    .venv/bin/python tools/bench.py --only weigher [--traces N]

Both detectors (gulo.weigher.Weigher and nest.baseline_weigher.BaselineWeigher) run over the
sessions of nest.tracegen (seeds 1..N: hand tremor, pressing, hanging eggs, ring-down, rolling
eggs, spikes, creep, pour-backs) and are scored by nest.weighscore (docs/weigher.md says how a
change counts as right and what latency is). `run(traces, plot)` returns rows for tools/bench.py
and, when `plot` is a path, draws one session with both detectors' decisions marked.
"""

from nest import weighplot
from nest.tracegen import run as run_detector
from nest.tracegen import session
from nest.weighscore import detectors, evaluate, score, summary

CMD = ".venv/bin/python tools/bench.py --only weigher"
PLOT_SEEDS = range(1, 31)
PLOT_SPAN_MS = (0, 45000)


def plot_seed(made):
    """The session (of PLOT_SEEDS) where the baseline errs most within the plotted span, so the
    picture shows the difference (ties: the lowest seed)."""
    best, most = PLOT_SEEDS[0], -1
    for seed in PLOT_SEEDS:
        world, samples = session(seed)
        r = score(world.truth, run_detector(made["baseline"](world), samples))
        misses = [w["t_ms"] for w in r["wrong"]] + [e["t_ms"] for e in r["false_events"]]
        n = sum(1 for t in misses if PLOT_SPAN_MS[0] <= t <= PLOT_SPAN_MS[1])
        if n > most:
            best, most = seed, n
    return best


def _ratio(a, b, fmt="{:.2f}x"):
    return fmt.format(a / b) if b else "-"


def run(traces=300, plot=None):
    seeds = range(1, 1 + traces)
    made = detectors()
    w = summary(evaluate(made["weigher"], seeds))
    b = summary(evaluate(made["baseline"], seeds))
    src = f"{traces} generated sessions, {w['changes']} changes"
    rows = [
        {"figure": f"changes decided right ({src})",
         "value": f"{100 * w['accuracy']:.2f} % ({w['right']}/{w['changes']})",
         "baseline": f"max-min window: {100 * b['accuracy']:.2f} % ({b['right']}/{b['changes']})",
         "ratio": f"wrong {w['changes'] - w['right']} vs {b['changes'] - b['right']}",
         "budget": {"what": "weigher: changes right", "limit": ">= 99.7 %",
                    "measured": round(100 * w["accuracy"], 2), "min": 99.7}},
        {"figure": "false events (no egg left, or an event outside every change)",
         "value": str(w["false"]), "baseline": f"max-min window: {b['false']}",
         "ratio": _ratio(w["false"], b["false"]) if b["false"] else f"{w['false']} vs 0",
         "budget": {"what": "weigher: false events", "limit": "0", "measured": w["false"], "max": 0}},
        {"figure": "latency, hand gone -> event: median",
         "value": f"{w['median_ms']} ms", "baseline": f"max-min window: {b['median_ms']} ms",
         "ratio": _ratio(w["median_ms"], b["median_ms"]),
         "budget": {"what": "weigher: latency median (ms)", "limit": "<= 250 ms", "measured": w["median_ms"],
                    "max": 250}},
        {"figure": "latency, hand gone -> event: 95th percentile",
         "value": f"{w['p95_ms']} ms (max {w['max_ms']})",
         "baseline": f"max-min window: {b['p95_ms']} ms (max {b['max_ms']})",
         "ratio": _ratio(w["p95_ms"], b["p95_ms"]),
         "budget": {"what": "weigher: latency p95 (ms)", "limit": "<= 350 ms", "measured": w["p95_ms"],
                    "max": 350}},
        {"figure": "eggs poured back: nest full again seen",
         "value": f"{w['fulls_right']}/{w['fulls']}",
         "baseline": f"max-min window: {b['fulls_right']}/{b['fulls']}",
         "ratio": _ratio(w["fulls_right"], b["fulls_right"])},
    ]
    for r in rows:
        r["section"] = "Egg weigher"
        r["command"] = f"{CMD} --traces {traces}" if traces != 300 else CMD
    if plot is not None:
        seed = plot_seed(made)
        weighplot.plot(seed, PLOT_SPAN_MS[0], PLOT_SPAN_MS[1], str(plot))
        rows[0]["plot_seed"] = seed
    return rows
