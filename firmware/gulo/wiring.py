# Brings the nest's hardware up and down, from the one pin map (gulo.board), at run time only:
# nothing touches a pin at import. Once per boot (build, arm) and once at the end (deinit), so the
# board imports this module for the call and forgets it again (a .mpy's bytecode sits in RAM);
# what the running app keeps is the gulo.hardware.Hardware object built here.

import machine
import neopixel

from gulo import board
from gulo.debounce import Debounced, IrqFlag
from gulo.hardware import Hardware
from gulo.hx711 import HX711
from gulo.vocab import BUTTON_PIN_NAMES, BUTTONS

# (name, GPIO) of each button, in gulo.vocab's order, from its pin's name in the pin map.
BUTTON_PINS = tuple([(name, getattr(board, "BUTTON_" + pin)) for name, pin in zip(BUTTONS, BUTTON_PIN_NAMES)])


def build(clock, now_ms=0):
    """Every part of the nest, as a Hardware object; the HX711 is powered up."""
    Pin = machine.Pin
    # The reed has its own 10k pull-up on the board; the internal one only adds margin.
    reed_pin = Pin(board.REED, Pin.IN, Pin.PULL_UP)
    hx = HX711(Pin(board.HX711_SCK, Pin.OUT, value=0), [Pin(d, Pin.IN) for d in board.HX711_DOUT],
               clock, (machine.disable_irq, machine.enable_irq))
    buttons = []
    for name, gpio in BUTTON_PINS:
        buttons.append((name, Debounced(Pin(gpio, Pin.IN, Pin.PULL_UP), 20, True, now_ms)))
    return Hardware(reed_pin, Debounced(reed_pin, stable_ms=20, active_low=True, now=now_ms), hx,
                    buttons, neopixel.NeoPixel(Pin(board.LEDS, Pin.OUT), board.LED_COUNT),
                    machine.PWM(Pin(board.BUZZER, Pin.OUT), freq=2000, duty_u16=0),
                    Pin(board.ONBOARD_LED, Pin.OUT, value=0))


def arm(hw, reed_flag, button_flag, hx_flag):
    """Pin IRQs -> flags: the reed and the buttons on both edges (each Debounced marks
    itself pending), every HX711 DOUT on its falling edge (a conversion is ready)."""
    both = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
    hw.reed.flag = reed_flag
    hw.reed_pin.irq(handler=hw.reed.irq, trigger=both)
    for _name, b in hw.buttons:
        b.flag = button_flag
        b.pin.irq(handler=b.irq, trigger=both)
    hw.hx_irq = IrqFlag(hx_flag)
    for d in hw.hx.douts:
        d.irq(handler=hw.hx_irq.irq, trigger=machine.Pin.IRQ_FALLING)


def disarm(hw):
    hw.reed_pin.irq(handler=None)
    for _name, b in hw.buttons:
        b.pin.irq(handler=None)
    for d in hw.hx.douts:
        d.irq(handler=None)


def deinit(hw):
    """Leave the hardware quiet: LEDs dark, buzzer silent, HX711 asleep, no IRQs."""
    disarm(hw)
    hw.strip.fill((0, 0, 0))
    hw.strip.write()
    hw.buzzer.duty_u16(0)
    hw.buzzer.deinit()
    hw.hx.power_down()
    hw.led.value(0)
