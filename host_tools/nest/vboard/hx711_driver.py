"""A bit-banged HX711 driver as boards use it (after robert-hh's hx711_gpio), as MicroPython source
to run on the virtual board: wait for DOUT low, 24 data pulses plus 1 gain pulse (channel A, gain
128), interrupts off around each pulse. The virtual board's own tests and
lab/vboard_pulse_stress.py drive its HX711 model with it, apart from the firmware's driver
(gulo.hx711), so that a fault in one is not hidden by the other."""

from nest.vboard.launcher import pin_map


def hx711_driver():
    """The driver's source: defines `sck`, `dout`, `hx_read()` (the signed reading; OSError after
    0.5 s without data) and `hx_median(n)`, on the nest's own pins."""
    pins = pin_map()
    return f"""
import time
from machine import Pin, disable_irq, enable_irq
sck = Pin({pins["HX711_SCK"]}, Pin.OUT, value=0)
dout = Pin({pins["HX711_DOUT"][0]}, Pin.IN)

def hx_read():
    for _ in range(500):
        if dout() == 0:
            break
        time.sleep_ms(1)
    else:
        raise OSError("Sensor does not respond")
    v = 0
    for _ in range(25):
        s = disable_irq()
        sck(1)
        sck(0)
        enable_irq(s)
        v = (v << 1) | dout()
    v >>= 1
    return v - 0x1000000 if v > 0x7FFFFF else v

def hx_median(n=15):
    return sorted(hx_read() for _ in range(n))[n // 2]  # the HX711 spikes now and then
"""
