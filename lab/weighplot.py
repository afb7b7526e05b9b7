"""Plot a generated session with the weigher's and the baseline's decisions marked.

    .venv/bin/python -m lab.weighplot --seed 3 --from 0 --to 45000 --out docs/weigher-trace.png
    .venv/bin/python -m lab.weighplot --model phys --rate 10 --seed 1001 --out /tmp/p.png

Top: the load (grams) with the ground truth (dashed: hand leaves / egg gone, labelled) and the
weigher's events (solid, labelled). Bottom: the same span, the baseline's events; misreads show as
labels that differ from the truth above them. Needs matplotlib (a dev dependency).
"""

import argparse
import sys

from lab.weighscore import detectors, run, trace


def _label(ev):
    if "full" in ev:
        return "full"
    return ev["colour"] if ev["out"] == 1 else "2+"


def plot(seed, t_from, t_to, out, model="world", rate=80):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    world, samples = trace(model, seed, rate)
    made = detectors()
    wev = run(made["weigher"](world), samples, world.truth)
    bev = run(made["baseline"](world), samples, world.truth)
    span = [(t, g) for t, g, _ in samples if t_from <= t <= t_to]
    ts = [s[0] / 1000.0 for s in span]
    gs = [s[1] for s in span]
    lo = sorted(gs)[len(gs) // 200] - 8
    hi = sorted(gs)[-1 - len(gs) // 200] + 8
    fig, axes = plt.subplots(2, 1, figsize=(15, 7.5), sharex=True)
    for ax, events, name in ((axes[0], wev, "weigher (gulo.weigher)"), (axes[1], bev, "baseline (max-min)")):
        ax.plot(ts, gs, lw=0.6, color="0.25")
        ax.set_ylim(lo, hi)
        ax.set_ylabel("grams")
        where = f"{model} model, {'HX711 setting ' if model == 'phys' else ''}{rate}"
        ax.set_title(f"seed {seed} ({where}{' SPS' if model == 'phys' else '/s'}): {name}", loc="left",
                     fontsize=10)
        for e in world.events():
            if t_from <= e["t_ms"] <= t_to:
                text = {"out": e.get("colour", ""), "back": "back", "pole_out": "pole out",
                        "pole_in": "pole in", "touch": "touch"}[e["what"]]
                if e["what"] == "out" and e.get("hand") not in (None, "steady", "light"):
                    text += " " + e["hand"]
                if e["what"] == "out" and e["cause"] == "drop":
                    text += " rolls"
                if e["what"] == "out" and e.get("hold_ms"):
                    text += f" {e['hold_ms']:.0f} ms"
                ax.axvline(e["t_ms"] / 1000.0, color="tab:green", ls="--", lw=0.8)
                ax.text(e["t_ms"] / 1000.0, hi - 1, text, color="tab:green", fontsize=7, rotation=90,
                        va="top", ha="right")
        for e in events:
            if t_from <= e["t_ms"] <= t_to:
                ax.axvline(e["t_ms"] / 1000.0, color="tab:red", lw=1.0)
                ax.text(e["t_ms"] / 1000.0, lo + 1, _label(e), color="tab:red", fontsize=8, rotation=90,
                        va="bottom", ha="left")
    axes[1].set_xlabel("time (s); green dashed = truth (hand leaves / egg gone), red = detector event")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m lab.weighplot", description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--from", dest="t_from", type=int, default=0, help="start (ms)")
    p.add_argument("--to", dest="t_to", type=int, default=45000, help="end (ms)")
    p.add_argument("--out", default="weigher-trace.png")
    p.add_argument("--model", choices=("world", "phys"), default="world")
    p.add_argument("--rate", type=int, default=80, help="world: samples/s; phys: the HX711 setting, 80 or 10")
    a = p.parse_args(argv)
    print(plot(a.seed, a.t_from, a.t_to, a.out, a.model, a.rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
