# The parts of the rules (gulo.rules) the device needs only now and then: the box's tiles, the
# players and the variants; the deal and the set-up check (a new game, or a game log read at
# boot); and, for the host tools and tests, the state as one ordered JSON line and the legal
# actions. gulo.rules imports this module for each call and, on MicroPython, forgets it again,
# so its bytecode does not stay in RAM for the whole game.

from gulo.prng import XorShift32, shuffle
from gulo.rules import ALARM_CAUSES, EGG_COLOURS, JUNIOR, PATH_COLOURS, RuleError

VARIANTS = ("standard", "fast")
MIN_PLAYERS = 2
MAX_PLAYERS = 6
PATH_LENGTH = 19
DECK_SIZE = 5
# 23 path tiles: 6 green, 6 yellow, 6 red, 5 blue (Gulo junior comes on top of these).
TILES = {"G": 6, "Y": 6, "R": 6, "B": 5}


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


def legal_actions(game):
    """Game.legal_actions: every action legal now, as log actions (dicts)."""
    if game.winner is not None:
        return []
    if game.demand is None:
        acts = [{"do": "reveal"}] if game.can_reveal() else []
        if not game.on_last_tile():
            for c in game.colours_ahead():
                acts.append({"do": "choose", "colour": c})
        return acts
    acts = []
    for c in EGG_COLOURS:
        if game.nest[c] > 0:
            acts.append({"do": "take", "egg": c})
    for cause in ALARM_CAUSES:
        acts.append({"do": "alarm", "cause": cause})
    return acts
