"""A readable picture of a game for the terminal: the path with its colours, who stands where,
the deck and the nest. Colours are ANSI escapes when asked for (a terminal), letters always."""

from gulo.rules import EGG_COLOURS, NEST_FULL
from nest.words import Words

_ANSI = {"G": "42;30", "Y": "43;30", "R": "41;97", "B": "44;97", "P": "45;97", "J": "47;30"}
_CELL = 3  # characters per path column
_LABEL = 9  # characters for the row labels ("Gulo 6 >", "Stapel")


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


def status_line(game, words=None):
    """What the player to act must do now, in words."""
    w = words or Words()
    if game.winner is not None:
        return w.fmt("won", g=w.gulo(game.winner))
    g = w.gulo(game.turn)
    if game.demand is not None:
        source = f"{w['for_deck']} {w.colour(game.drawn)}" if game.drawn else ""
        return w.fmt("must_take", g=g, egg=w.egg(game.demand), source=source)
    if game.on_last_tile():
        return w.fmt("last_tile", g=g)
    options = []
    if game.can_reveal():
        options.append(w.fmt("reveal_tile", k=game.revealed + 1))
    ahead = game.colours_ahead()
    if ahead:
        options.append(w.fmt("choose", cs="/".join(w.colour(c) for c in ahead)))
    return w.fmt("to_pick", g=g, options=w["or"].join(options))


def render(game, title=None, colour=False, words=None):
    """The whole picture as a string of lines."""
    w = words or Words()
    paint = Painter(colour)
    n = len(game.path)
    lines = []
    head = w.fmt("head", variant=w["variant"][game.variant], players=game.players)
    lines.append(paint.bold(f"{title}: {head}" if title else head))
    numbers = "".join(str(k).rjust(2).center(_CELL) for k in range(1, n + 1))
    label = f"{{:<{_LABEL}}}".format
    lines.append(label(w["tile"]) + "S".center(_CELL) + numbers)
    cells = [" · ".center(_CELL)]
    for k in range(1, n + 1):
        cells.append(paint.tile(game.path[k - 1]) if k <= game.revealed else " ? ")
    deck = " ".join("?" for _ in game.deck)
    drawn = ""
    if game.drawn:
        shown = paint.tile(game.drawn).strip() if colour else game.drawn
        drawn = f"  {w['turned_over']}: {shown}"
    lines.append(label(w["path"]) + "".join(cells) + f"   {w['deck']} [{deck}]{drawn}")
    for p in range(game.players):
        marker = ">" if p == game.turn and game.winner is None else " "
        if game.winner == p:
            marker = "*"
        row = [" " * _CELL] * (n + 1)
        row[game.positions[p]] = "●".center(_CELL)
        lines.append(label(f"{w.gulo(p)} {marker}") + "".join(row).rstrip())
    eggs = []
    for c in EGG_COLOURS:
        have = game.nest[c]
        eggs.append(f"{c} " + "●" * have + "○" * (NEST_FULL[c] - have))
    lines.append(label(w["nest"]) + "   ".join(eggs))
    lines.append(status_line(game, w))
    return "\n".join(lines)
