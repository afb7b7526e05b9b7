# The turn engine: the rules of Gulo Gulo as ruled in docs/rules.md.
#
# Plain logic, no hardware: the same module runs on the ESP32, inside the MicroPython VM on the
# host and on CPython (the `nest` tool replays logs with it). Every action is checked; an illegal
# one raises RuleError and leaves the game exactly as it was.

from gulo.prng import XorShift32, shuffle
from gulo.vocab import EGG_COLOURS, JUNIOR, PATH_COLOURS

PURPLE = "P"
NEST_FULL = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}
# "called": the players called an alarm the sensors missed (docs/rules.md, "The players have the
# last word"); judged exactly like any other EGG ALARM.
ALARM_CAUSES = ("pole", "egg", "called")


class RuleError(ValueError):
    """An action or set-up that the rules do not allow; the message says why."""


def full_nest():
    return dict(NEST_FULL)


VARIANTS = ("standard", "fast")
MIN_PLAYERS = 2
MAX_PLAYERS = 6
PATH_LENGTH = 19
DECK_SIZE = 5
# 23 path tiles: 6 green, 6 yellow, 6 red, 5 blue (Gulo junior comes on top of these).
TILES = {"G": 6, "Y": 6, "R": 6, "B": 5}


# The set-up check, the deal and the state as one ordered line (for the host tools and tests).
def check_setup(players, variant, path, deck):
    """Raise RuleError unless this is a legal set-up (exactly the game's tiles, dealt as ruled)."""
    if not isinstance(players, int) or isinstance(players, bool):
        raise RuleError("players must be a whole number")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleError("players must be 2 to 6, not %d" % players)
    if variant not in VARIANTS:
        raise RuleError("variant must be 'standard' or 'fast', not %r" % (variant,))
    if not isinstance(path, str) or len(path) != PATH_LENGTH:
        raise RuleError("path must be a string of 19 tiles")
    if not isinstance(deck, str) or len(deck) != DECK_SIZE:
        raise RuleError("deck must be a string of 5 tiles")
    if deck.count(JUNIOR) != 1:
        raise RuleError("deck must hold Gulo junior (J) exactly once")
    tiles = path + deck.replace(JUNIOR, "")
    for t in tiles:
        if t not in PATH_COLOURS:
            raise RuleError("unknown tile %r (tiles are G, Y, R, B and one J in the deck)" % (t,))
    for c in PATH_COLOURS:
        if tiles.count(c) != TILES[c]:
            raise RuleError(
                "the tiles must be 6 G, 6 Y, 6 R and 5 B; found %d %s" % (tiles.count(c), c)
            )


def deal(seed):
    """(path, deck) for a seed: the same on the device and the host (see gulo.prng)."""
    rng = XorShift32(seed)
    tiles = []
    for c in PATH_COLOURS:
        tiles.extend([c] * TILES[c])
    shuffle(tiles, rng)
    deck = tiles[:4] + [JUNIOR]
    shuffle(deck, rng)
    return "".join(tiles[4:]), "".join(deck)


def _json_value(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return '"' + v + '"'  # only tile letters and variant names: nothing to escape
    return str(v)


def state_json(game):
    """The state as one JSON line with the contract's key order on every port (MicroPython's
    dicts do not keep insertion order, so json.dumps could not promise it)."""
    s = game.state()
    parts = []
    for key in ("players", "variant", "path", "revealed", "deck", "drawn"):
        parts.append('"%s": %s' % (key, _json_value(s[key])))
    parts.append('"positions": [%s]' % ", ".join([str(p) for p in s["positions"]]))
    for key in ("turn", "demand"):
        parts.append('"%s": %s' % (key, _json_value(s[key])))
    parts.append('"nest": {%s}' % ", ".join(['"%s": %d' % (c, s["nest"][c]) for c in EGG_COLOURS]))
    parts.append('"winner": %s' % _json_value(s["winner"]))
    return "{" + ", ".join(parts) + "}"


class Game:
    """One game of Gulo Gulo. The fields are the game-state contract of docs/rules.md."""

    def __init__(self, players, variant, path, deck):
        check_setup(players, variant, path, deck)
        self.players = players
        self.variant = variant
        self.path = path
        self.revealed = 0
        self.deck = deck
        self.drawn = None
        self.positions = [0] * players
        self.turn = 0
        self.demand = None
        self.nest = full_nest()
        self.winner = None
        # The players' appeal (docs/rules.md and docs/game-log.md, "The players have the last
        # word", with the rulings): the state just before the last verdict, and how many log
        # actions undo() takes back (the verdict and the picks after it). One level: an undo is
        # a correction, not a way back through the game.
        self.undo_point = None  # (snapshot, actions) or None

    @classmethod
    def new(cls, players, variant="standard", seed=1):
        path, deck = deal(seed)
        return cls(players, variant, path, deck)

    # --- what may be done now -------------------------------------------------------------

    def position(self):
        return self.positions[self.turn]

    def on_last_tile(self):
        return self.position() == len(self.path)

    def colours_ahead(self):
        """Face-up colours strictly ahead of the player to act, in path order, each once."""
        seen = ""
        for t in self.path[self.position():self.revealed]:
            if t not in seen:
                seen += t
        return seen

    def can_reveal(self):
        """True if `reveal` is legal: a face-down path tile is left, or the Gulo is on the last tile."""
        return (self.winner is None and self.demand is None
                and (self.on_last_tile() or self.revealed < len(self.path)))

    def legal_actions(self):
        """Every action legal now, as log actions (dicts): what the buttons may offer."""
        if self.winner is not None:
            return []
        if self.demand is None:
            acts = [{"do": "reveal"}] if self.can_reveal() else []
            if not self.on_last_tile():
                for c in self.colours_ahead():
                    acts.append({"do": "choose", "colour": c})
            return acts
        acts = []
        for c in EGG_COLOURS:
            if self.nest[c] > 0:
                acts.append({"do": "take", "egg": c})
        for cause in ALARM_CAUSES:
            acts.append({"do": "alarm", "cause": cause})
        return acts

    # --- actions ------------------------------------------------------------------------------
    # Each returns an outcome dict (what happened, for the LEDs, the buzzer and the console).

    def apply(self, action):
        """Apply one log action (a dict with "do"); raise RuleError if it is illegal now."""
        do = action.get("do")
        if do == "reveal":
            return self.reveal()
        if do == "choose":
            return self.choose(action.get("colour"))
        if do == "take":
            return self.take(action.get("egg"))
        if do == "alarm":
            return self.alarm(action.get("cause"))
        raise RuleError("unknown action %r (reveal, choose, take or alarm)" % (do,))

    # --- the players' appeal ---------------------------------------------------------------------

    def can_undo(self):
        return self.undo_point is not None

    def undo(self):
        """Take back the last verdict (a take, right or wrong, or an alarm) and every pick made
        after it: the game is exactly as it was just before the verdict, the same player to
        take the same colour again. Returns an outcome with "undone", the number of log actions
        taken back (the last ones of the log); RuleError if no verdict can be undone."""
        if self.undo_point is None:
            raise RuleError("no verdict to undo")
        snap, undone = self.undo_point
        (self.path, self.revealed, self.deck, self.drawn, positions, self.turn, self.demand,
         nest, self.winner) = snap
        self.positions = list(positions)
        self.nest = dict(nest)
        self.undo_point = None
        return {"event": "undo", "player": self.turn, "undone": undone, "demand": self.demand}

    def _before_verdict(self):
        # Called once a take or an alarm is known to be legal, before it changes anything.
        snap = (self.path, self.revealed, self.deck, self.drawn, list(self.positions), self.turn,
                self.demand, dict(self.nest), self.winner)
        self.undo_point = (snap, 1)

    def _after_pick(self):
        # A reveal or a choose after a verdict goes with it when the verdict is undone.
        if self.undo_point is not None:
            self.undo_point = (self.undo_point[0], self.undo_point[1] + 1)

    def _check_playing(self):
        if self.winner is not None:
            raise RuleError("the game is over: player %d has won" % self.winner)

    def reveal(self):
        self._check_playing()
        if self.demand is not None:
            raise RuleError("%s is already demanded: take an egg or sound the alarm" % self.demand)
        p = self.turn
        if self.on_last_tile():
            if not self.deck:
                raise RuleError("the deck is empty")  # cannot happen: J stays in it until won
            tile = self.deck[0]
            self.deck = self.deck[1:]
            self._after_pick()
            if tile == JUNIOR and self.variant == "fast":
                # Fast variant: finding Gulo junior wins at once, no purple egg needed.
                self.winner = p
                return {"event": "junior", "player": p, "winner": p}
            self.drawn = tile
            self.demand = PURPLE if tile == JUNIOR else tile
            return {"event": "draw", "player": p, "tile": tile, "demand": self.demand}
        if self.revealed >= len(self.path):
            raise RuleError("no face-down path tile is left: choose a colour ahead")
        self._after_pick()
        self.revealed += 1
        self.demand = self.path[self.revealed - 1]
        return {"event": "reveal", "player": p, "tile": self.revealed, "demand": self.demand}

    def choose(self, colour):
        self._check_playing()
        if self.demand is not None:
            raise RuleError("%s is already demanded: take an egg or sound the alarm" % self.demand)
        if self.on_last_tile():
            raise RuleError("on the last tile the deck must be turned over (reveal), not a colour chosen")
        if not _one_of(colour, PATH_COLOURS):
            raise RuleError("colour must be one of G, Y, R, B, not %r" % (colour,))
        if colour not in self.colours_ahead():
            raise RuleError("no face-up %s tile lies ahead of player %d" % (colour, self.turn))
        self._after_pick()
        self.demand = colour
        return {"event": "choose", "player": self.turn, "demand": colour}

    def take(self, egg):
        self._check_playing()
        if self.demand is None:
            raise RuleError("no colour is demanded yet: reveal or choose first")
        if not _one_of(egg, EGG_COLOURS):
            raise RuleError("egg must be one of G, Y, R, B, P, not %r" % (egg,))
        if self.nest[egg] == 0:
            raise RuleError("no %s egg is left in the nest" % egg)
        self._before_verdict()
        if egg != self.demand:
            # Ruling: the wrong egg is a failed attempt, exactly like an EGG ALARM.
            return self._fail("wrong egg", egg)
        p = self.turn
        start = self.positions[p]
        self.nest[egg] -= 1
        last_egg = self.nest[egg] == 0
        if last_egg:
            self.nest = full_nest()
        outcome = {"event": "success", "player": p, "egg": egg, "from": start,
                   "last_egg": last_egg}
        if self.drawn is None:
            self.positions[p] = self._nearest_ahead(start, egg)
            again = last_egg or (self.variant == "fast" and self.on_last_tile())
        elif self.drawn == JUNIOR:
            self.winner = p
            again = True
        else:
            if self.variant == "standard":
                # The deck tile joins the path face up and the Gulo jumps onto it.
                self.path += self.drawn
                self.revealed += 1
                self.positions[p] = len(self.path)
            else:
                self.deck += self.drawn
            again = True
        self.drawn = None
        self.demand = None
        outcome["to"] = self.positions[p]
        if self.winner is not None:
            outcome["winner"] = p
        elif not again:
            self._pass_turn()
        outcome["next"] = self.turn
        return outcome

    def alarm(self, cause=None):
        self._check_playing()
        if self.demand is None:
            # A pole that falls between turns costs nothing: the device just asks for it back.
            raise RuleError("no attempt is under way: an alarm needs a demanded colour")
        if cause is not None and cause not in ALARM_CAUSES:
            raise RuleError("cause must be 'pole', 'egg' or 'called', not %r" % (cause,))
        self._before_verdict()
        return self._fail(cause or "alarm", None)

    # --- helpers --------------------------------------------------------------------------------

    def _fail(self, cause, egg):
        p = self.turn
        start = self.positions[p]
        if self.drawn == JUNIOR:
            self.positions[p] = max(0, start - 1)
        else:
            self.positions[p] = self._nearest_behind(start, self.demand)
        if self.drawn is not None:
            self.deck += self.drawn  # face down under the deck
        outcome = {"event": "alarm", "player": p, "cause": cause, "demand": self.demand,
                   "from": start, "to": self.positions[p]}
        if egg is not None:
            outcome["egg"] = egg
        self.nest = full_nest()
        self.drawn = None
        self.demand = None
        self._pass_turn()
        outcome["next"] = self.turn
        return outcome

    def _nearest_ahead(self, pos, colour):
        # Never jump over a tile of the colour: the first face-up one ahead.
        for k in range(pos + 1, self.revealed + 1):
            if self.path[k - 1] == colour:
                return k
        raise RuleError("no face-up %s tile ahead" % colour)  # unreachable by construction

    def _nearest_behind(self, pos, colour):
        for k in range(pos - 1, 0, -1):
            if self.path[k - 1] == colour:
                return k
        return 0

    def _pass_turn(self):
        self.turn = (self.turn + 1) % self.players

    # --- the state contract ----------------------------------------------------------------------

    def state(self):
        """The game state as a dict (docs/rules.md, "Game state")."""
        return {
            "players": self.players,
            "variant": self.variant,
            "path": self.path,
            "revealed": self.revealed,
            "deck": self.deck,
            "drawn": self.drawn,
            "positions": list(self.positions),
            "turn": self.turn,
            "demand": self.demand,
            "nest": dict(self.nest),
            "winner": self.winner,
        }


def _one_of(value, letters):
    return isinstance(value, str) and len(value) == 1 and value in letters
