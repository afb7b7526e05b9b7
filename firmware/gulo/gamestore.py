# The running game, finished games, config and calibration on flash, through gulo.store's atomic,
# checksummed files. After every action the whole log is rewritten atomically (a few KB at most),
# so a power cut at any instant loses at most the action in flight and never leaves a torn log.

import json
import os
import sys

from gulo import store

KEEP_GAMES = 20  # finished games kept on flash; the oldest go first


def _mkdir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # exists


def forget(name):
    """Forget an imported module (sys.modules and its package's attribute), so the GC can free it
    (a .mpy's bytecode sits in RAM) once nothing else holds its functions.
    Only on MicroPython: on the host other modules hold the same module (and its LogError)."""
    if sys.implementation.name != "micropython":
        return
    sys.modules.pop(name, None)
    package, _, attr = name.rpartition(".")
    if package in sys.modules and hasattr(sys.modules[package], attr):
        delattr(sys.modules[package], attr)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


class GameStore:
    def __init__(self, folder="/data"):
        self.folder = folder
        self.games = folder + "/games"
        self.current = folder + "/game.log"
        _mkdir(folder)
        _mkdir(self.games)
        self.lines = []
        self.leftovers = store.remove_leftovers(folder) + store.remove_leftovers(self.games)

    # ---- the running game ------------------------------------------------------------------------

    def resume(self):
        """(game, None) for the game on flash, (None, None) if there is none, or (None, problem)
        when the file is damaged: it is then kept aside as game.bad and reported, never trusted."""
        try:
            data = store.load(self.current)
        except store.CorruptFile as e:
            self._set_aside()
            return None, "game log damaged (%s): kept as game.bad" % e.reason
        if data is None:
            return None, None
        lines = data.decode().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        # The log's reader (gulo.gamelog) is only needed here, once per boot: it is imported now
        # and dropped again, so its bytecode (a .mpy sits in RAM) is not kept for the whole game.
        from gulo import gamelog

        try:
            game = gamelog.read_log(lines)
        except gamelog.LogError as e:
            self._set_aside()
            return None, "game log unreadable (%s): kept as game.bad" % e
        finally:
            forget("gulo.gamelog")
        self.lines = lines
        return game, None

    def _set_aside(self):
        bad = self.folder + "/game.bad"
        if _exists(bad):
            os.remove(bad)
        os.rename(self.current, bad)

    def start(self, game, seed=None):
        # The set-up line of gulo.gamelog.setup_record (the log's contract), written here so
        # that the writer does not keep gulo.gamelog loaded.
        setup = {"players": game.players, "variant": game.variant, "path": game.path, "deck": game.deck}
        if seed is not None:
            setup["seed"] = seed
        self.lines = [json.dumps({"setup": setup})]
        self._save()

    def record(self, action, t_ms=None):
        line = dict(action)
        if t_ms is not None:
            line["t"] = t_ms
        self.lines.append(json.dumps(line))
        self._save()

    def _save(self):
        store.save(self.current, "\n".join(self.lines) + "\n")

    def finish(self):
        """Archive the running game (won, or abandoned for a new one) under games/."""
        if len(self.lines) < 2:
            return None  # nothing was played: not worth a file
        names = self.logs()
        n = int(names[-1].split(".")[0]) + 1 if names else 1
        name = "%04d.jsonl" % n
        store.save(self.games + "/" + name, "\n".join(self.lines) + "\n")
        for old in names[:max(0, len(names) + 1 - KEEP_GAMES)]:
            os.remove(self.games + "/" + old)
        return name

    # ---- finished games ----------------------------------------------------------------------------

    def logs(self):
        return sorted([n for n in os.listdir(self.games) if n.endswith(".jsonl")])

    def log_text(self, name):
        """A finished game's log as text; None if there is no such log. (CorruptFile if damaged.)"""
        if name == "current":
            return "\n".join(self.lines) + "\n" if self.lines else None
        if name not in self.logs():
            return None
        return store.load(self.games + "/" + name).decode()


class Settings:
    """A small JSON dict on flash with defaults; a damaged file falls back to them (and says so)."""

    def __init__(self, path, defaults):
        self.path = path
        self.values = dict(defaults)
        self.problem = None
        try:
            data = store.load(path)
        except store.CorruptFile as e:
            self.problem = "%s damaged (%s): defaults used" % (path, e.reason)
            return
        if data is None:
            return
        try:
            saved = json.loads(data)
        except ValueError:
            self.problem = "%s is not JSON: defaults used" % path
            return
        for k in defaults:
            if k in saved:
                self.values[k] = saved[k]

    def save(self):
        store.save(self.path, json.dumps(self.values))
