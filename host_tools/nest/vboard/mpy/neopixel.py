# neopixel for the virtual ESP32: the same API and byte order as MicroPython's own module
# (GRB on the wire), written out through machine.bitstream so the colours can be read back.
from machine import bitstream


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.pin.init(pin.OUT)
        self.timing = timing

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = v[i]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, v):
        b = self.buf
        for i in range(self.bpp):
            c = v[i]
            for j in range(self.ORDER[i], len(b), self.bpp):
                b[j] = c

    def write(self):
        bitstream(self.pin, 0, self.timing, self.buf)
