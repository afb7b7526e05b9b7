# Finished games on flash (games/NNNN.jsonl): archiving the running game when it ends, making
# room on a full flash, and the list and text of the archived ones for the console.

import os

from gulo import store, storeread

KEEP_GAMES = 20  # finished games kept on flash; the oldest go first


# Deploy's staging folder (host_tools/nest/deploy.py STAGE, JOURNAL): staged files are dead
# weight unless a journal names them (then boot.py still has a commit to finish).
_STAGE = "/.nest/stage"
_JOURNAL = "/.nest/commit.json"
_ENOSPC = 28  # errno of a full flash (littlefs LFS_ERR_NOSPC = -28, MicroPython's MP_ENOSPC)


def _spare(gs):
    """Files the nest owns and can do without, most expendable first: a deploy's stage with no
    journal, then the finished games, oldest first (the running game is never one of them)."""
    out = []
    try:
        os.stat(_JOURNAL)  # a journal: boot.py still has a commit to finish from the stage
    except OSError:
        try:
            out = [_STAGE + "/" + n for n in os.listdir(_STAGE)]
        except OSError:
            pass  # no stage
    return out + [gs.games + "/" + n for n in logs(gs)]


def make_room(gs, path, data, err):
    """GameStore.write after store.save(path, data) raised `err`: on a full flash, delete what
    _spare lists one file at a time until the write goes through. Sets gs.problem (None once
    saved) and gs.freed; returns True if the file was saved."""
    if getattr(err, "errno", None) == _ENOSPC:
        for victim in _spare(gs):
            try:
                os.remove(victim)
            except OSError:
                continue
            gs.freed.append(victim)
            try:
                store.save(path, data)
            except OSError:
                continue
            gs.problem = None
            return True
        gs.problem = "flash full: %s not saved (the game goes on in RAM; nothing left to free)" % path
    else:
        gs.problem = "cannot write %s: %s (the game goes on in RAM)" % (path, err)
    return False


def finish(gs):
    """GameStore.finish: archive the running game of `gs` (a gulo.gamestore.GameStore)."""
    if len(gs.lines) < 2:
        return None  # nothing was played: not worth a file
    names = logs(gs)
    n = int(names[-1].split(".")[0]) + 1 if names else 1
    name = "%04d.jsonl" % n
    if not gs.write(gs.games + "/" + name, "\n".join(gs.lines) + "\n"):
        return None  # not archived (the flash full): reported by the app, nothing removed
    for old in names[:max(0, len(names) + 1 - KEEP_GAMES)]:
        os.remove(gs.games + "/" + old)
    return name


def logs(gs):
    """The finished games' file names, oldest first."""
    return sorted([n for n in os.listdir(gs.games) if n.endswith(".jsonl")])


def log_text(gs, name):
    """A finished game's log as text ("current": the running game's); None if there is no such
    log. (CorruptFile if damaged.)"""
    if name == "current":
        return "\n".join(gs.lines) + "\n" if gs.lines else None
    if name not in logs(gs):
        return None
    return storeread.load(gs.games + "/" + name).decode()
