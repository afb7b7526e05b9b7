# `time` for the memory model: the virtual clock of _vbjs. Sleeps move the clock and let the
# simulated hardware deliver its pin edges, as the board's own sleeps do. The ticks keep the
# port's period (2**62; the ESP32's is 2**30): asyncio's C task queue compares them with its own.
import time as _real

import _vbjs

_EPOCH_S = 1795435917  # what time.time() says at the start (2026-11-23)
ticks_diff = _real.ticks_diff
ticks_add = _real.ticks_add


def ticks_ms():
    return _vbjs.now_us[0] // 1000


def ticks_us():
    return _vbjs.now_us[0]


def ticks_cpu():
    return _vbjs.now_us[0]


def sleep_ms(ms):
    import _vbhw
    left = int(ms)
    while left > 0:
        step = _vbhw.scan_in_ms()
        step = left if step is None else max(1, min(left, step))
        _vbjs.advance_us(step * 1000)
        _vbhw.service()
        left -= step


def sleep_us(us):
    if us >= 1000:
        sleep_ms(us // 1000)
        us %= 1000
    _vbjs.advance_us(us)


def sleep(s):
    sleep_us(int(s * 1000000))


def time():
    return _EPOCH_S + _vbjs.world_ms() // 1000


def time_ns():
    return (_EPOCH_S * 1000 + _vbjs.world_ms()) * 1000000


def gmtime(secs=None):
    return _real.gmtime(time() if secs is None else secs)


localtime = gmtime


def mktime(t):
    return _real.mktime(t)
