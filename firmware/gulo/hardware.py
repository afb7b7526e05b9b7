# The nest's hardware objects, as the running app uses them. gulo.wiring builds them from the one
# pin map (gulo.board) at run time, arms their IRQs and shuts them down: code that runs once per
# boot, so it lives apart and is forgotten after use (a .mpy's bytecode sits in RAM). The app gets
# everything through the Hardware object, so tests and the virtual board see the same wiring as a
# real DevKitC.


class Hardware:
    def __init__(self, reed_pin, reed, hx, buttons, strip, buzzer, led):
        self.reed_pin = reed_pin  # machine.Pin of the reed switch
        self.reed = reed          # its gulo.debounce.Debounced
        self.hx = hx              # gulo.hx711.HX711
        self.buttons = buttons    # [(name, Debounced)], gulo.wiring.BUTTON_PINS' order
        self.strip = strip        # neopixel.NeoPixel
        self.buzzer = buzzer      # machine.PWM
        self.led = led            # the DevKitC's own LED
        self.hx_irq = None        # the HX711's DOUT handler (gulo.debounce.IrqFlag), once armed

    def show(self, rgb):
        """Copy an RGB buffer (gulo.ledview) to the strip."""
        strip = self.strip
        for i in range(len(strip)):
            j = 3 * i
            strip[i] = (rgb[j], rgb[j + 1], rgb[j + 2])
        strip.write()
