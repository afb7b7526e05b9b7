"""A readable picture of a game for the terminal: the path with its colours, who stands where,
the deck and the nest. Colours are ANSI escapes when asked for (a terminal), letters always."""

from gulo.rules import EGG_COLOURS, NEST_FULL

NAMES = {"G": "green", "Y": "yellow", "R": "red", "B": "blue", "P": "purple", "J": "Gulo junior"}
_ANSI = {"G": "42;30", "Y": "43;30", "R": "41;97", "B": "44;97", "P": "45;97", "J": "47;30"}
_CELL = 3  # characters per path column


class Painter:
    def __init__(self, colour):
        self.colour = colour

    def tile(self, letter, text=None):
        text = (text or letter).center(_CELL)
        if not self.colour or letter not in _ANSI:
            return text
        return f"\x1b[{_ANSI[letter]}m{text}\x1b[0m"

    def bold(self, text):
        return f"\x1b[1m{text}\x1b[0m" if self.colour else text


def status_line(game):
    """What the player to act must do now, in words."""
    if game.winner is not None:
        return f"player {game.winner} has freed Gulo junior and wins!"
    p = game.turn
    if game.demand is not None:
        source = f" for the deck tile {game.drawn}" if game.drawn else ""
        return f"player {p} must take a {NAMES[game.demand]} egg{source} (or the alarm goes off)"
    if game.on_last_tile():
        return f"player {p} is on the last tile: turn over the deck (reveal)"
    options = []
    if game.can_reveal():
        options.append(f"reveal tile {game.revealed + 1}")
    ahead = game.colours_ahead()
    if ahead:
        options.append("choose " + "/".join(ahead))
    return f"player {p} to pick a colour: " + " or ".join(options)


def render(game, title=None, colour=False):
    """The whole picture as a string of lines."""
    paint = Painter(colour)
    n = len(game.path)
    lines = []
    head = f"{game.variant} game, {game.players} players"
    lines.append(paint.bold(f"{title}: {head}" if title else head))
    numbers = "".join(str(k).rjust(2).center(_CELL) for k in range(1, n + 1))
    lines.append("tile   " + "S".center(_CELL) + numbers)
    cells = [" · ".center(_CELL)]
    for k in range(1, n + 1):
        cells.append(paint.tile(game.path[k - 1]) if k <= game.revealed else " ? ")
    deck = " ".join("?" for _ in game.deck)
    drawn = f"  turned over: {paint.tile(game.drawn).strip() if colour else game.drawn}" if game.drawn else ""
    lines.append("path   " + "".join(cells) + f"   deck [{deck}]{drawn}")
    for p in range(game.players):
        marker = ">" if p == game.turn and game.winner is None else " "
        if game.winner == p:
            marker = "*"
        row = [" " * _CELL] * (n + 1)
        row[game.positions[p]] = "●".center(_CELL)
        lines.append(f"P{p} {marker}   " + "".join(row).rstrip())
    eggs = []
    for c in EGG_COLOURS:
        have = game.nest[c]
        eggs.append(f"{c} " + "●" * have + "○" * (NEST_FULL[c] - have))
    lines.append("nest   " + "   ".join(eggs))
    lines.append(status_line(game))
    return "\n".join(lines)
