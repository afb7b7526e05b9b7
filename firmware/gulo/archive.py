# Finished games on flash (games/NNNN.jsonl): archiving the running game when it ends, and the
# list and text of the archived ones for the console. Once per game or per console request, so
# the board imports this module for the call and forgets it again (a .mpy's bytecode sits in RAM).

import os

from gulo import store

KEEP_GAMES = 20  # finished games kept on flash; the oldest go first


def finish(gs):
    """GameStore.finish: archive the running game of `gs` (a gulo.gamestore.GameStore)."""
    if len(gs.lines) < 2:
        return None  # nothing was played: not worth a file
    names = logs(gs)
    n = int(names[-1].split(".")[0]) + 1 if names else 1
    name = "%04d.jsonl" % n
    store.save(gs.games + "/" + name, "\n".join(gs.lines) + "\n")
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
    from gulo.gamestore import borrow

    return borrow("storeread").load(gs.games + "/" + name).decode()
