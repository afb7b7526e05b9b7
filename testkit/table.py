"""A game table for host tests: the nest model (nest.world) feeds the device's turn flow exactly
as the board's sensor tasks do: load-cell samples at 80 SPS and the reed switch's changes."""

from gulo.rules import Game
from gulo.turnflow import TurnFlow
from nest.world import NestWorld


class Table:
    def __init__(self, path="GRYBGRYBGRYBGRYBGRY", deck="GRYBJ", players=2, variant="standard",
                 seed=7, game=None):
        # A fixed deal keeps each scenario readable: the colours of the first tiles are known.
        path = path[:19]
        self.game = game or Game(players, variant, fix_counts(path, deck), deck)
        self.world = NestWorld(seed=seed)
        self.flow = TurnFlow(self.game)
        self.t = 0
        self.seated = True
        self.notes = []

    def run(self, ms):
        """Let `ms` of time pass at the table; returns the notes the flow made meanwhile."""
        made = []
        for t in self.world.sample_times(self.t, self.t + ms):
            seated = self.world.pole_is_seated(t)
            if seated != self.seated:
                self.seated = seated
                made += self.flow.pole(seated, t)
            made += self.flow.sample(t, self.world.grams(t))
        self.t += ms
        self.notes += made
        return made

    def press(self, button):
        made = self.flow.button(button, self.t)
        self.notes += made
        return made

    def settle(self, ms=1500):
        return self.run(ms)

    def outcomes(self):
        """The verdicts so far: successes and alarms (reveals and choices left out)."""
        return [n["outcome"] for n in self.notes
                if "outcome" in n and n["outcome"]["event"] in ("success", "alarm")]


def fix_counts(path, deck):
    """Make a 19-tile path legal with `deck`: swap surplus colours for the missing ones at the end."""
    from gulo.rules import TILES
    need = dict(TILES)
    for c in deck.replace("J", ""):
        need[c] -= 1
    out = []
    for c in path:
        if need[c] > 0:
            out.append(c)
            need[c] -= 1
        else:
            out.append(None)
    spare = [c for c in "GYRB" for _ in range(need[c])]
    return "".join(c if c is not None else spare.pop(0) for c in out)
