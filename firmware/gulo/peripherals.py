# The nest's peripherals as the running app uses them: the reed switch, the HX711, the buttons,
# the LED strip, the buzzer and the DevKitC's LED, built from the one pin map (gulo.board) when a
# Peripherals is made (never at import), their IRQs armed and disarmed, and left quiet at the end.
# The app gets everything through this object, so tests and the virtual board see the same pins
# as a real DevKitC. (Not to be confused with enclosure/'s wiring diagram and hardware list: this
# is the firmware's side of the same pins.)

import machine
import neopixel

from gulo import board
from gulo.debounce import Debounced
from gulo.hx711 import HX711
from gulo.ledview import to_strip
from gulo.vocab import BUTTON_PIN_NAMES, BUTTONS

# (name, GPIO) of each button, in gulo.vocab's order, from its pin's name in the pin map.
BUTTON_PINS = tuple([(name, getattr(board, "BUTTON_" + pin)) for name, pin in zip(BUTTONS, BUTTON_PIN_NAMES)])


class Peripherals:
    def __init__(self, clock, now_ms=0):
        """Every part of the nest; the HX711 is powered up. `clock` is the HX711's (time)."""
        Pin = machine.Pin
        # The reed has its own 10k pull-up on the board; the internal one only adds margin.
        self.reed_pin = Pin(board.REED, Pin.IN, Pin.PULL_UP)
        self.reed = Debounced(self.reed_pin, stable_ms=20, active_low=True, now=now_ms)
        self.hx = HX711(Pin(board.HX711_SCK, Pin.OUT, value=0), [Pin(d, Pin.IN) for d in board.HX711_DOUT],
                        clock, (machine.disable_irq, machine.enable_irq))
        self.buttons = []  # [(name, Debounced)] in BUTTON_PINS' order
        for name, gpio in BUTTON_PINS:
            self.buttons.append((name, Debounced(Pin(gpio, Pin.IN, Pin.PULL_UP), 20, True, now_ms)))
        self.strip = neopixel.NeoPixel(Pin(board.LEDS, Pin.OUT), board.LED_COUNT)
        self.buzzer = machine.PWM(Pin(board.BUZZER, Pin.OUT), freq=2000, duty_u16=0)
        self.led = Pin(board.ONBOARD_LED, Pin.OUT, value=0)  # the carrier's LED (board.ONBOARD_LED)

    def show(self, rgb):
        """Copy an RGB buffer (gulo.ledview) to the strip. Straight into the driver's buffer in its
        byte order (NeoPixel's `buf` and `ORDER`: MicroPython's neopixel module, micropython-lib
        micropython/drivers/led/neopixel, GRB for the WS2812B): no tuple per LED and no call of
        its Python __setitem__ on the alarm's path."""
        strip = self.strip
        to_strip(rgb, strip.buf, strip.ORDER)
        strip.write()

    def arm(self, reed_flag, button_flag):
        """Pin IRQs -> flags: the reed and the buttons on both edges (each Debounced marks itself
        pending). The HX711's DOUT has none: the sampler looks at it (gulo.app, sampler)."""
        both = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
        self.reed.arm(reed_flag, both)
        for _name, b in self.buttons:
            b.arm(button_flag, both)

    def disarm(self):
        self.reed_pin.irq(handler=None)
        for _name, b in self.buttons:
            b.pin.irq(handler=None)

    def deinit(self):
        """Leave the hardware quiet: LEDs dark, buzzer silent, HX711 asleep, no IRQs."""
        self.disarm()
        self.strip.fill((0, 0, 0))
        self.strip.write()
        self.buzzer.duty_u16(0)
        self.buzzer.deinit()
        self.hx.power_down()
        self.led.value(0)
