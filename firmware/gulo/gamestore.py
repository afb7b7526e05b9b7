# The running game, the finished games, config and calibration on flash (gulo.store's files).
#
# The running game's log (game.log) is appended to, one sealed line per action (gulo.store.seal):
# never rewritten in play, so no write grows with the game and no copy of the whole log is built
# in RAM. `record` only queues the line; `flush`, called by the app's writer task after the siren
# and the lights have run (gulo.app.Nest.handle), puts it on flash. A power cut loses at most the
# action in flight (queued or half appended: a torn last line is dropped at boot, `resume`).
# The set-up line is written once, as the whole new file, by `start`; a finished game is copied
# whole to games/NNNN.jsonl (`finish`); undo (`drop_last`, rare) rewrites the log atomically.
# Config and calibration (Settings) stay whole files behind a checksummed header.

import json
import os

from gulo import store
from gulo.gamelog import LogError, read_log, setup_record
from gulo.store import CorruptFile
from gulo.vocab import EGG_COLOURS
from gulo.weigher import Weigher

KEEP_GAMES = 20  # finished games kept on flash; the oldest go first

# Deploy's staging folder (host_tools/nest/deploy.py STAGE, JOURNAL): staged files are dead
# weight unless a journal names them (then main.py still has a commit to finish).
_STAGE = "/.nest/stage"
_JOURNAL = "/.nest/commit.json"
_ENOSPC = 28  # errno of a full flash (littlefs LFS_ERR_NOSPC = -28, MicroPython's MP_ENOSPC)


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
        self.queue = []        # action lines (JSON text) recorded and not yet on flash
        self.actions = 0       # action lines in the running game's log, queued ones included
        self.torn = False      # an append failed half-way: the next flush rewrites the log whole
        self.fresh = False     # the set-up line is queued: the next flush writes a new log of the queue
        self.archived = None   # the running game's name under games/ once finished
        self.closing = False   # won: flush archives the game after its last line
        self.problem = None    # a write that failed (the flash full): reported, the game in RAM
        self.freed = []        # what make_room deleted, for the app to report
        # What boot found and set right, as `recovered` events: the .tmp of interrupted whole-file
        # writes, a torn last line of the log (resume).
        self.recovered = [{"ev": "recovered", "file": n}
                          for n in store.remove_leftovers(folder) + store.remove_leftovers(self.games)]

    # ---- the running game ------------------------------------------------------------------------

    def resume(self):
        """(game, None) for the game on flash, (None, None) if there is none, or (None, problem)
        when the log is damaged before its last line or does not replay: it is then kept aside as
        game.bad and reported, never trusted. A torn or damaged last line (a power cut during its
        append) is dropped, the log rewritten without it, and reported in `recovered`."""
        try:
            lines, dropped = store.load_lines(self.current)
        except CorruptFile as e:
            self._set_aside()
            return None, "game log damaged (%s): kept as game.bad" % e.reason
        if lines is None:
            return None, None
        try:
            game = read_log(lines)
        except LogError as e:
            self._set_aside()
            return None, "game log unreadable (%s): kept as game.bad" % e
        if dropped or not store.sealed(self.current):
            # Rewritten whole once (rare), so the next append does not follow the torn piece, or
            # (a log an earlier firmware wrote whole) goes on as sealed lines.
            if not self._write(store.replace, self.current, *[store.seal(t) + "\n" for t in lines]):
                self.torn = True  # the flash full: the first flush rewrites it (problem says so)
        if dropped:
            self.recovered.append({"ev": "recovered", "file": "game.log", "detail": dropped})
        self.actions = len(lines) - 1
        return game, None

    def _on_flash(self):
        """The running game's lines on flash (unsealed), none while its set-up line is queued.
        CorruptFile if the log was damaged since the boot read it."""
        lines = []  # type: list[str]
        self._each_on_flash(lines.append)
        return lines

    def _each_on_flash(self, each):
        """_on_flash's lines one at a time, to each(text); returns how many."""
        return 0 if self.fresh else store.read_lines(self.current, each)[0] or 0

    def _damaged(self, e):
        self.problem = "game log damaged in play (%s): the game goes on in RAM" % e.reason
        return False

    def _set_aside(self):
        bad = self.folder + "/game.bad"
        if store.exists(bad):
            os.remove(bad)
        os.rename(self.current, bad)

    def start(self, game, seed=None):
        """A new game's log: its set-up line, the whole new file (written once, atomically; if the
        flash is full, it stays queued, and the first flush that can writes it with the actions)."""
        setup = setup_record(game)
        if seed is not None:
            setup["setup"]["seed"] = seed
        self.queue = [json.dumps(setup)]
        self.actions = 0
        self.torn = False
        self.fresh = True
        self.archived = None
        self.closing = False
        self.flush()

    def record(self, action, t_ms=None):
        """Queue one action's line; `flush` writes it. No flash here: this runs on the alarm's path."""
        line = dict(action)
        if t_ms is not None:
            line["t"] = t_ms
        self.queue.append(json.dumps(line))
        self.actions += 1

    def flush(self):
        """Put the queued lines on flash, one append each (the app's writer task calls this once
        the siren and the lights have run), then archive the game if `close` asked for it. On a
        failed write the lines stay queued (the game in RAM, `problem` says why) and the next
        flush tries again. True once nothing is left to write."""
        while self.queue:
            if self.torn or self.fresh:
                # A new game's log, or one a failed append may have left part of a line in:
                # written whole (without that part), making room if the nest can.
                try:
                    lines = self._on_flash()
                except CorruptFile as e:
                    return self._damaged(e)
                chunks = [store.seal(t) + "\n" for t in lines + self.queue]
                if not self._write(store.replace, self.current, *chunks):
                    return False
                self.torn = self.fresh = False
                self.queue = []
                break
            try:
                store.append(self.current, store.seal(self.queue[0]))
            except OSError:
                self.torn = True  # the rewrite above says what failed and makes room
                continue
            self.problem = None
            self.queue.pop(0)
        if self.closing:
            self.closing = False
            self.finish()
        return True

    def unsaved(self):
        """Lines recorded and not yet on flash: 0 when a power cut now would lose nothing."""
        return len(self.queue)

    def close(self):
        """The game is won: archive it once its last lines are written (by `flush`)."""
        self.closing = True

    def take_freed(self):
        """What make_room deleted since the last call (for the app to report), and forget it."""
        freed, self.freed = self.freed, []
        return freed

    def drop_last(self, n=1):
        """Undo: remove the last `n` action lines (the undone verdict and the picks after it) from
        the running game's log on flash, in one atomic rewrite (undo is rare): a power cut during
        it loses nothing but the undo. False if the log holds fewer actions. A game archived as
        finished is no longer finished: its copy goes."""
        if n < 1 or self.actions < n:
            return False
        self.closing = False  # the last verdict was the win: the game is no longer over
        if not self.flush():
            # Flash failing: the lines still queued go from the queue (the game in RAM).
            while n and self.queue:
                self.queue.pop()
                self.actions -= 1
                n -= 1
            if not n:
                return True
        try:
            lines = self._on_flash()
        except CorruptFile as e:
            return self._damaged(e)
        if len(lines) < n + 1:
            return False
        kept = lines[:-n]
        if not self._write(store.replace, self.current, *[store.seal(t) + "\n" for t in kept]):
            return False
        self.actions -= n
        if self.archived:
            try:
                os.remove(self.games + "/" + self.archived)
            except OSError:
                pass
            self.archived = None
        return True

    def write(self, path, data):
        """store.save (a whole file behind a header) for the settings; never raises (see _write)."""
        return self._write(store.save, path, data)

    def _write(self, how, path, *data):
        """how(path, *data) (store.save, replace or copy), never raising. A full flash (OSError
        28) does not stop the game: room is made from what the nest owns (_spare) and the write
        tried again; if it still fails, `problem` says so (the app reports a storage fault) and
        the game goes on in RAM. True if the file was written."""
        try:
            how(path, *data)
        except OSError as e:
            return self._make_room(how, path, data, e)
        self.problem = None
        return True

    def _make_room(self, how, path, data, err):
        if getattr(err, "errno", None) == _ENOSPC:
            for victim in self._spare():
                try:
                    os.remove(victim)
                except OSError:
                    continue
                self.freed.append(victim)
                try:
                    how(path, *data)
                except OSError:
                    continue
                self.problem = None
                return True
            self.problem = "flash full: %s not saved (the game goes on in RAM; nothing left to free)" % path
        else:
            self.problem = "cannot write %s: %s (the game goes on in RAM)" % (path, err)
        return False

    def _spare(self):
        """Files the nest owns and can do without, most expendable first: a deploy's stage with no
        journal, then the finished games, oldest first (the running game is never one of them)."""
        out = []
        if not store.exists(_JOURNAL):  # a journal: main.py still has a commit to finish
            try:
                out = [_STAGE + "/" + n for n in os.listdir(_STAGE)]
            except OSError:
                pass  # no stage
        return out + [self.games + "/" + n for n in self.logs()]

    # ---- finished games ----------------------------------------------------------------------------

    def finish(self):
        """Archive the running game (won, or abandoned for a new one) under games/: its name, or
        None if nothing was played or it could not be saved (the flash full: reported). The log is
        copied as it is on flash, sealed lines and all; the running game's log stays until the next
        `start`, so a won game still resumes as won."""
        if self.archived:
            return self.archived  # finished once already (won, then a new game asked for)
        if self.actions < 1 or not self.flush():
            return None  # nothing was played, or the flash holds only part of it
        names = self.logs()
        n = int(names[-1].split(".")[0]) + 1 if names else 1
        name = "%04d.jsonl" % n
        if not self._write(store.copy, self.games + "/" + name, self.current):
            return None  # not archived (the flash full): reported by the app, nothing removed
        self.archived = name
        for old in names[:max(0, len(names) + 1 - KEEP_GAMES)]:
            os.remove(self.games + "/" + old)
        return name

    def logs(self):
        """The finished games' file names, oldest first."""
        return sorted([n for n in os.listdir(self.games) if n.endswith(".jsonl")])

    def log_each(self, name, each):
        """Calls each(text) for every line of a game's log, without the seals, one line at a time
        ("current": the running game's, queued lines included); returns how many, or None if there
        is no such log. CorruptFile if an archived game is damaged anywhere: it was written whole,
        so even a torn last line is damage."""
        if name == "current":
            n = self._each_on_flash(each)
            for text in self.queue:
                each(text)
            return n + len(self.queue) or None
        if name not in self.logs():
            return None
        path = self.games + "/" + name
        n, dropped = store.read_lines(path, each)
        if dropped:
            raise CorruptFile(path, dropped.replace(": dropped", ""))
        return n


class Settings:
    """A small JSON dict on flash with defaults; a damaged file falls back to them (and says so).
    `ok(key, value)` checks each saved value: one it refuses is replaced by its default and named
    in `problem` (a value that passed the console's check once may not pass today's firmware, and
    the file is read at every boot: a bad one must not stop the nest for good). `writer` (the
    GameStore, given by gulo.app.Nest) saves it as it saves the game: a full flash is a reported
    fault, never an exception out of a command."""

    def __init__(self, path, defaults, writer=None, ok=None):
        self.path = path
        self.writer: "GameStore | None" = writer
        self.values = dict(defaults)
        self.problem = None
        try:
            data = store.load(path)
        except CorruptFile as e:
            self.problem = "%s damaged (%s): defaults used" % (path, e.reason)
            return
        if data is None:
            return
        try:
            saved = json.loads(data)
        except ValueError:
            self.problem = "%s is not JSON: defaults used" % path
            return
        if not isinstance(saved, dict):
            self.problem = "%s is not a JSON object: defaults used" % path
            return
        bad = []
        for k in defaults:
            if k not in saved:
                continue
            if ok is None or ok(k, saved[k]):
                self.values[k] = saved[k]
            else:
                bad.append(k)
        if bad:
            self.problem = "%s: bad %s: default used" % (path, ", ".join(bad))

    def save(self):
        if self.writer is not None:
            return self.writer.write(self.path, json.dumps(self.values))
        store.save(self.path, json.dumps(self.values))
        return True


def calibration_ok(key, v):
    """True if v is a usable saved calibration value (calib.json is read at every boot: a value the
    scale or the weigher cannot use would stop the nest at every boot)."""
    if isinstance(v, bool):
        return key == "tare_pole"
    if key == "offset":
        return isinstance(v, int)
    if key == "counts_per_g":  # a number, finite (v - v is nan for inf and nan) and not zero
        return isinstance(v, (int, float)) and v - v == 0 and v != 0
    if key == "masses":
        if not isinstance(v, dict) or sorted(v) != sorted(EGG_COLOURS):
            return False
        for c in v:
            m = v[c]
            if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0.5 <= m <= 5000:
                return False
        try:
            Weigher(v)  # its own check: any two eggs outweigh any one
        except ValueError:
            return False
        return True
    return key == "tare_pole" and v is None
