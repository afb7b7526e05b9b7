# A new game on the nest: a fresh seed, the deal, the log's set-up line on flash, and the settings
# remember the players and the variant. At boot when flash holds no game, from the menu and from
# the console: rare, so the board imports this module for the call and forgets it again (a .mpy's
# bytecode sits in RAM).

import time

import machine

from gulo.rules import Game


def deal(nest, players, variant, seed=None):
    """A new Game, with its set-up line written to flash (seed None: a fresh one from the chip's
    id and the time)."""
    if seed is None:
        seed = int.from_bytes(machine.unique_id(), "little") ^ time.ticks_diff(time.ticks_us(), 0)
        seed &= 0x3FFFFFFF
    game = Game.new(players, variant, seed)
    nest.store.start(game, seed)
    return game


def start(nest, players, variant, seed, t_ms):
    """Nest.start_game: the running game archived, a new one dealt; the flow waits for a full
    nest before the first turn."""
    nest.store.finish()
    game = deal(nest, players, variant, seed)
    nest.config.values["players"] = players
    nest.config.values["variant"] = variant
    nest.config.save()
    nest.handle(nest.flow.new_game(game, t_ms), t_ms)
    nest.emit({"ev": "state", "state": game.state()})
