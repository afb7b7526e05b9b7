"""The weigher's start against a board that boots while the nest still moves (issue 4's flaky e2e
test: a green egg weighed as the purple one). Run from the repository root:

    .venv/bin/python -m lab.weigher_boot_sweep [--seeds 200] [--weigher PATH]

For each seed of the nest model: the pole is knocked, a hand seats it again (pressing it in), and
the board boots at an offset from the moment that hand leaves (negative: while it still presses);
its weigher starts 100 ms after power-up, and a steady hand takes a GREEN egg 100 ms after the
weigher is first at rest (as the e2e kit does). A boot is right when the weigher reports exactly
one event, `out: 1` green. `--weigher` scores another copy of gulo/weigher.py, e.g. an older one:
`git show REV:firmware/gulo/weigher.py > /tmp/old.py`.
"""

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from nest.weigh import load_weigher  # noqa: E402
from nest.world import NestWorld  # noqa: E402

OFFSETS_MS = (-400, -300, -200, -100, -50, 0, 50, 100, 200, 400, 800)


def boot(weigher_cls, seed, offset_ms):
    """Events of one boot `offset_ms` after the seating hand left."""
    world = NestWorld(seed=seed)
    world.knock_pole(1000)
    world.seat_pole(2000)
    t_boot = world.truth[-1]["t_leave"] + offset_ms
    w = weigher_cls(masses=world.masses, pole_g=world.pole_g)
    events, take = [], None
    k = 8  # conversions every 12.5 ms from 100 ms after power-up
    while True:
        t = k * 25 // 2
        if t > (take if take is not None else 3000) + 3000:
            return events
        w.set_pole(world.pole_is_seated(t_boot + t))
        ev = w.feed(t, world.grams(t_boot + t))
        if ev is not None:
            events.append(ev)
        if take is None and w.ready and w.at_rest:
            take = t + 100
            world.take(t_boot + take, "G", "steady")
        k += 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=200, help="seeds 1..N per offset (200)")
    ap.add_argument("--weigher", default=str(ROOT / "firmware" / "gulo" / "weigher.py"),
                    help="the weigher module to score (default: the tree's)")
    a = ap.parse_args(argv)
    cls = load_weigher(a.weigher)
    print("| boot after the seating hand left (ms) | boots | wrong | as |")
    print("|---|---|---|---|")
    total = bad_total = 0
    for off in OFFSETS_MS:
        wrong = {}
        for seed in range(1, a.seeds + 1):
            events = boot(cls, seed, off)
            if len(events) == 1 and events[0].get("colour") == "G" and events[0].get("out") == 1:
                continue
            key = ",".join(e.get("colour") or (f"out {e['out']}" if "out" in e else "full")
                           for e in events) or "nothing"
            wrong[key] = wrong.get(key, 0) + 1
        n_bad = sum(wrong.values())
        total += a.seeds
        bad_total += n_bad
        as_ = ", ".join(f"{k} {v}" for k, v in sorted(wrong.items(), key=lambda kv: -kv[1]))
        print(f"| {off} | {a.seeds} | {n_bad} | {as_ or '-'} |")
    print(f"| all | {total} | {bad_total} ({100.0 * bad_total / total:.2f} %) | |")


if __name__ == "__main__":
    main()
