"""After a knocked pole, how soon is the nest ready for the next attempt? The game's view, not the
scorer's: a knocked pole is an alarm whatever egg the weigher names (the reed says it), and the
turn flow starts the next attempt once the pole is seated and the weigher is at rest with its
deficit within tolerance (gulo.turnflow.nest_ready). For every seat of the pole in a model's
sessions with every egg back in the bowl: ms from the seat to that, or none before the next hand
comes to the nest (or within 8 s). Run from the repository root:

    .venv/bin/python -m lab.weigher_pole_game [--model grip] [--rate 80] [--seed 1] [--traces 300]
                                                [--old REV]

With --old, the weigher at that git revision is measured beside the shipped one.
"""

import argparse
import sys

from gulo.weigher import Weigher
from lab.weighscore import MODELS, percentile, trace
from nest.weigh import weigher_at

# A seat with no hand after it: a choice, past the long calm (gulo.weigher _T_LONG, 3 s) and the
# slowest seat to ready measured (3.6 s, before the pole rule: docs/weigher.md, "A knocked pole,
# as the game sees it").
LIMIT_MS = 8000


def seats(weigher_class, model, rate, seed):
    """[(t of the seat, ms to ready or None)] for one session."""
    world, samples = trace(model, seed, rate)
    truth = sorted(world.truth, key=lambda e: e["t_ms"])
    ends = []
    full = True   # every egg in the bowl (the models pour back every egg out at once)
    for i, e in enumerate(truth):
        if e["what"] in ("out", "back"):
            full = e["what"] == "back"
        if e["what"] == "pole_in" and full:
            nxt = [x.get("t_in", x["t_ms"]) for x in truth[i + 1:] if x.get("t_in", x["t_ms"]) > e["t_ms"]]
            ends.append((e["t_ms"], min(nxt + [e["t_ms"] + LIMIT_MS])))
    w = weigher_class(masses=world.masses, pole_g=world.pole_g)
    ready = {}
    for t, g, pole in samples:
        w.set_pole(pole)
        w.feed(t, g)
        if not (pole and w.at_rest and -w.tolerance_g() < w.deficit_g() < w.tolerance_g()):
            continue
        for seat, end in ends:
            if seat not in ready and seat <= t <= end:
                ready[seat] = t - seat
    return [(seat, ready.get(seat)) for seat, _ in ends]


def measure(weigher_class, model, rate, seeds):
    """{"seats", "not_ready": [(seed, t)], "ms": sorted times to ready}."""
    out = {"seats": 0, "not_ready": [], "ms": []}
    for seed in seeds:
        for seat, ms in seats(weigher_class, model, rate, seed):
            out["seats"] += 1
            if ms is None:
                out["not_ready"].append((seed, seat))
            else:
                out["ms"].append(ms)
    out["ms"].sort()
    return out


def line(name, m):
    ms = m["ms"] or [0]
    return (f"{name}: {m['seats']} seats, {len(m['not_ready'])} not ready before the next hand "
            f"{m['not_ready'][:8]}; seat -> ready median {percentile(ms, 50)} ms, "
            f"p95 {percentile(ms, 95)}, max {max(ms)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=MODELS, default="grip")
    ap.add_argument("--rate", type=int, default=80, help="the HX711 setting (80 or 10); world: samples/s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--traces", type=int, default=300)
    ap.add_argument("--old", metavar="REV", help="also measure the weigher at this git revision")
    args = ap.parse_args(argv)
    seeds = range(args.seed, args.seed + args.traces)
    print(f"{args.model} at {args.rate}, seeds {seeds[0]}-{seeds[-1]}")
    if args.old:
        print(line(args.old, measure(weigher_at(args.old), args.model, args.rate, seeds)))
    print(line("now", measure(Weigher, args.model, args.rate, seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
