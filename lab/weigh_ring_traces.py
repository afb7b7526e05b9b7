"""Write firmware/tests/weigh_ring_traces.py: spans of the physics model (lab.physmodel, the
"80 SPS" setting) where a ring or a knock on the pole met a level waiting out a possible still
hold. They are development seeds of issue 13's third and fifth rounds (docs/weigher.md says which
seeds were for development and which for the report). The firmware tests replay them in CPython and inside
MicroPython, where numpy (and so the model) is not at hand.

    .venv/bin/python -m lab.weigh_ring_traces > firmware/tests/weigh_ring_traces.py
"""

from lab.weighscore import trace

# name: (seed, from ms, to ms, the model's parameters held: the sweep's edges); each span starts
# with the nest at rest (the weigher learns it)
SPANS = {
    "knocked_hold": (1251, 28000, 30400, {}),
    "rung_then_rolled": (1236, 19700, 22400, {}),
    "rung_level": (1034, 19300, 21300, {}),
    "ring_before_roll": (1178, 18900, 21400, {}),
    "half_lift_after_wait": (1004, 41700, 45300, {"tremor_slope": 0.05}),
    "half_lift_rung": (1015, 15300, 18400, {"zeta": 0.02}),
    # the fifth round's (development seeds 1001-1600 and 7601-7900): a free ring's calm
    "rung_before_pour": (7603, 12200, 14340, {}),
    "held_under_ring": (1433, 43000, 51000, {}),
}
WIDTH = 100


def span_lines(name, seed, a, b, over):
    world, samples = trace("phys", seed, 80, over=over)
    masses = {k: round(v, 3) for k, v in world.masses.items()}
    truth = [(e["t_ms"], e["colour"]) for e in world.truth if e["what"] == "out" and a <= e["t_ms"] <= b]
    lines = [f'    "{name}": ({masses!r}, [']
    line = "       "
    for t, g, seated in samples:
        if not a <= t <= b:
            continue
        item = f" ({t}, {g!r}, {int(seated)}),"
        if len(line) + len(item) > WIDTH:
            lines.append(line)
            line = "       "
        line += item
    lines.append(line)
    held = "".join(f", {k} {v}" for k, v in over.items())
    lines.append(f"    ], {truth!r}),  # seed {seed}{held}")
    return lines


def main():
    out = ["# Spans of the physics model (lab.physmodel, \"80 SPS\", development seeds of issue 13's",
           "# third and fifth rounds) where a ring or a knock met a level waiting out a possible still",
           "# hold. Made by",
           "#   .venv/bin/python -m lab.weigh_ring_traces > firmware/tests/weigh_ring_traces.py",
           "# Each: (calibrated masses, [(t_ms, grams, pole seated), ...], truth: [(t hand gone, colour)]).",
           "# fmt: off",
           "TRACES = {"]
    for name, (seed, a, b, over) in SPANS.items():
        out += span_lines(name, seed, a, b, over)
    out += ["}", "# fmt: on"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
