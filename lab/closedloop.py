"""The players wait for the game: a model's session in which every hand that follows the game comes
no earlier than the game lets it (a closed loop between the players and the nest).

On the device a turn begins with a pick (Reveal or a colour, docs/rules.md), and the buttons pick
only once the game has judged the last egg and the nest is at rest (gulo.turnflow: CONFIRM,
SETTLE, PICK); after an alarm, the eggs go back once the game has called it. A model that plays
from a script of its own can begin the next turn while the game still judges the last one (the
game then takes the new hand for the same player's: gulo.turnflow reopens the attempt, and no
weigher can tell two players from one), or pour the eggs back before the game has seen the egg
that failed. So the hands of a model that takes `waits` (its `session(seed, setting,
waits={k: s})` and `.starts`: [(the hand's time, the end of what came before it)], ms) are moved
later until the game is free when each comes, each keeping the model's own delay after that:

1. every start waits FAR_S: the game is free long before each, so when it became free after what
   came before is measured clean (no next hand in the way);
2. each waits that long, and REACT_S more to see it; the session is played again;
3. a hand that still came while the game was not free (the new noise moved a calm) waits the
   rest, up to PASSES plays; any left are counted (`early`).

The game's timing comes from the product's weigher (gulo.weigher), whichever detector is scored
on the session: the same sessions for every detector.

    .venv/bin/python -m lab.closedloop --model table --rate 10 --traces 30
    .venv/bin/python -m lab.closedloop --model hand-open --busy --traces 30   # turns begun early
"""

import argparse
import bisect
from operator import itemgetter

from gulo.turnflow import AFTER_HAND_MS, MOVING_MAX_MS
from gulo.weigher import Weigher

# Longer than the game takes to be free after a hand leaves: its attempt ends AFTER_HAND_MS after
# the calm (seen up to 0.4 s later: Weigher.lag_ms), MOVING_MAX_MS more at most while the nest
# moves (gulo.turnflow), plus 2 s for the calm and the lag (ASSUMED; a hand the far wait did not
# keep clear is caught by the later plays and `early`).
FAR_S = (AFTER_HAND_MS + MOVING_MAX_MS) / 1000 + 2.0
PASSES = 4
# A player sees (the chime, the LEDs) that the game is free, then begins: a simple visual reaction
# takes 213 ms on average (Woods et al. 2015, Front. Hum. Neurosci. 9:131, 1,469 adults).
REACT_S = 0.2
_time = itemgetter(0)      # a (t_ms, ...) row's time, for bisect


class Hands:
    """For a model's script, its times in units of `unit_s` seconds: the hands that follow the
    game. `after(t, delay)` is the next such hand's time: `delay` after t as the script has it,
    later by what the game makes it wait (`waits`: {k: s} for the k-th; no draw, so the script
    plays the same game). `starts` gets (its time, t) in ms; `waited` is the time waited so far,
    in the script's units."""

    def __init__(self, waits=None, unit_s=1.0):
        self.waits = waits or {}
        self.unit_s = unit_s
        self.starts = []
        self.waited = 0.0
        self.most_s = sum(self.waits.values())   # the longest a script is made late: its buffers' room

    def after(self, t, delay):
        wait = float(self.waits.get(len(self.starts), 0.0)) / self.unit_s
        self.waited += wait
        t_next = t + wait + delay
        ms = 1000 * self.unit_s
        self.starts.append((int(round(t_next * ms)), int(round(t * ms))))
        return t_next


def free_times(world, samples):
    """[(t_ms, the game free)] after each sample: the weigher (told the demands as the game tells
    it) at rest and no egg it said still judged, as lab.weighscore.run follows the game."""
    from lab.weighscore import run

    ready = []
    run(Weigher(masses=world.masses, pole_g=world.pole_g), samples, world.truth, None, ready)
    return ready


def _free_after(ready, t_ms):
    """The first moment at or after `t_ms` at which the game is free (None: never again)."""
    for i in range(bisect.bisect_left(ready, t_ms, key=_time), len(ready)):
        if ready[i][1]:
            return ready[i][0]
    return None


def _waits(s, ready, waits=None):
    """Each start's wait for the game ({k: s}): the first play (`waits` None) measures the game's
    delay, from the end of what came before until it is free (plus REACT_S, when it was not free
    at once); a later play adds what a hand still lacked where it came before the game was free.
    -> (waits, hands that came early)."""
    new = dict(waits or {})
    early = 0
    for k, (hand, after) in enumerate(s.starts):
        free = _free_after(ready, after)
        if waits is None:
            # never free again (the weigher lost the nest): the hand keeps the far wait
            new[k] = FAR_S if free is None else (free - after) / 1000 + (REACT_S if free > after else 0)
        elif free is not None and hand < free:
            new[k] += (free - hand) / 1000 + REACT_S
            early += 1
    return new, early


def session(module, seed, setting=80, over=None):
    """One session of `module` (a model with `waits`) with its hands waiting for the game ->
    (session, samples); session.early counts hands that still came before the game was free after
    PASSES plays, session.waits what each waited (s)."""
    over = dict(over or {})
    # (played once as written only to count its hands: the far waits size the model's buffers)
    n = len(module.session(seed, setting, **over).starts)
    s = module.session(seed, setting, waits=dict.fromkeys(range(n), FAR_S), **over)
    waits, _ = _waits(s, free_times(s, s.samples))
    for play in range(2, PASSES + 1):
        s = module.session(seed, setting, waits=waits, **over)
        more, early = _waits(s, free_times(s, s.samples), waits)
        if not early or play == PASSES:
            break
        waits = more
    s.early = early
    s.waits = waits
    return s, s.samples


def busy_picks(model, rate, seeds):
    """(turns whose first hand came while the game was not free, turns): any model of
    lab.weighscore as it plays it, each turn's first hand as lab.weighscore.demands has it."""
    from lab.weighscore import demands, trace

    busy = turns = 0
    for seed in seeds:
        world, samples = trace(model, seed, rate)
        ready = free_times(world, samples)
        for t_pick, _ in demands(world.truth)[1:]:
            i = bisect.bisect_left(ready, t_pick, key=_time) - 1
            turns += 1
            busy += i >= 0 and not ready[i][1]
    return busy, turns


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="table")
    ap.add_argument("--rate", type=int, default=80, choices=(80, 10))
    ap.add_argument("--seed", type=int, default=1001)
    ap.add_argument("--traces", type=int, default=10)
    ap.add_argument("--busy", action="store_true",
                    help="any model: how many turns began while the game was not free")
    a = ap.parse_args(argv)
    from lab.weighscore import MODELS, model_module, waits_for_game

    if a.model not in MODELS:
        ap.error(f"--model: one of {', '.join(MODELS)}")
    seeds = range(a.seed, a.seed + a.traces)
    if a.busy:
        busy, turns = busy_picks(a.model, a.rate, seeds)
        print(f"{a.model} at {a.rate} SPS, {a.traces} sessions: {busy} of {turns} turns began while "
              f"the game was not free ({100 * busy / max(1, turns):.1f} %)")
        return
    if not waits_for_game(a.model):
        ap.error(f"--model {a.model}: its session takes no waits")
    hands = early = 0
    waited = []
    for seed in seeds:
        s, _ = session(model_module(a.model), seed, a.rate)
        hands += len(s.starts)
        early += s.early
        waited += s.waits.values()
    waited.sort()
    print(f"{a.model} at {a.rate} SPS, {a.traces} sessions: {hands} hands that follow the game; "
          f"still early after {PASSES} plays: {early}; each waited for the game beyond the model's "
          f"own delay: median {waited[len(waited) // 2]:.2f} s, max {waited[-1]:.2f} s")


if __name__ == "__main__":
    main()
