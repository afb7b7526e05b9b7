# The one pin map of the nest: ESP32-DevKitC (ESP32-WROOM-32), MicroPython 1.29 ESP32_GENERIC.
#
# Nothing else in the project writes a GPIO number. Drivers take Pin objects; the hardware is
# built from these numbers in gulo.peripherals at run time (never at import). The virtual board,
# the wiring diagram (enclosure/) and its test all read this file, so it must stay plain data
# that imports on CPython too: no `machine` here.
try:
    from micropython import const
except ImportError:  # CPython (host tools, tests): const is only a compile-time hint
    def const(x):  # type: ignore[misc]  # same contract as micropython.const
        return x

# Alarm pole: normally-open reed switch in the central socket, to GND, with an external 10k
# pull-up to 3V3. Closed (pin reads 0) = pole seated (the magnet in its foot holds it shut).
# GPIO 34-39 are avoided on purpose: they have no internal pull resistors and are input only;
# a spare pad on 27 keeps the option of an internal pull-up as a fallback.
REED = const(27)

# HX711 load-cell amplifier(s): one shared clock, one data line per cell (cells are summed).
HX711_SCK = const(18)
HX711_DOUT = (19,)

# WS2812 strip: path tiles 1..23 (19 + up to 4 appended by the deck), then the deck, then status.
LEDS = const(16)
LED_PATH_FIRST = const(0)
LED_PATH_COUNT = const(23)
LED_DECK = const(23)
LED_STATUS = const(24)
LED_COUNT = const(25)
# No colour channel sent to the strip exceeds this (of 255): 25 pixels white at 48 draw ~307 mA,
# which keeps the whole nest within a USB port's 500 mA (power budget: enclosure/BOM.md).
LED_BRIGHTNESS_CAP = const(48)

# Buttons: to GND, internal pull-ups, active low.
BUTTON_REVEAL = const(32)
BUTTON_GREEN = const(33)
BUTTON_YELLOW = const(25)
BUTTON_RED = const(26)
BUTTON_BLUE = const(14)
BUTTON_MENU = const(4)

# Piezo buzzer (passive) driven by PWM through a small NPN transistor.
BUZZER = const(22)

# Heartbeat / fault blink: an LED + 1k to GND on the carrier (the DevKitC V4 has no LED on GPIO2;
# its only LED is the power LED). GPIO2 must be low or floating at boot: the LED keeps it low.
ONBOARD_LED = const(2)

# Every pin by name, for the wiring diagram test and the virtual board.
PINS = {
    "REED": REED,
    "HX711_SCK": HX711_SCK,
    "HX711_DOUT": HX711_DOUT[0],
    "LEDS": LEDS,
    "BUTTON_REVEAL": BUTTON_REVEAL,
    "BUTTON_GREEN": BUTTON_GREEN,
    "BUTTON_YELLOW": BUTTON_YELLOW,
    "BUTTON_RED": BUTTON_RED,
    "BUTTON_BLUE": BUTTON_BLUE,
    "BUTTON_MENU": BUTTON_MENU,
    "BUZZER": BUZZER,
    "ONBOARD_LED": ONBOARD_LED,
}
