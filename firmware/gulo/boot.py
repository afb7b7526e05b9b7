# What the nest does once per boot: open the flash (storage, settings, calibration), resume the
# game on flash or deal a new one, bring the hardware up, build the objects the tasks use.
# gulo.app.Nest imports this module to build itself and forgets it again: a .mpy's bytecode sits
# in RAM, and this code never runs twice in a boot (the objects it built stay).

import asyncio
import json
import os
import time

from gulo import sounds, storeread
from gulo.gamestore import GameStore, Settings, borrow
from gulo.hx711 import DEFAULT_COUNTS_PER_G, Scale
from gulo.ledview import LedView, brightness_cap
from gulo.turnflow import TurnFlow
from gulo.weigher import DEFAULT_MASSES, Weigher

CONFIG = {"players": 2, "variant": "standard", "volume": 50, "brightness": 100}
# tare_pole: the reed at the tare (None: never tared by this firmware, the zero is not trusted)
CALIBRATION = {"offset": 0, "counts_per_g": DEFAULT_COUNTS_PER_G, "masses": DEFAULT_MASSES,
               "tare_pole": None}


def build(nest, data, hw):
    from gulo.app import Clock

    nest.clock = Clock()
    if hw is None:
        # gulo.wiring imports machine: only on the board (the tests bring their own hardware)
        hw = borrow("wiring").build(time, nest.clock.now())
    nest.hw = hw
    nest.store = GameStore(data)
    nest.config = Settings(data + "/config.json", CONFIG)
    nest.calib = Settings(data + "/calib.json", CALIBRATION)
    nest.scale = Scale(nest.calib.values["counts_per_g"], nest.calib.values["offset"])
    nest.view = LedView(cap=brightness_cap(nest.config.values["brightness"]))
    nest.tune = sounds.Tune()
    nest.fault = None          # the HX711 fault being shown, or None
    nest.last_grams = None
    nest.alive = {}
    nest.wdt_started = False
    nest.line = bytearray()
    # Wake-ups for the tasks that sleep until there is something to do.
    nest.redraw = asyncio.Event()    # the flow changed: the lights draw it
    nest.timed = asyncio.Event()     # the flow may have a deadline: the ticker keeps it
    nest.sounding = asyncio.Event()  # a tune started
    game, problem = nest.store.resume()
    for p in (problem, nest.config.problem, nest.calib.problem):
        if p:
            nest.emit({"ev": "fault", "what": "storage", "detail": p})
    for name in nest.store.leftovers:
        nest.emit({"ev": "recovered", "file": name})
    if game is None:
        game = borrow("newgame").deal(nest, nest.config.values["players"], nest.config.values["variant"])
        resumed = False
    else:
        resumed = True
    nest.flow = TurnFlow(game, Weigher(nest.calib.values["masses"]), nest.calib.values["tare_pole"],
                         hw.reed.state)
    nest.cal = None  # gulo.calibration, loaded by the first calibration command (heap)
    nest.emit({"ev": "ready", "resumed": resumed, "state": game.state()})


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
    # The log's reader (gulo.gamelog) is only needed here, once per boot: it is imported now
    # and dropped again, so its bytecode (a .mpy sits in RAM) is not kept for the whole game.
    gamelog = borrow("gamelog")
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
