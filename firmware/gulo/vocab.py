# The nest's vocabulary, defined once: the names the firmware and the host both use. The turn
# flow, the console parser, the LED view and the hardware's wiring import it on the board; the
# `nest` tools, the play page's server and the tests import the very same module on the host
# (gulo is one installable package with nest: pyproject.toml). Plain data and one check, no
# `machine`, and small: it is imported at boot (by the turn flow), so its few tuples sit in the heap
# for good.

# The six buttons, by the name the turn flow and the console's `press` use, in the panel's order;
# BUTTON_PIN_NAMES names each one's pin in the pin map (gulo.board.BUTTON_<NAME>), which is also the
# name the virtual board's control channel and the play page give it.
BUTTONS = ("reveal", "G", "Y", "R", "B", "menu")
BUTTON_PIN_NAMES = ("REVEAL", "GREEN", "YELLOW", "RED", "BLUE", "MENU")

# Colours by letter (the box's eggs and tiles): the path's four, and the eggs' five (purple has
# no tile: it moves a Gulo one tile). J is Gulo junior, a card of the deck, never an egg.
PATH_COLOURS = "GYRB"
EGG_COLOURS = "GYRBP"
JUNIOR = "J"

# What the turn flow reports, as {"ev": "note", "note": {KIND: ..., ...}} lines. A note's kind is
# the first of these it has as a key (a refusal also names the phase it came in, a prompt the
# eggs it asks for). Every kind here is worded by the host (nest.words, the play page's
# i18n.js; tests/test_vocab.py fails on one that is not). APP_NOTES the app carries out itself
# (an "action" line, a new game): they never reach the console as notes.
NOTES = ("refused", "prompt", "phase", "started", "menu", "nest", "error", "unchecked")
APP_NOTES = ("action", "new_game", "undo")

# The console's `leds` test patterns: a solid colour at the power budget's cap ("off" dark), a
# rainbow over the strip, or "game": the game's own picture again (gulo.commands.led_pattern).
LED_PATTERNS = ("off", "white", "red", "green", "blue", "rainbow", "game")

# A console line longer than this (bytes) is refused unread: nothing on the console needs more.
MAX_LINE = 512

# The settings (config.json) the console's `set` changes: key -> the whole numbers (lo, hi) it takes,
# or its words. Checked when set (gulo.commands) and again when loaded at boot (gulo.app), where a
# bad saved value would otherwise stop the nest at every boot (a float brightness raises in the
# lights task, a float player count in the rules).
SETTINGS: dict[str, tuple] = {"players": (2, 6), "variant": ("standard", "fast"), "volume": (0, 100),
                              "brightness": (0, 100)}


def setting_ok(key, v):
    """True if v is a good value of the setting `key`: one of its words, or a whole number in its
    range (an int: never a float such as 50.0, never a bool)."""
    allowed = SETTINGS.get(key)
    if allowed is None:
        return False
    if isinstance(allowed[0], str):
        return isinstance(v, str) and v in allowed
    return isinstance(v, int) and not isinstance(v, bool) and allowed[0] <= v <= allowed[1]
