# What the nest does once per boot: open the flash (storage, settings, calibration), resume the
# game on flash or deal a new one, bring the hardware up, build the objects the tasks use.
# gulo.app.Nest imports this module to build itself and forgets it again: a .mpy's bytecode sits
# in RAM, and this code never runs twice in a boot (the objects it built stay).

import asyncio
import time

from gulo import sounds
from gulo.gamestore import GameStore, Settings, borrow
from gulo.hx711 import DEFAULT_COUNTS_PER_G, Scale
from gulo.ledview import LedView, brightness_cap
from gulo.turnflow import TurnFlow
from gulo.weigher import DEFAULT_MASSES, Weigher

CONFIG = {"players": 2, "variant": "standard", "volume": 50, "brightness": 100}
CALIBRATION = {"offset": 0, "counts_per_g": DEFAULT_COUNTS_PER_G, "masses": DEFAULT_MASSES}


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
    for event in nest.store.recovered:
        nest.emit(event)
    if game is None:
        game = borrow("newgame").deal(nest, nest.config.values["players"], nest.config.values["variant"])
        resumed = False
    else:
        resumed = True
    nest.flow = TurnFlow(game, Weigher(nest.calib.values["masses"]))
    nest.cal = None  # gulo.calibration, loaded by the first calibration command (heap)
    nest.emit({"ev": "ready", "resumed": resumed, "state": game.state()})
