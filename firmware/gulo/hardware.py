# Builds the nest's hardware objects from the one pin map (gulo.board), at run time only: nothing
# touches a pin at import. The app gets everything through the Hardware object, so tests and the
# virtual board see the same wiring as a real DevKitC.

import machine
import neopixel

from gulo import board
from gulo.debounce import Debounced, IrqFlag
from gulo.hx711 import HX711

BUTTON_PINS = (
    ("reveal", board.BUTTON_REVEAL),
    ("G", board.BUTTON_GREEN),
    ("Y", board.BUTTON_YELLOW),
    ("R", board.BUTTON_RED),
    ("B", board.BUTTON_BLUE),
    ("menu", board.BUTTON_MENU),
)


class Hardware:
    def __init__(self, clock, now_ms=0):
        Pin = machine.Pin
        # The reed has its own 10k pull-up on the board; the internal one only adds margin.
        self.reed_pin = Pin(board.REED, Pin.IN, Pin.PULL_UP)
        self.reed = Debounced(self.reed_pin, stable_ms=20, active_low=True, now=now_ms)
        self.hx = HX711(Pin(board.HX711_SCK, Pin.OUT, value=0),
                        [Pin(d, Pin.IN) for d in board.HX711_DOUT], clock)
        self.buttons = []
        for name, gpio in BUTTON_PINS:
            self.buttons.append((name, Debounced(Pin(gpio, Pin.IN, Pin.PULL_UP), 20, True, now_ms)))
        self.strip = neopixel.NeoPixel(Pin(board.LEDS, Pin.OUT), board.LED_COUNT)
        self.buzzer = machine.PWM(Pin(board.BUZZER, Pin.OUT), freq=2000, duty_u16=0)
        self.led = Pin(board.ONBOARD_LED, Pin.OUT, value=0)
        self.hx_irq = None

    def arm(self, reed_flag, button_flag, hx_flag):
        """Pin IRQs -> flags: the reed and the buttons on both edges (each Debounced marks
        itself pending), every HX711 DOUT on its falling edge (a conversion is ready)."""
        both = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
        self.reed.flag = reed_flag
        self.reed_pin.irq(handler=self.reed.irq, trigger=both)
        for _name, b in self.buttons:
            b.flag = button_flag
            b.pin.irq(handler=b.irq, trigger=both)
        self.hx_irq = IrqFlag(hx_flag)
        for d in self.hx.douts:
            d.irq(handler=self.hx_irq.irq, trigger=machine.Pin.IRQ_FALLING)

    def disarm(self):
        self.reed_pin.irq(handler=None)
        for _name, b in self.buttons:
            b.pin.irq(handler=None)
        for d in self.hx.douts:
            d.irq(handler=None)

    def show(self, rgb):
        """Copy an RGB buffer (gulo.ledview) to the strip."""
        strip = self.strip
        for i in range(len(strip)):
            j = 3 * i
            strip[i] = (rgb[j], rgb[j + 1], rgb[j + 2])
        strip.write()

    def deinit(self):
        """Leave the hardware quiet: LEDs dark, buzzer silent, HX711 asleep, no IRQs."""
        self.disarm()
        self.strip.fill((0, 0, 0))
        self.strip.write()
        self.buzzer.duty_u16(0)
        self.buzzer.deinit()
        self.hx.power_down()
        self.led.value(0)
