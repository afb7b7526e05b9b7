# A tiny deterministic generator, so that one seed deals the same game on the ESP32, in the
# MicroPython VM on the host and on CPython. MicroPython's `random` has no shuffle() and its
# generator differs from CPython's, hence our own: xorshift32 (Marsaglia 2003).

_MASK = 0xFFFFFFFF


class XorShift32:
    def __init__(self, seed):
        # xorshift has one fixed point, 0: fold any seed into a non-zero 32-bit state.
        s = (int(seed) ^ 0x9E3779B9) & _MASK
        self.state = s or 0x6D2B79F5

    def next(self):
        """Next 32-bit unsigned value."""
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        self.state = x
        return x

    def below(self, n):
        """An integer in [0, n). The modulo bias for n <= 64 is below 2e-8: irrelevant for a deal."""
        return self.next() % n

    def uniform(self):
        """A float in [0, 1)."""
        return self.next() / 4294967296.0


def shuffle(items, rng):
    """Fisher-Yates shuffle of a list, in place."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items
