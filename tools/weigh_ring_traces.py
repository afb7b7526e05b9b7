from nest.weighscore import trace
spans = {"knocked_hold": (1251, 28000, 30400), "rung_then_rolled": (1236, 19700, 22400), "rung_level": (1034, 19300, 21300),
         "ring_before_roll": (1178, 18900, 21400)}
out = ['# Spans of the physics model (nest.physmodel, "80 SPS", development seeds of issue 13\'s third',
       '# round) where a ring or a knock met a level waiting out a possible still hold. Made by',
       '#   .venv/bin/python tools/weigh_ring_traces.py > firmware/tests/weigh_ring_traces.py',
       '# Each: (calibrated masses, [(t_ms, grams, pole seated), ...], truth: [(t hand gone, colour)]).',
       '# fmt: off', 'TRACES = {']
for name, (seed, a, b) in spans.items():
    w, s = trace("phys", seed, 80)
    m = {k: round(v, 3) for k, v in w.masses.items()}
    truth = [(e["t_ms"], e["colour"]) for e in w.truth if e["what"] == "out" and a <= e["t_ms"] <= b]
    pts = [(t, g, int(p)) for t, g, p in s if a <= t <= b]
    out.append(f'    "{name}": ({m!r}, [')
    line = "       "
    for p in pts:
        item = f" ({p[0]}, {p[1]!r}, {p[2]}),"
        if len(line) + len(item) > 100:
            out.append(line); line = "       "
        line += item
    out.append(line)
    out.append(f'    ], {truth!r}),  # seed {seed}')
out.append('}')
out.append('# fmt: on')
print("\n".join(out))
