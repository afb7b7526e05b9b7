# The menu of the nest's turn flow (the menu button): players and variant for a new game. Rare in
# play, so gulo.turnflow imports this module for each press and forgets it again (a .mpy's
# bytecode sits in RAM). It works on the TurnFlow's own fields: `phase` and `menu`
# ({"players": n, "variant": v, "back": the phase to go back to} while the menu is open).

from gulo.turnflow import CALIBRATE, CONFIRM, MENU


def press(flow, name):
    """A button while the menu is open, or the menu button itself: the notes it leads to."""
    if name == "menu":
        return _menu_button(flow)
    # G / Y: fewer / more players; R: the other variant; reveal: a new game with these.
    m = flow.menu
    if name == "G":
        m["players"] = max(2, m["players"] - 1)
    elif name == "Y":
        m["players"] = min(6, m["players"] + 1)
    elif name == "R":
        m["variant"] = "fast" if m["variant"] == "standard" else "standard"
    elif name == "reveal":
        return [{"new_game": _view(m)}]
    return [{"menu": _view(m)}]


def _menu_button(flow):
    if flow.phase == MENU:
        flow.phase = flow.menu["back"]
        flow.menu = {}
        return [{"menu": "closed"}]
    if flow.phase == CONFIRM:
        return [{"refused": "menu", "why": "an egg is being judged"}]
    if flow.phase == CALIBRATE:
        return [{"refused": "menu", "why": "calibrating"}]
    flow.menu = {"players": flow.game.players, "variant": flow.game.variant, "back": flow.phase}
    flow.phase = MENU
    return [{"menu": _view(flow.menu)}]


def _view(m):
    return {"players": m["players"], "variant": m["variant"]}
