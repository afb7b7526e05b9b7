# The turn engine: the rules of Gulo Gulo as ruled in docs/rules.md (shared design docs).
#
# Plain logic, no hardware: the same module runs on the ESP32, inside the MicroPython VM on the
# host and on CPython (the `nest` tool replays logs with it). Every action is checked; an illegal
# one raises RuleError and leaves the game exactly as it was.

from gulo.vocab import EGG_COLOURS, JUNIOR, PATH_COLOURS

PURPLE = "P"
# The box's tiles, the players and the variants are gulo.rulebook's (the deal, the set-up check).
NEST_FULL = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}
ALARM_CAUSES = ("pole", "egg")


class RuleError(ValueError):
    """An action or set-up that the rules do not allow; the message says why."""


def full_nest():
    return dict(NEST_FULL)


# The deal, the set-up check and state_json live in gulo.rulebook: a game is set up once (at a
# new game, or when a log is read at boot) and state_json is for the host tools, so the device
# imports it for the call and forgets it again (a .mpy's bytecode sits in RAM: heap budget).
def _rulebook():
    from gulo.gamestore import borrow, forget  # loaded at boot anyway; no-ops on the host

    rulebook = borrow("rulebook")
    forget("gulo.prng")  # rulebook's own import
    return rulebook


def check_setup(players, variant, path, deck):
    """Raise RuleError unless this is a legal set-up (exactly the game's tiles, dealt as ruled)."""
    _rulebook().check_setup(players, variant, path, deck)


def deal(seed):
    """(path, deck) for a seed: the same on the device and the host (see gulo.prng)."""
    return _rulebook().deal(seed)


def state_json(game):
    """The state as one JSON line with the contract's key order on every port."""
    return _rulebook().state_json(game)


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
        """Every action legal now, as log actions (dicts): what the buttons may offer. (For the
        host tools and tests: in gulo.rulebook, like the deal.)"""
        return _rulebook().legal_actions(self)

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
            if tile == JUNIOR and self.variant == "fast":
                # Fast variant: finding Gulo junior wins at once, no purple egg needed.
                self.winner = p
                return {"event": "junior", "player": p, "winner": p}
            self.drawn = tile
            self.demand = PURPLE if tile == JUNIOR else tile
            return {"event": "draw", "player": p, "tile": tile, "demand": self.demand}
        if self.revealed >= len(self.path):
            raise RuleError("no face-down path tile is left: choose a colour ahead")
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
            raise RuleError("cause must be 'pole' or 'egg', not %r" % (cause,))
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
