# The game log (JSON Lines): the contract shared by the firmware, `nest replay` and the tests.
# Line 1 is the set-up, every further line one action of the player whose turn it is. Readers
# ignore keys they do not know; anything illegal or malformed is an error naming its line.

import json

from gulo.rules import Game, RuleError

ACTIONS = ("reveal", "choose", "take", "alarm")


class LogError(ValueError):
    """A log line that cannot be read or is not allowed by the rules. `line` is 1-based."""

    def __init__(self, line, reason):
        super().__init__("line %d: %s" % (line, reason))
        self.line = line
        self.reason = reason


def setup_record(game):
    """The first log line of a game that has not started yet, as a dict."""
    return {"setup": {"players": game.players, "variant": game.variant,
                      "path": game.path, "deck": game.deck}}


def encode(record):
    return json.dumps(record)


def _decode(text, line):
    try:
        obj = json.loads(text)
    except ValueError:
        raise LogError(line, "not valid JSON")
    if not isinstance(obj, dict):
        raise LogError(line, "a log line must be a JSON object")
    return obj


def game_from_setup(obj, line=1):
    """A new Game from a decoded set-up line."""
    setup = obj.get("setup")
    if not isinstance(setup, dict):
        raise LogError(line, 'the first line must be the set-up: {"setup": {...}}')
    if "do" in obj:
        raise LogError(line, "an action on the set-up line (the set-up is a line of its own)")
    for key in ("players", "variant", "path", "deck"):
        if key not in setup:
            raise LogError(line, "set-up lacks %r" % key)
    try:
        return Game(setup["players"], setup["variant"], setup["path"], setup["deck"])
    except RuleError as e:
        raise LogError(line, "bad set-up: %s" % e)


def check_action(obj, line):
    """The action of a decoded line, reduced to its known keys; LogError if malformed."""
    if "setup" in obj:
        raise LogError(line, "a second set-up line (one game per log)")
    do = obj.get("do")
    if do not in ACTIONS:
        raise LogError(line, 'unknown or missing "do" %r (reveal, choose, take or alarm)' % (do,))
    action = {"do": do}
    field = {"choose": "colour", "take": "egg", "alarm": "cause"}.get(do)
    if field is not None:
        if field in obj:
            action[field] = obj[field]
        elif do != "alarm":  # only the alarm's cause is optional
            raise LogError(line, '"%s" lacks "%s"' % (do, field))
    return action


def apply_line(game, text, line):
    """Check one action line against the rules and apply it; returns the engine's outcome."""
    action = check_action(_decode(text, line), line)
    try:
        return game.apply(action)
    except RuleError as e:
        raise LogError(line, str(e))


def read_log(lines):
    """Replay a whole log (an iterable of text lines) and return the Game as it stands.

    A final newline is fine; any other blank line is an error, like every line that is not an
    action (the device never writes one, so a blank line means the file was damaged or edited).
    """
    game = None
    pending_blank = 0
    n = 0
    for n, text in enumerate(lines, 1):
        text = text.strip()
        if not text:
            pending_blank = pending_blank or n
            continue
        if pending_blank:
            raise LogError(pending_blank, "empty line")
        if game is None:
            game = game_from_setup(_decode(text, n), n)
        else:
            apply_line(game, text, n)
    if game is None:
        raise LogError(max(n, 1), "the log is empty: it must start with a set-up line")
    return game
