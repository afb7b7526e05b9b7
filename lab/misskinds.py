"""What the nest was doing when the weigher missed: each wrong change of lab.weighscore's scoring
(the game's attempts), by what came before its first hand.

    .venv/bin/python -m lab.misskinds --model table --rate 80 --traces 100 --seed 1001

For every change the scorer counts wrong (not the pole's, not a pour-back's):
- one egg or several;
- the weigher at the change's first hand: at rest (a settled level to judge the change from) or
  still busy with what came before (no settled level since);
- how long before that hand the last hand before it left the nest (a take's `t_away`, a touch's
  or a pour-back's end): under AFTER_HAND_MS, the game's attempt had not even ended, so no turn
  could have begun; a game's next turn also waits for the verdict, a rest and a pick;
- a one-egg change whose egg is lighter than the colour demanded (a wrong take: the weigher waits
  _T_LONG before it names a lighter colour, docs/weigher.md).

And every false event by what a hand was doing then (`false_kind`): an egg lifted clear and held
(a touch that lifts one), another touch, a pour-back, or nothing the truth names.
"""

import argparse
import bisect
import collections

from gulo.turnflow import AFTER_HAND_MS
from gulo.weigher import Weigher
from lab.weighscore import MODELS, run, score, trace


def _at_rest_at(rest, t_ms):
    """The detector's state as the last sample at or before `t_ms` came (before it was fed), from
    `rest`: [(t_ms, at_rest after that sample)] as lab.weighscore.run records it."""
    i = bisect.bisect_right(rest, (t_ms, True)) - 1
    return rest[i - 1][1] if i >= 1 else False


def _hand_left_before(truth, t_in):
    """When the last hand before `t_in` left the nest (ms), or None."""
    ends = []
    for e in truth:
        if e["what"] == "out" and e.get("cause") != "drop":
            end = e.get("t_away", e["t_ms"])
        elif e["what"] in ("touch", "back"):
            end = e["t_ms"]
        else:
            continue
        if e["t_in"] < t_in and end <= t_in:
            ends.append(end)
    return max(ends) if ends else None


def false_kind(truth, ev):
    """What a hand was doing as a false event was said: within a touch (or up to 300 ms after its
    hand left), "lifted and held" when it lifted an egg clear, else "touch"; within a pour-back,
    "pour-back"; else "none"."""
    for e in truth:
        if e["what"] in ("touch", "back") and e["t_in"] <= ev["t_ms"] <= e["t_ms"] + 300:
            if e["what"] == "back":
                return "pour-back"
            return "lifted and held" if e.get("lifted") else "touch"
    return "none"


def kinds(model, rate, seeds, merge_ms=AFTER_HAND_MS, false=None):
    """-> ({(eggs, weigher at the first hand, since the last hand left): [wrong, all]}, wrong
    one-egg takes of a lighter colour than the demanded one that were missed). `false` (a
    Counter) gets each false event's `false_kind`."""
    rows = collections.defaultdict(lambda: [0, 0])
    lighter = 0
    for seed in seeds:
        world, samples = trace(model, seed, rate)
        rest = []
        w = Weigher(masses=world.masses, pole_g=world.pole_g)
        res = score(world.truth, run(w, samples, world.truth, rest), merge_ms, rest)
        takes = {e["t_ms"]: e for e in world.truth if e["what"] == "out"}
        if false is not None:
            false.update(false_kind(world.truth, ev) for ev in res["false_events"])
        for c in res["attempts"]:
            if c["verdict"] == "pole":
                continue   # a pole alarm whatever was weighed: not scored
            eggs = "one egg" if len(c["colours"]) == 1 else "several"
            state = "at rest" if _at_rest_at(rest, c["t_in"]) else "busy"
            left = _hand_left_before(world.truth, c["t_in"])
            if left is None:
                gap = "none before"
            else:
                gap = ("< " if c["t_in"] - left < AFTER_HAND_MS else ">= ") + f"{AFTER_HAND_MS} ms"
            row = rows[(eggs, state, gap)]
            row[1] += 1
            if c["verdict"] == "right":
                continue
            row[0] += 1
            take = takes[c["t_first"]]
            demand = take.get("demand")
            if (eggs == "one egg" and demand and demand != take["colour"]
                    and world.masses[take["colour"]] < world.masses[demand]):
                lighter += 1
    return rows, lighter


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=MODELS, default="table")
    ap.add_argument("--rate", type=int, default=80)
    ap.add_argument("--traces", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1001)
    a = ap.parse_args(argv)
    false = collections.Counter()
    rows, lighter = kinds(a.model, a.rate, range(a.seed, a.seed + a.traces), false=false)
    wrong, changes = sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values())
    print(f"{a.model} at {a.rate} SPS, {a.traces} sessions from seed {a.seed}: {wrong} of {changes} "
          f"changes wrong ({100 * (changes - wrong) / changes:.2f} % right)\n")
    print("| eggs | the weigher at the first hand | since the last hand left | wrong | changes |")
    print("|---|---|---|---|---|")
    for (eggs, state, gap), (n, m) in sorted(rows.items(), key=lambda kv: (-kv[1][0], -kv[1][1])):
        print(f"| {eggs} | {state} | {gap} | {n} | {m} |")
    late = [r for (_, _, gap), r in rows.items() if not gap.startswith("<")]
    n, m = sum(r[0] for r in late), sum(r[1] for r in late)
    print(f"\nchanges whose first hand came {AFTER_HAND_MS} ms or more after the last hand left (or "
          f"first): {m - n} of {m} right ({100 * (m - n) / max(1, m):.2f} %)")
    print(f"one egg lighter than the colour demanded (a wrong take), missed: {lighter}")
    print(f"false events, {sum(false.values())}, by what a hand was doing: "
          + ", ".join(f"{k} {n}" for k, n in false.most_common()))


if __name__ == "__main__":
    main()
