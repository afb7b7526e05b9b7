"""A trace and its truth from one of the lab's models, for `nest weigh --replay` and the scorer.

    .venv/bin/python -m lab.generate OUT.csv --model phys|lift|grip|table [--rate 80|10] [--seed S]
                                      [--turns N] [--truth OUT.json] [--no-pole]

`nest weigh --generate` writes the product's own model (nest.world); these are the research models
(lab/README.md). Exit status 2 with a `generate:` line on a bad argument.
"""

import argparse
import importlib
import json
import sys

from lab.weighscore import BLIND, blind_noise_g
from nest.tracegen import write_csv

MODELS = ("phys", *BLIND)


def generate(model, seed, rate=80, turns=None):
    """(samples, truth document) of one session of `model` at the HX711 setting `rate`."""
    if rate not in (10, 80):
        raise ValueError(f"--rate for --model {model} is the HX711 setting: 10 or 80")
    if model in BLIND:
        if turns is not None:
            raise ValueError(f"--turns: the {model} model plays turns of its own")
        world = importlib.import_module(BLIND[model]).session(seed, setting=rate)
        noise_g, events = blind_noise_g(world), sorted(world.truth, key=lambda e: e["t_ms"])
    else:
        from lab.physmodel import session

        world = session(seed, setting=rate, turns=turns)
        noise_g, events = world.noise_g, world.events()
    return world.samples, {"seed": seed, "masses": world.masses, "noise_g": noise_g, "events": events}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m lab.generate", description=__doc__.split("\n\n")[0])
    p.add_argument("out", metavar="OUT.csv")
    p.add_argument("--model", choices=MODELS, required=True)
    p.add_argument("--rate", type=int, default=80, help="the HX711 setting: 80 (86-94/s) or 10 (10-12/s)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--turns", type=int, default=None, help="phys only: number of turns")
    p.add_argument("--truth", metavar="OUT.json", help="also write the ground truth (JSON)")
    p.add_argument("--no-pole", action="store_true", help="leave out the pole column")
    a = p.parse_args(argv)
    try:
        samples, truth = generate(a.model, a.seed, a.rate, a.turns)
    except ValueError as e:
        print(f"generate: {e}", file=sys.stderr)
        return 2
    write_csv(a.out, samples, pole=not a.no_pole)
    if a.truth:
        with open(a.truth, "w") as f:
            json.dump(truth, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
