# The nest's vocabulary, defined once: the names the firmware and the host both use. The turn
# flow, the console parser, the LED view and the hardware's wiring import it on the board; the
# `nest` tools, the play page's server and the tests import the very same module on the host
# (gulo is one installable package with nest: pyproject.toml). Plain data, no `machine`, and
# small: it is imported at boot (by the turn flow), so its few tuples sit in the heap for good.

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
