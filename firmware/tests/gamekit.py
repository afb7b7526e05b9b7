# Helpers for the rules tests: build games with a chosen deal. Plain MicroPython, like the tests.

from gulo.rules import PATH_COLOURS, TILES, Game

# The prompt of an uncalibrated nest resuming a game under way (gulo.turnflow keeps its text inline
# to save heap; the host's copy is testkit.boardkit.POUR_CONFIRM)
POUR_CONFIRM = "pour every egg back, then press Reveal"


def tiles_left(used):
    """The path colours left over once `used` is dealt, in G Y R B order."""
    rest = ""
    for c in PATH_COLOURS:
        n = TILES[c] - used.count(c)
        assert n >= 0, "too many %s tiles in %r" % (c, used)
        rest += c * n
    return rest


def game_with(path_start, deck="GYRBJ", players=2, variant="standard"):
    """A game whose path starts with `path_start`; the rest of the path is filled with the
    tiles left over, so the set-up stays legal."""
    used = path_start + deck.replace("J", "")
    path = path_start + tiles_left(used)
    return Game(players, variant, path, deck)


def play(game, *actions):
    """Apply actions written as short strings: 'reveal', 'choose R', 'take R', 'alarm pole'."""
    out = None
    for a in actions:
        words = a.split()
        act = {"do": words[0]}
        if len(words) > 1:
            act[{"choose": "colour", "take": "egg", "alarm": "cause"}[words[0]]] = words[1]
        out = game.apply(act)
    return out


def raises(exc, fn, *args):
    """True if fn(*args) raises exc (no pytest on the board, so no pytest.raises)."""
    try:
        fn(*args)
    except exc:
        return True
    return False


def caught(exc, fn, *args):
    """The exc that fn(*args) raised, or None if it raised none."""
    try:
        fn(*args)
    except exc as e:
        return e
    return None


def put_on_last_tile(game, player):
    """End-game set-up: every path tile face up and `player` on the last one. Reaching it by play
    is tested separately (test_reaching_the_last_tile_*); here it only saves a long preamble."""
    game.revealed = len(game.path)
    game.positions[player] = len(game.path)
    game.turn = player


def log_lines(gs, name):
    """A GameStore's log `name` as a list of lines (GameStore.log_each), None if there is none."""
    lines = []  # type: list[str]
    return None if gs.log_each(name, lines.append) is None else lines
