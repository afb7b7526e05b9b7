# Runs in every fresh VM of the virtual board, before boot.py: makes the WebAssembly port look
# and behave like MicroPython on an ESP32 where the firmware can tell the difference.
import os
import sys
import time

import _vbjs

_HIDDEN = ("dev", "proc", "tmp", "home")  # Emscripten's own folders, not on a board's flash
_BLOCK = 4096
_BLOCKS = 512


def install():
    _patch_time()
    _patch_os()
    _patch_asyncio()
    # binascii is built into the ESP32's firmware (C, no heap); on this port it is a frozen
    # Python module that allocates when imported: imported now, so it counts with the shims.
    import binascii  # noqa: F401

    import _vbhw
    import _vbselect
    import _vbvfs
    import machine  # noqa: F401  (kept in sys.modules: the shim files are deleted after boot)
    import neopixel  # noqa: F401
    sys.modules["select"] = _vbselect
    sys.modules["vfs"] = _vbvfs  # `import vfs` looks in sys.modules before the built-ins
    _scan_at_every_pass(_vbhw)


def _scan_at_every_pass(hw):
    # An ESP32's GPIO interrupt schedules its handler at once, whatever the loop is doing
    # (micropython ports/esp32/machine_pin.c, machine_pin_isr_handler -> mp_sched_schedule). Here
    # the bridge schedules the pin scan between bytecodes (board.mjs, irqHook), and every pass of
    # the event loop looks too, where the ESP32's asyncio polls its IOQueue (extmod/asyncio/core.py,
    # wait_io_event, on every pass): the loop's _run_iter reads the clock once per pass, tasks
    # ready or not, so an edge never waits for the loop to go idle.
    from asyncio import core
    ticks_ms = time.ticks_ms
    global _hw, _poll
    _hw = hw
    _poll = hw.timed(_pass, 1) if _vbjs.timed() else _pass  # C on the ESP32 (ipoll): one C call

    def ticks():
        _poll()
        return ticks_ms()
    core.ticks = ticks


_hw = None  # the pin shims (_vbhw), set by _scan_at_every_pass


def _pass():
    _hw.service_due()
    if _STDIN[0] is not None and _vbjs.stdin_ready():
        _STDIN[0].set()
    return wake_flags()


_STDIN = [None]  # the flag of the task waiting in StdinReader.read, else None


_poll = _pass


# ---- time: sleeps block in the bridge (no spinning, Ctrl-C and control requests wake them) ----
_ticks_ms = time.ticks_ms
_ticks_diff = time.ticks_diff
_ticks_add = time.ticks_add


def sleep_ms(ms):
    import _vbhw
    ms = int(ms)
    if ms <= 0:
        _vbhw.service()
        return
    end = _ticks_add(_ticks_ms(), ms)
    while True:
        left = _ticks_diff(end, _ticks_ms())
        if left <= 0:
            break
        # with pin IRQs or timers armed, wake often enough to see their edges
        _vbjs.sleep_ms(min(left, 5) if _vbhw.needs_scan() else left)
        _vbhw.service()


def sleep_us(us):
    us = int(us)
    if us >= 2000:
        sleep_ms(us // 1000)
        us %= 1000
    if us > 0:
        _vbjs.busy_us(us)  # short delays busy-wait on the ESP32 too (bit-banged protocols need it)


def sleep(s):
    if isinstance(s, int):
        sleep_ms(s * 1000)
    else:
        sleep_us(int(s * 1000000))


def _patch_time():
    time.sleep_ms = sleep_ms
    time.sleep_us = sleep_us
    time.sleep = sleep
    if _vbjs.timed():  # C on the ESP32: off the ESP32 clock but for the sleep itself
        import _vbhw
        time.sleep_ms, time.sleep_us, time.sleep = (_vbhw.timed(f) for f in (sleep_ms, sleep_us, sleep))
    time.ticks_us = _vbjs.ticks_us


# ---- os: sizes in ilistdir, stat('') is the current folder, no Emscripten folders at the root ----
def _patch_os():
    real_ilistdir = os.ilistdir
    real_stat = os.stat

    def _abs(p):
        if not p.startswith("/"):
            cwd = os.getcwd()
            p = cwd.rstrip("/") + "/" + p
        return p

    def stat(p):
        return real_stat(p if p != "" else os.getcwd())

    def ilistdir(*args):
        p = args[0] if args else ""
        at_root = _abs(p or ".").rstrip("/.") == ""
        base = _abs(p or ".").rstrip("/.")
        for e in real_ilistdir(*args):
            if at_root and e[0] in _HIDDEN:
                continue
            size = 0
            if e[1] == 0x8000:
                try:
                    size = real_stat(base + "/" + e[0])[6]
                except OSError:
                    pass
            yield (e[0], e[1], 0, size)

    def listdir(*args):
        return [e[0] for e in ilistdir(*args)]

    def uname():
        return _Uname()

    def used_blocks(path):
        n = 1
        for e in ilistdir(path):
            p = path.rstrip("/") + "/" + e[0]
            n += used_blocks(p) if e[1] == 0x4000 else 1 + e[3] // _BLOCK
        return n

    def statvfs(path):
        # the ESP32_GENERIC 4 MB layout: a 2 MB filesystem of 4 KB blocks (Emscripten says 4 GB);
        # the figure is reported, not enforced
        free = max(0, _BLOCKS - used_blocks("/"))
        return (_BLOCK, _BLOCK, _BLOCKS, free, free, 0, 0, 0, 0, 255)

    os.stat = stat
    os.statvfs = statvfs
    os.ilistdir = ilistdir
    os.listdir = listdir
    os.uname = uname


class _Uname:
    sysname = "esp32"
    nodename = "esp32"
    release = "1.29.0"
    version = "v1.29.0 on 2026-08-25"
    machine = "Generic ESP32 module with ESP32"

    def __getitem__(self, i):
        return (self.sysname, self.nodename, self.release, self.version, self.machine)[i]

    def __repr__(self):
        return (f"(sysname='esp32', nodename='esp32', release='1.29.0', version='{self.version}', "
                f"machine='{self.machine}')")


# ---- asyncio: a blocking run() on the port's _run_iter, and ThreadSafeFlag ----
def _patch_asyncio():
    import asyncio
    from asyncio import core

    nxt = [None]

    def schedule_run_iter(dt):
        # the port arms a JS timer here; JS timers cannot fire while Python runs, so run()
        # below just remembers when the next task is due
        if nxt[0] is None or dt < nxt[0]:
            nxt[0] = dt

    core._schedule_run_iter = schedule_run_iter
    # The task queue calls its scheduler on every push, and the port's queue (made when asyncio
    # was imported) holds the original, which arms a JS timer: that timer would run _run_iter at
    # the REPL prompt, so an app left with live tasks (a heap measurement's boot) would go on
    # running between raw-REPL commands and its console task would read mpremote's bytes. On an ESP32 nothing
    # runs tasks outside asyncio.run, so the queue is made again with the scheduler above.
    core.new_event_loop()

    def run_until_complete(main_task=None):
        import _vbhw
        box = []

        async def waiter():
            try:
                box.append((False, await main_task))
            except BaseException as e:  # noqa: B036  (re-raised from run(), as the ESP32 does)
                box.append((True, e))

        core.create_task(waiter())
        try:
            while not box:
                nxt[0] = None
                _poll()
                core._run_iter()
                if box:
                    break
                if _poll():
                    continue  # a handler set a flag meanwhile: its task is ready now
                dt = nxt[0]
                tick = None
                if dt:
                    dt = _to_tick(dt)
                    tick = _ticks_add(_ticks_ms(), dt)
                scan = _vbhw.scan_in_ms()
                if scan is not None and (dt is None or scan < dt):
                    # pin IRQs armed: wake in time for their next edge (an HX711's DOUT falls
                    # with time, not on a control request, which would wake the sleep itself)
                    dt, tick = scan, None
                elif dt is None:
                    dt = 100  # only a control request can wake us
                if tick is not None:
                    # at the tick's ms of ticks_ms (board.mjs, sleep_ms), not `dt` from a stall
                    # of the pacer in scan_in_ms
                    dt = _ticks_diff(tick, _ticks_ms())
                if dt > 0:
                    _vbjs.sleep_ms(dt, tick is not None)
                    _vbhw.service()  # pin edges become scheduled callbacks, run right here
        finally:
            core.cur_task = None
        if box[0][0]:
            raise box[0][1]
        return box[0][1]

    def run(coro):
        return run_until_complete(core.create_task(coro))

    def run_forever():
        async def forever():
            while True:
                await core.sleep_ms(1000000)
        run(forever())

    asyncio.run = run
    asyncio.ThreadSafeFlag = ThreadSafeFlag
    asyncio.StreamReader = StdinReader
    core.Loop.run_until_complete = run_until_complete
    core.Loop.run_forever = run_forever


# The ESP32's FreeRTOS tick: ESP-IDF's default CONFIG_FREERTOS_HZ of 100, which micropython's
# ports/esp32 keeps. asyncio's loop waits in select.poll (extmod/modselect.c 400-411) around
# `ulTaskNotifyTake(pdFALSE, 1)` (ports/esp32/mpconfigport.h 350-357), which returns at the next
# tick unless an interrupt (a pin's, the UART's) wakes it sooner: a task's sleep ends at the first
# tick after its deadline. The loop here does the same, on either timing (the tick is how the
# ESP32 schedules, not how fast it runs); pin edges and the serial line still wake it at once.
_TICK_MS = 10


def _to_tick(dt):
    """The wait from now until the first tick at or after `dt` ms from now."""
    now = time.ticks_ms()
    return -(-(now + dt) // _TICK_MS) * _TICK_MS - now


# Every ThreadSafeFlag made: the loop polls them, as asyncio's IOQueue does. Slots made with the
# shims (the IOQueue's poller is C on the ESP32), so a flag costs the firmware's heap no more here.
_FLAGS = [None] * 16


def wake_flags():
    """A pass of the event loop: wake the task waiting on each flag that was set. On MicroPython
    set() only sets the state, and the IOQueue's poll, at every pass of the loop
    (extmod/asyncio/core.py, wait_io_event), wakes the waiting task: no callback ever touches the
    task queue, so a handler that runs between any two bytecodes (board.mjs, irqHook) cannot lose
    a wake-up (one that pushed the task itself did, when it ran between wait()'s test of the state
    and its yield). True if a task was woken."""
    woke = False
    for f in _FLAGS:
        if f is None:
            break
        t = f.waiting
        if f.state and t is not None:
            from asyncio import core
            f.waiting = None
            t.data = None
            core._task_queue.push(t)
            core._schedule_run_iter(0)  # _run_iter may have chosen to sleep before this push
            woke = True
    return woke


class ThreadSafeFlag:
    """asyncio.ThreadSafeFlag: set() from a (soft) IRQ callback, one task waits on it."""

    def __init__(self):
        self.state = 0
        self.waiting = None
        if _FLAGS[-1] is None:
            _FLAGS[_FLAGS.index(None)] = self
        else:
            _FLAGS.append(self)

    def set(self):
        self.state = 1

    def clear(self):
        self.state = 0

    def remove(self, task):
        self.waiting = None

    # async
    def wait(self):
        from asyncio import core
        if not self.state:
            self.waiting = core.cur_task
            core.cur_task.data = self
            yield
        self.state = 0


class StdinReader:
    """asyncio.StreamReader over sys.stdin, the one stream the firmware awaits: read(n) sleeps
    until the serial line has brought a byte. On the ESP32 the IOQueue's poll of stdin wakes the
    task (extmod/asyncio/stream.py, Stream.read -> core._io_queue.queue_read; ports/esp32
    mphalport.c, mp_hal_stdio_poll); here every pass of the loop looks (_pass), and the loop's
    sleep ends when a byte arrives (board.mjs, sleep_ms)."""

    def __init__(self, s):
        if s is not sys.stdin and s is not sys.stdin.buffer:
            raise NotImplementedError("the virtual board's StreamReader reads sys.stdin only")
        self.s = s
        self.flag = ThreadSafeFlag()

    async def read(self, n=-1):
        while not _vbjs.stdin_ready():
            self.flag.clear()
            _STDIN[0] = self.flag
            try:
                await self.flag.wait()
            finally:
                _STDIN[0] = None
        return self.s.read(n)


# ---- boot.py / main.py, run as the ESP32 port's pyexec_file does ----
def run_file(name):
    """Returns True when the file ended with SystemExit: the ESP32 then soft-resets."""
    try:
        f = open(name)
    except OSError:
        return False
    with f:
        src = f.read()
    import __main__
    g = __main__.__dict__
    try:
        exec(compile(src, name, "exec"), g)
    except SystemExit:
        _vbjs.exited()
        return True
    except BaseException as e:  # noqa: B036  (the board prints it and carries on to the REPL)
        sys.print_exception(e)
    return False
