# `sys` for the firmware in the memory model: the real one, but for `sys.stdin`, which reads the
# bytes the driver put on the "serial line" (_vbjs.console), as a UART's buffer would hold them.
import sys as _sys

import _vbjs

_pos = [0]


class _Buffer:
    def read(self, n=-1):
        q = _vbjs.console
        if not q:
            return b""
        line = q[0]
        i = _pos[0]
        j = len(line) if n < 0 else min(len(line), i + n)
        _pos[0] = j
        if j >= len(line):
            q.pop(0)
            _pos[0] = 0
        return line[i:j]

    def ioctl(self, req, arg):
        # MP_STREAM_POLL (3), as asyncio's IO queue asks a stream: readable while the driver has
        # bytes on the line (the firmware's console awaits a StreamReader over it)
        if req == 3:
            return arg & 1 if _vbjs.console else 0
        return 0


class _Stdin:
    def __init__(self):
        self.buffer = _Buffer()

    def read(self, n=-1):
        return self.buffer.read(n).decode()


class _Sys:
    stdin = _Stdin()

    def __getattr__(self, name):
        return getattr(_sys, name)


SYS = _Sys()
