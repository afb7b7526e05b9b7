"""`nest weigh`: run the egg weigher over a load-cell trace, or generate a trace to try it on."""

import json

from nest.errors import NestError
from nest.weigh import make_weigher, parse_masses, read_trace, replay


def add_parser(sub):
    p = sub.add_parser(
        "weigh", help="run the egg weigher over a load-cell trace (or generate one)",
        description="Run the device's egg weigher (gulo.weigher) over a recorded trace and print its "
                    "events as JSON lines. A trace is CSV with the header t_ms,grams (optionally a third "
                    "column pole: 1 seated, 0 out), one HX711 sample per row, starting with the full nest "
                    "at rest. A bad file is reported as FILE:LINE: reason (exit status 2).")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--replay", metavar="TRACE.csv", help="the trace to run the weigher over")
    mode.add_argument("--generate", metavar="OUT.csv",
                      help="write a random play session from the nest model (tracegen) instead")
    p.add_argument("--masses", default="", metavar="G=10,P=12,...",
                   help="egg masses in grams by colour (calibration); default G=10,P=12,Y=14,R=16,B=18")
    p.add_argument("--pole-g", type=float, default=25.0, help="the pole's mass in grams (default 25)")
    p.add_argument("--seed", type=int, default=1, help="--generate: the session's seed (default 1)")
    p.add_argument("--turns", type=int, default=None, help="--generate: number of turns (default 12-20)")
    p.add_argument("--truth", metavar="OUT.json", help="--generate: also write the ground truth (JSON)")
    p.add_argument("--no-pole", action="store_true", help="--generate: leave out the pole column")
    return p


def run(args):
    masses = parse_masses(args.masses)
    if args.generate:
        return _generate(args, masses)
    for ev in replay(read_trace(args.replay), masses, args.pole_g):
        print(json.dumps(ev))
    return 0


def _generate(args, masses):
    from nest.tracegen import session, write_csv

    make_weigher(masses, args.pole_g)  # the same checks as for --replay
    if args.turns is not None and not 1 <= args.turns <= 1000:
        raise NestError("--turns must be between 1 and 1000", status=2)
    world, samples = session(args.seed, turns=args.turns, masses=masses)
    try:
        write_csv(args.generate, samples, pole=not args.no_pole)
        if args.truth:
            with open(args.truth, "w") as f:
                json.dump({"seed": args.seed, "masses": world.masses, "noise_g": world.noise_g,
                           "events": world.events()}, f, indent=1)
                f.write("\n")
    except OSError as e:
        raise NestError(f"cannot write: {e.filename}: {e.strerror}") from None
    return 0
