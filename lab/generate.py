"""A trace and its truth from one of the lab's models, for `nest weigh --replay` and the scorer.

    .venv/bin/python -m lab.generate OUT.csv --model phys|lift|grip|table|hand[-open] [--rate 80|10]
                                      [--seed S] [--turns N] [--truth OUT.json] [--no-pole]

`nest weigh --generate` writes the product's own model (nest.world); these are the research models
(lab/README.md), played as lab.weighscore plays them: their players waiting for the game
(lab.closedloop), or as written (`-open`). Exit status 2 with a `generate:` line on a bad argument.
"""

import argparse
import json
import sys

from lab.weighscore import BLIND, OPEN_LOOP, blind_noise_g, trace
from nest.tracegen import write_csv

MODELS = ("phys", *BLIND, *OPEN_LOOP)


def generate(model, seed, rate=80, turns=None):
    """(samples, truth document) of one session of `model` at the HX711 setting `rate`."""
    if rate not in (10, 80):
        raise ValueError(f"--rate for --model {model} is the HX711 setting: 10 or 80")
    blind = OPEN_LOOP.get(model, model) in BLIND
    if blind and turns is not None:
        raise ValueError(f"--turns: the {model} model plays turns of its own")
    world, samples = trace(model, seed, rate, over=None if turns is None else {"turns": turns})
    if blind:
        noise_g, events = blind_noise_g(world), sorted(world.truth, key=lambda e: e["t_ms"])
    else:
        noise_g, events = world.noise_g, world.events()
    return samples, {"seed": seed, "masses": world.masses, "noise_g": noise_g, "events": events}


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
