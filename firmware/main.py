# Runs at every boot after boot.py. Hold the menu button while the board starts to skip the game
# (safe mode: the REPL is free for mpremote and `nest deploy`).
from machine import Pin

from gulo import board

if Pin(board.BUTTON_MENU, Pin.IN, Pin.PULL_UP).value() == 0:
    print('{"ev": "safe_mode"}')
else:
    import gulo.app

    gulo.app.run()
