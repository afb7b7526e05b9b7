# The running game, finished games (gulo.archive), config and calibration on flash, through
# gulo.store's atomic, checksummed files. After every action the whole log is rewritten
# atomically (a few KB at most), so a power cut at any instant loses at most the action in
# flight and never leaves a torn log.

import json
import os

from gulo import archive, store
from gulo.restore import load_settings, resume
from gulo.storeread import remove_leftovers


def _mkdir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # exists


class GameStore:
    def __init__(self, folder="/data"):
        self.folder = folder
        self.games = folder + "/games"
        self.current = folder + "/game.log"
        _mkdir(folder)
        _mkdir(self.games)
        self.lines = []
        self.problem = None  # a write that failed (the flash full): reported, the game in RAM
        self.freed = []      # what make_room deleted, for the app to report
        self.leftovers = remove_leftovers(folder) + remove_leftovers(self.games)

    # ---- the running game ------------------------------------------------------------------------

    def resume(self):
        """(game, None) for the game on flash, (None, None) if there is none, or (None, problem)
        when the file is damaged: it is then kept aside as game.bad and reported, never trusted."""
        return resume(self)

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

    def drop_last(self):
        """Remove the last action line of the running game's log (the players undid it: docs/
        rules.md, "The players have the last word"), atomically like every save: a power cut
        leaves the log with or without that line, each a legal log. Undo is rare, so the file is
        rewritten whole. False (nothing changed) if the log holds no action; else whether it was
        saved (a full flash: `problem` says so and the game goes on in RAM, as for record)."""
        if len(self.lines) < 2:
            return False  # the set-up line stays: it is the game
        self.lines.pop()
        return self._save()

    def _save(self):
        return self.write(self.current, "\n".join(self.lines) + "\n")

    def write(self, path, data):
        """store.save for every file the nest writes in play; never raises. A full flash
        (OSError 28) does not stop the game: room is made from what the nest owns (gulo.archive.
        make_room) and the write tried again; if it still fails, `problem` says so (the app reports
        a storage fault) and the game goes on in RAM. True if the file was saved."""
        try:
            store.save(path, data)
        except OSError as e:
            return archive.make_room(self, path, data, e)
        self.problem = None
        return True

    def finish(self):
        """Archive the running game (won, or abandoned for a new one) under games/: its name, or
        None if nothing was played (gulo.archive)."""
        return archive.finish(self)


class Settings:
    """A small JSON dict on flash with defaults; a damaged file falls back to them (and says so).
    `writer` (the GameStore, given by gulo.app.Nest) saves it as it saves the game: a full flash
    is a reported fault, never an exception out of a command."""

    def __init__(self, path, defaults, writer=None):
        self.path = path
        self.writer: "GameStore | None" = writer
        self.values, self.problem = load_settings(path, defaults)

    def save(self):
        if self.writer is not None:
            return self.writer.write(self.path, json.dumps(self.values))
        store.save(self.path, json.dumps(self.values))
        return True
