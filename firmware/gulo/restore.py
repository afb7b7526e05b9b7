# Reading the running game and the settings back from flash at boot (GameStore.resume,
# Settings(path, defaults)): a damaged or unreadable file is reported and set aside, never
# trusted.

import json
import os

from gulo import gamelog, storeread


def resume(gs):
    """GameStore.resume: the game on flash read back through its log (see there)."""
    try:
        data = storeread.load(gs.current)
    except storeread.CorruptFile as e:
        _set_aside(gs)
        return None, "game log damaged (%s): kept as game.bad" % e.reason
    if data is None:
        return None, None
    lines = data.decode().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        game = gamelog.read_log(lines)
    except gamelog.LogError as e:
        _set_aside(gs)
        return None, "game log unreadable (%s): kept as game.bad" % e
    gs.lines = lines
    return game, None


def _set_aside(gs):
    bad = gs.folder + "/game.bad"
    if _exists(bad):
        os.remove(bad)
    os.rename(gs.current, bad)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def load_settings(path, defaults):
    """Settings(path, defaults): (values, problem); a damaged file falls back to the defaults."""
    values = dict(defaults)
    try:
        data = storeread.load(path)
    except storeread.CorruptFile as e:
        return values, "%s damaged (%s): defaults used" % (path, e.reason)
    if data is None:
        return values, None
    try:
        saved = json.loads(data)
    except ValueError:
        return values, "%s is not JSON: defaults used" % path
    for k in defaults:
        if k in saved:
            values[k] = saved[k]
    return values, None
