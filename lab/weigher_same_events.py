"""Does a change to the egg weigher decide exactly as before? For a change meant to cost less and
decide the same (docs/weigher.md, "Cost on the device"), both weighers are fed every session of a
model and their events compared, to the millisecond. Run from the repository root:

    .venv/bin/python -m lab.weigher_same_events --old REV [--model phys] [--rate 80]
                                                  [--seed 7601] [--traces 200]
    .venv/bin/python -m lab.weigher_same_events --old-file PATH ...

Prints each session whose events differ (the events only one of the two gave) and the count; the
exit status is 1 when any differ, so a script can tell.
"""

import argparse
import sys

from gulo.weigher import Weigher
from lab.weighscore import MODELS, trace
from nest.tracegen import run
from nest.weigh import load_weigher, weigher_at


def differing(old_class, model, rate, seeds):
    """[(seed, events only the old weigher gave, events only the new one gave)]."""
    out = []
    for seed in seeds:
        world, samples = trace(model, seed, rate)
        old = run(old_class(masses=world.masses, pole_g=world.pole_g), samples)
        new = run(Weigher(masses=world.masses, pole_g=world.pole_g), samples)
        if old != new:
            out.append((seed, [e for e in old if e not in new], [e for e in new if e not in old]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    old = ap.add_mutually_exclusive_group(required=True)
    old.add_argument("--old", metavar="REV", help="git revision of the weigher to compare with")
    old.add_argument("--old-file", metavar="PATH", help="or a weigher.py to compare with")
    ap.add_argument("--model", choices=MODELS, default="phys")
    ap.add_argument("--rate", type=int, default=80,
                    help="phys: the HX711 setting (80 or 10); world: samples/s (default 80)")
    ap.add_argument("--seed", type=int, default=7601, help="first seed (default 7601)")
    ap.add_argument("--traces", type=int, default=200, help="sessions (default 200)")
    args = ap.parse_args(argv)
    old_class = weigher_at(args.old) if args.old else load_weigher(args.old_file)
    seeds = range(args.seed, args.seed + args.traces)
    diffs = differing(old_class, args.model, args.rate, seeds)
    for seed, only_old, only_new in diffs:
        print(f"seed {seed}: only before {only_old}; only now {only_new}")
    print(f"{args.model} at {args.rate}, seeds {seeds.start}-{seeds.stop - 1}: "
          f"{len(diffs)} of {len(seeds)} sessions decide differently")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
