"""`nest weigh`: run the egg weigher over a load-cell trace, or generate a trace to try it on."""

import json

from nest.errors import NestError
from nest.weigh import (
    make_weigher,
    parse_masses,
    read_recording,
    read_trace,
    read_truth,
    replay,
    score_truth,
    truth_steps,
)


def add_parser(sub):
    p = sub.add_parser(
        "weigh", help="run the egg weigher over a load-cell trace (or generate one)",
        description="Run the device's egg weigher (gulo.weigher) over a recorded trace and print its "
                    "events as JSON lines. A trace is CSV with the header t_ms,grams (optionally a third "
                    "column pole: 1 seated, 0 out, and a fourth, demand: the colour the game demanded, "
                    "as `nest diag --record` writes them), one HX711 sample per row, starting with the "
                    "full nest at rest, at whatever rate it was recorded (the weigher measures it from "
                    "t_ms). A bad file is reported as FILE:LINE: reason (exit status 2).")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--replay", metavar="TRACE.csv", help="the trace to run the weigher over")
    mode.add_argument("--holds", metavar="TRACE.csv", nargs="+",
                      help="measure a still-hand drill recorded with `nest diag --holds N --record "
                           "TRACE.csv` (its marks in TRACE.csv.holds.json): is a still hand told from a "
                           "gone one on this nest? Several recordings (people, sessions) are each "
                           "measured, then pooled")
    mode.add_argument("--generate", metavar="OUT.csv",
                      help="write a random play session from the nest model (nest.world) instead; the lab's "
                           "other models: python -m lab.generate")
    p.add_argument("--plot", metavar="OUT.png",
                   help="--holds: also draw each trial, the stretches judged shaded (needs matplotlib)")
    p.add_argument("--masses", default="", metavar="G=10,P=12,...",
                   help="egg masses in grams by colour (calibration); default G=10,P=12,Y=14,R=16,B=18")
    p.add_argument("--pole-g", type=float, default=25.0, help="the pole's mass in grams (default 25)")
    p.add_argument("--seed", type=int, default=1, help="--generate: the session's seed (default 1)")
    p.add_argument("--turns", type=int, default=None, help="--generate: number of turns (default 12-20)")
    p.add_argument("--truth", metavar="TRUTH.json",
                   help="--replay: score the events against this hand-written truth (what happened, in "
                        "order: docs/weigher.md, \"Recording a real trace\"); --generate: also write the "
                        "session's truth in that format (and the model's own events)")
    p.add_argument("--no-pole", action="store_true", help="--generate: leave out the pole column")
    p.add_argument("--rate", type=int, default=None,
                   help="--generate: samples per second (default 80)")
    return p


def run(args):
    if args.holds:
        from nest.holdstudy import analyse, plot, pool, read_marks, report

        if args.plot and len(args.holds) > 1:
            raise NestError("--plot draws one drill: give it one recording", status=2)
        results = []
        for path in args.holds:
            samples = read_trace(path)
            res = analyse(samples, read_marks(path))
            results.append(res)
            if len(args.holds) > 1:
                print(f"## {path}")
            for line in report(res):
                print(line)
        if len(results) > 1:
            print("## all of them")
            for line in report(pool(results)):
                print(line)
        if args.plot:
            plot(samples, res, args.plot)
            print(f"picture: {args.plot}")
        return 0
    if args.plot:
        raise NestError("--plot draws a still-hand drill: use it with --holds", status=2)
    masses = parse_masses(args.masses)
    if args.generate:
        return _generate(args, masses)
    steps = read_truth(args.truth, masses) if args.truth else None
    samples, demands = read_recording(args.replay)
    events = replay(samples, masses, args.pole_g, demands)
    for ev in events:
        print(json.dumps(ev))
    if steps is not None:
        for line in _report(score_truth(events, steps)):
            print(line)
    return 0


def _report(res):
    """The score against the truth, as lines after the events."""
    lines = [f"# {res['right']} of {res['steps']} steps right, {len(res['wrong'])} wrong, "
             f"{len(res['false'])} false events"
             + (f" ({res['put_back']} eggs said out and put back in time: the game took them back)"
                if res.get("put_back") else "")]
    for n, (kind, eggs, t), evs in res["wrong"]:
        said = ", ".join(json.dumps(e) for e in evs) or "nothing"
        what = "+".join(eggs) if kind == "out" else kind
        at = "" if t is None else f"@{t}"
        lines.append(f"# wrong: step {n} ({what}{at}): said {said}")
    for e in res["false"]:
        lines.append(f"# false: {json.dumps(e)}")
    lat = sorted(res["latency"])
    if lat:
        p95 = lat[max(0, -(-95 * len(lat) // 100) - 1)]
        lines.append(f"# verdict after the hand left (the steps' @times): median {lat[len(lat) // 2]} ms, "
                     f"p95 {p95} ms, max {lat[-1]} ms ({len(lat)} steps)")
    return lines


def _generate(args, masses):
    from nest.tracegen import session, write_csv

    make_weigher(masses, args.pole_g)  # the same checks as for --replay
    if args.turns is not None and not 1 <= args.turns <= 1000:
        raise NestError("--turns must be between 1 and 1000", status=2)
    rate = args.rate if args.rate is not None else 80
    if not 1 <= rate <= 1000:
        raise NestError("--rate must be 1-1000 samples per second", status=2)
    world, samples = session(args.seed, turns=args.turns, masses=masses, sps=rate)
    try:
        write_csv(args.generate, samples, pole=not args.no_pole)
        if args.truth:
            with open(args.truth, "w") as f:
                json.dump({"seed": args.seed, "masses": world.masses, "noise_g": world.noise_g,
                           "steps": truth_steps(world.events()), "events": world.events()}, f, indent=1)
                f.write("\n")
    except OSError as e:
        raise NestError(f"cannot write: {e.filename}: {e.strerror}") from None
    return 0
