"""Random play sessions on the nest model, with ground truth: the traces the weigher is scored on.

`session(seed)` scripts a NestWorld with what a table of children does: takes with every kind of
hand, fumbles without a take, a second egg rolling out after a take (or two coming out at once),
the pole knocked during a take or between turns and put back, eggs poured back after an alarm, a
last egg or now and then. It returns the world (ground truth in `world.truth`) and the samples
`[(t_ms, grams, pole_seated), ...]` at the HX711's rate, starting with the full nest at rest.
"""

from nest.world import COLOURS, HANDS, NestWorld, Rng

# how often each kind of hand takes an egg
HAND_WEIGHTS = (("steady", 40), ("shaky", 25), ("press", 15), ("hang", 20))


def _pick_hand(rng):
    r = rng.randint(0, 99)
    for hand, w in HAND_WEIGHTS:
        if r < w:
            return hand
        r -= w
    return HANDS[0]


def _pick_egg(rng, nest):
    left = [c for c in COLOURS if nest.get(c, 0) > 0]
    return rng.choice(left) if left else None


def script(world, rng, turns):
    """Script `turns` turns on `world` starting at 1.5 s; returns the end time of the session."""
    t = 1500
    for _ in range(turns):
        t += rng.randint(800, 2500)
        r = rng.random()
        if r < 0.05:
            # the pole falls between turns and is put back
            end = world.knock_pole(t)
            t = world.seat_pole(end + rng.randint(800, 2000))
            continue
        if r < 0.10:
            t = world.touch(t, _pick_hand(rng))
            continue
        colour = _pick_egg(rng, world.nest)
        leave = world.take(t, colour, _pick_hand(rng))
        t = leave
        alarm = False
        r = rng.random()
        if r < 0.10 and _pick_egg(rng, world.nest):
            # another egg rolls out a few hundred ms after the hand left
            t = max(t, world.drop(leave + rng.randint(150, 600), _pick_egg(rng, world.nest)))
            alarm = True
        elif r < 0.13 and _pick_egg(rng, world.nest):
            # the hand drags a second egg out with it
            t = max(t, world.drop(leave - rng.randint(100, 250), _pick_egg(rng, world.nest)))
            alarm = True
        elif r < 0.17:
            # the pole falls during the take
            t = max(t, world.knock_pole(leave - rng.randint(0, 300)))
            alarm = True
        out = 0
        for c in world.full:
            out += world.full[c] - world.nest[c]
        last = world.nest[colour] == 0
        if alarm or last or out >= 10 or rng.random() < 0.12:
            t += rng.randint(1000, 2500)
            if not world.pole_seated:
                t = world.seat_pole(t) + rng.randint(400, 1200)
            t = world.pour_back(t)
    return t + 2500


def session(seed, turns=None, masses=None, sps=80, noise_g=None):
    """A scripted random session; returns (world, samples). noise_g: the cell's rms noise
    (default: drawn 0.05-0.2 g per seed)."""
    world = NestWorld(seed=seed, masses=masses, sps=sps, noise_g=noise_g)
    rng = Rng(seed ^ 0x5EED5EED)
    if turns is None:
        turns = rng.randint(12, 20)
    end = script(world, rng, turns)
    samples = []
    for t in world.sample_times(0, end):
        samples.append((t, world.grams(t), world.pole_is_seated(t)))
    return world, samples


def run(detector, samples):
    """Feed samples to a detector (`feed`, `set_pole`); returns its events."""
    events = []
    for t, g, pole in samples:
        detector.set_pole(pole)
        ev = detector.feed(t, g)
        if ev is not None:
            events.append(ev)
    return events


def write_csv(path, samples, pole=True):
    """A trace file as `nest weigh --replay` reads it: `t_ms,grams[,pole]`."""
    with open(path, "w") as f:
        f.write("t_ms,grams,pole\n" if pole else "t_ms,grams\n")
        for t, g, p in samples:
            if pole:
                f.write(f"{t},{g:.3f},{1 if p else 0}\n")
            else:
                f.write(f"{t},{g:.3f}\n")
