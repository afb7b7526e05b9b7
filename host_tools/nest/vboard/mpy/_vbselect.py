# `select` for the virtual board. The port polls sys.stdin as always readable (its stdin is
# Emscripten's), so a console loop `while poll(0): sys.stdin.read(1)` would spin on EOF; here
# stdin is ready only when the serial line brought a byte, as on the ESP32's UART. Other
# objects go to the port's own poll.
import sys
from select import POLLERR, POLLHUP, POLLIN, POLLOUT  # noqa: F401  (re-exported)
from select import poll as _real_poll

import _vbjs


def _is_stdin(obj):
    return obj is sys.stdin or obj is sys.stdin.buffer


class _Poll:
    def __init__(self):
        self._real = _real_poll()
        self._others = 0
        self._stdin = None  # [object, eventmask]

    def register(self, obj, eventmask=POLLIN | POLLOUT):
        if _is_stdin(obj):
            self._stdin = [obj, eventmask]
        else:
            self._real.register(obj, eventmask)
            self._others += 1

    def modify(self, obj, eventmask):
        if _is_stdin(obj):
            if self._stdin is None:
                raise OSError(2)
            self._stdin[1] = eventmask
        else:
            self._real.modify(obj, eventmask)

    def unregister(self, obj):
        if _is_stdin(obj):
            self._stdin = None
        else:
            self._real.unregister(obj)
            self._others -= 1

    def _ready(self):
        res = []
        s = self._stdin
        if s is not None:
            ev = 0
            if s[1] & POLLIN and _vbjs.stdin_ready():
                ev |= POLLIN
            if s[1] & POLLOUT:
                ev |= POLLOUT
            if ev:
                res.append((s[0], ev))
        if self._others:
            res.extend(self._real.poll(0))
        return res

    def poll(self, timeout=-1):
        import time
        res = self._ready()
        if res or timeout == 0:
            return res
        t0 = time.ticks_ms()
        while True:
            left = 20 if timeout < 0 else min(20, timeout - time.ticks_diff(time.ticks_ms(), t0))
            if left <= 0:
                return []
            time.sleep_ms(left)  # wakes early when a byte arrives
            res = self._ready()
            if res:
                return res

    def ipoll(self, timeout=-1, flags=0):
        return iter(self.poll(timeout))


def poll():
    return _Poll()


def select(rlist, wlist, xlist, timeout=None):
    p = _Poll()
    for o in rlist:
        p.register(o, POLLIN)
    for o in wlist:
        p.register(o, POLLOUT)
    ready = p.poll(-1 if timeout is None else int(timeout * 1000))
    return ([o for o, ev in ready if ev & POLLIN], [o for o, ev in ready if ev & POLLOUT], [])
