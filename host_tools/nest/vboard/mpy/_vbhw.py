# Simulated hardware of the nest, inside the MicroPython VM of the virtual board.
#
# JS timers never fire while Python runs, so nothing here is pushed by a clock: every level is
# computed when the firmware reads it, from the time and from the world (the load cell physics
# in nest/world.py, replayed from the control channel's action log). The pin map comes from
# firmware/gulo/board.py through the launcher: no GPIO number is written here.
import gc
import json

import _vbjs
import micropython
from _vbworld import NestWorld

_cfg = json.loads(_vbjs.config())
REED = _cfg.get("REED", -1)
SCK = _cfg.get("HX711_SCK", -1)
DOUTS = tuple(_cfg.get("HX711_DOUT", ()))
HX711_OFFSET = _cfg.get("hx711_offset", 30000)
# A 1 mV/V cell at gain 128: the firmware's uncalibrated default (gulo.hx711.DEFAULT_COUNTS_PER_G)
HX711_COUNTS_PER_G = _cfg.get("hx711_counts_per_g", 2147.0)
HX711_SPS = _cfg.get("hx711_sps", 80)
# The datasheet's 60 us, scaled: this VM runs pin-level Python some 30x slower than an ESP32 at
# 160 MHz (a bit-banged SCK pulse takes 20-40 us here), so a pulse must stay high 2 ms of board
# time before the chip powers down. Held high across a sleep_ms() it still does. On the ESP32
# clock a firmware pulse pair is 35-42 us median, but host noise stretched by the factor puts
# 10-24 % of them past 60 us (lab/bench_timing.py --hx711-pulses): the 2 ms stays there too.
HX711_POWER_DOWN_US = _cfg.get("hx711_power_down_us", 2000)
# That limit holds for the part of a pulse known exactly (sleeps; on ESP32 timing also the pin
# calls' C cost, flash, LEDs). The firmware's bytecode part is host CPU time x the
# factor, and this host stops a running thread for 0.1-4 ms several times a second where no
# process can see it (no run-queue wait, no GC, no steal: `lab/vboard_pulse_stress.py
# --hiccups`), which x 11.3 is 1-45 ms of board time (pulses of 10-29 ms were seen). So the whole
# pulse gets this margin on top: firmware that holds SCK high over a sleep still powers the chip
# down at 2 ms, bytecode alone only past 50 ms (docs/virtual-board.md, "HX711 clock pulses").
HX711_HOST_NOISE_US = _cfg.get("hx711_host_noise_us", 48000)

# ESP32 machine.Pin constants
IN = 1
OUT = 3
OPEN_DRAIN = 7
PULL_DOWN = 1
PULL_UP = 2
IRQ_RISING = 1
IRQ_FALLING = 2

# The ESP32's GPIOs (what machine.Pin accepts).
GPIOS = tuple(n for n in range(40) if n not in (20, 24, 28, 29, 30, 31))

# Pin state. On the ESP32 it lives in the GPIO registers and in static tables (the Pin objects,
# the IRQ handlers): configuring or arming a pin allocates nothing. So it is all allocated here,
# for every GPIO, when the board powers up, and the heap the firmware is measured by (the shims'
# share taken off: docs/firmware-budgets.md) holds only what the firmware itself allocates.
mode = {n: -1 for n in GPIOS}    # pin -> mode, -1 = never configured
pull = {n: -1 for n in GPIOS}    # pin -> pull, -1 = none set
latch = {n: 0 for n in GPIOS}    # pin -> output value
IRQ_RECORDS = {n: [None, 0, None, 0] for n in GPIOS}  # [handler, trigger, pin object, last level]
irqs = {}      # pin -> its IRQ_RECORDS entry, armed pins only (scanned often: kept short)
for _n in GPIOS:  # sized for every GPIO now (a MicroPython dict keeps its table when emptied)
    irqs[_n] = None
for _n in GPIOS:
    del irqs[_n]
timers = []    # [due_ms, period_ms or 0, callback, timer object]

_world = NestWorld(seed=_vbjs.seed(), sps=HX711_SPS)
if _cfg.get("world_state"):  # the nest as it was left (VirtualBoard(keep_world=True))
    _world.restore(_cfg["world_state"]["nest"], _cfg["world_state"]["pole_seated"])
_applied = 0
_BOOT_MS = _vbjs.world_ms()  # this VM's start: a "hang" fault asked for before it is over


def world():
    """The nest, with every action the control channel logged so far applied."""
    global _applied
    if _vbjs.world_len() != _applied:
        # counted from the entries read, not from the length read before them: the bridge takes
        # control requests between any two bytecodes, so one may be logged in between
        entries = json.loads(_vbjs.world_log(_applied))
        for e in entries:
            _apply(e)
        _applied += len(entries)
        hx711.world_changed()
    return _world


def _apply(e):
    a = e["a"]
    t = e.get("t", 0)
    w = _world
    try:
        if a == "take":
            w.take(t, e["colour"], e.get("hand", "steady"))
        elif a == "touch":
            w.touch(t, e.get("hand", "steady"))
        elif a == "drop":
            w.drop(t, e["colour"])
        elif a == "knock_pole":
            w.knock_pole(t)
        elif a == "seat_pole":
            w.seat_pole(t)
        elif a == "pour_back":
            w.pour_back(t, e.get("eggs"))
        elif a == "load":
            w.load(t, e["grams"])
        elif a == "set":
            setattr(w, e["name"], e["value"])
    except ValueError:
        pass  # the launcher validated it against its own copy of the world; never stop the board


class HX711:
    """The HX711 at pin level: DOUT low = data ready (every 1/sps s), 24 bits MSB first on the
    rising SCK edges, then 1-3 more pulses choose the gain of the next conversion; SCK held high
    too long powers it down (_held_too_long), and the falling edge resets it (settling before
    data). High time is board time (CPU + sleeps): host preemption does not count."""

    def __init__(self, n):
        self.n = n
        self.period = 1000.0 / HX711_SPS
        self.t0 = _vbjs.world_ms()
        self.ready_at = self.t0 + self.period
        self.sck = 0
        self.reading = False
        self.pulses = 0
        self.last_edge_us = 0
        self.values = [0] * n
        self.gain = 128
        self.sample_t = 0
        _vbjs.sck_limits(HX711_POWER_DOWN_US, HX711_HOST_NOISE_US)

    def world_changed(self):
        pass

    def _finish(self):
        # the readout ends once the clock has been quiet for a while after the gain pulses
        if self.reading and self.pulses >= 25:
            if _vbjs.ticks_us() - self.last_edge_us > 300 or self.last_edge_us > _vbjs.ticks_us():
                self.gain = (128, 32, 64)[min(self.pulses, 27) - 25]
                self.reading = False
                self.pulses = 0
                self.ready_at = self.sample_t + self.period

    def _latch(self, now):
        k = int((now - self.t0) // self.period)
        t = self.t0 + k * self.period
        self.sample_t = t
        g = world().grams(int(t))
        for i in range(self.n):
            if g is None or self.gain == 32:
                raw = HX711_OFFSET // 7 if g is not None else 0
            else:
                raw = int(HX711_OFFSET + g / self.n * HX711_COUNTS_PER_G * self.gain / 128)
            raw = max(-0x800000, min(0x7FFFFF, raw))
            self.values[i] = raw & 0xFFFFFF

    def _held_too_long(self):
        # both limits, judged in board.mjs (sck_held) from the marks sck_rise made
        return _vbjs.sck_held()

    # 25-27 pulses and 24 DOUT reads per conversion, up to 94 conversions a second: each call
    # into JS (_vbjs) is made only where its answer matters (the clock after the 24 bits, the
    # world once per read), as they are most of what the idle board costs its host.
    def write_sck(self, v):
        if v and not self.sck:
            self.sck = 1
            if self.pulses >= 25:
                self._finish()
            if not self.reading:
                now = _vbjs.world_ms()
                if now < self.ready_at or world().unplugged:
                    _vbjs.sck_rise()
                    return  # not ready: the pulse clocks nothing out
                self._latch(now)
                self.reading = True
            self.pulses += 1
            if self.pulses >= 25:  # the gain pulses: _finish times the quiet after the last
                self.last_edge_us = _vbjs.ticks_us()
            _vbjs.sck_rise()  # after the model's own work, which is not the pulse's length
        elif not v and self.sck:
            self.sck = 0
            if self._held_too_long():
                # powered down, and back up now: gain 128, data after settling (4 conversions)
                self.reading = False
                self.pulses = 0
                self.gain = 128
                self.t0 = _vbjs.world_ms()
                self.ready_at = self.t0 + 4 * self.period

    def dout(self, i):
        w = world()
        if getattr(w, "hang_at", -1) >= _BOOT_MS:
            _hang()
        if self.sck and self._held_too_long():
            return 1  # powered down
        if w.unplugged:
            return 1
        if self.pulses >= 25:
            self._finish()
        if self.reading:
            p = self.pulses
            if p <= 24:
                return (self.values[i] >> (24 - p)) & 1 if p else 0
            return 1
        return 0 if _vbjs.world_ms() >= self.ready_at else 1


hx711 = HX711(len(DOUTS))


_raised = []


def planted_raise():
    """The "raise" fault (vboard/control.py): True the first time it is asked in the boot the fault
    was set in (a reset starts a VM whose _BOOT_MS is later than the fault)."""
    if getattr(world(), "raise_at", -1) >= _BOOT_MS and not _raised:
        _raised.append(True)
        return True
    return False


def _hang():
    # A driver stuck in a loop: only the watchdog (or Ctrl-C, a reset, a power cut) ends it. The
    # bridge unwinds the VM from its ticks_ms() hook, as for machine.reset().
    import time
    while True:
        time.ticks_ms()


def level(pin):
    """What the pin reads now."""
    forced = _vbjs.override(pin)
    if forced >= 0:
        return forced
    if pin == REED:
        # normally-open reed to GND with an external pull-up: closed (0) while the pole is seated
        return 0 if world().pole_is_seated(_vbjs.world_ms()) else 1
    if pin in DOUTS:
        return hx711.dout(DOUTS.index(pin))
    m = mode.get(pin)
    if m == OUT:
        return latch.get(pin, 0)
    if m == OPEN_DRAIN and not latch.get(pin, 0):
        return 0
    p = pull.get(pin)
    return 1 if p == PULL_UP or m == OPEN_DRAIN else 0


def configure(pin, m, p):
    _static[0] = -1
    if m is not None:
        mode[pin] = m
    if p is not None:
        pull[pin] = p
    _vbjs.pin_state(pin, mode.get(pin, -1), pull.get(pin, -1), latch.get(pin, 0))


def write(pin, v):
    v = 1 if v else 0
    latch[pin] = v
    if pin == SCK:
        hx711.write_sck(v)  # thousands per second: not reported to the control channel
    else:
        _static[0] = -1
        _vbjs.pin_state(pin, mode.get(pin, -1), pull.get(pin, -1), v)


def needs_scan():
    return bool(irqs) or bool(timers)


SCAN_MS = 5        # pin scan period while an edge may come from something not foreseen below
FORESEEN_MS = 20   # longest sleep while every armed IRQ's next edge is foreseen


def scan_in_ms(out_ms=SCAN_MS):
    """How soon asyncio.run's idle loop must scan the pins (service()) so no edge is late: the
    HX711's next conversion, the world's next pole change and the next timer are known in
    advance; buttons and forced levels wake the sleep themselves (a control request). Idle
    firmware with IRQs armed then wakes per conversion, not every SCAN_MS. An output pin watched
    by its own IRQ is not foreseen: `out_ms` then (0: scan at every chance)."""
    if not irqs and not timers:
        return None
    now = _vbjs.world_ms()
    due = now + FORESEEN_MS
    for pin in irqs:
        if pin in DOUTS:
            level(pin)  # a readout that is over moves ready_at on
            if hx711.reading:
                due = min(due, now + 1)
            elif hx711.ready_at > now:
                due = min(due, int(hx711.ready_at) + 1)  # DOUT falls then
        elif pin == REED:
            for tc, _seated in world()._pole_changes:
                if tc > now:
                    due = min(due, tc)
                    break
        elif mode.get(pin) == OUT:
            return out_ms  # an output watched by its own IRQ: follow it closely
    for rec in timers:
        due = min(due, rec[0])
    return max(0, min(due - now, FORESEEN_MS))


_mem_next = [0]


def _report_memory(now):
    # The VM's heap grows on demand where an ESP32's is fixed: report what the program holds
    # (gc.mem_alloc, garbage included) so the control channel can show the peak.
    if now >= _mem_next[0]:
        _mem_next[0] = now + 250
        _vbjs.mem(gc.mem_alloc())


_dout_seen = {d: None for d in DOUTS}  # DOUT pin -> the HX711's ready_at at the last scan
# Pins other than the reed and DOUT (buttons) change only by a control request (which bumps the
# bridge's inputs_version) or by the firmware's own configure/write (which resets this): while
# neither happened they need no rescan, and a scan of the idle firmware stays cheap.
_static = [-1]


def timed(f, calls=1):
    """`f` is C or hardware on the ESP32: on the ESP32 clock its time here is left out and
    `calls` C calls are charged instead (host_tools/nest/vboard/timing.mjs)."""
    shim_in, shim_out = _vbjs.shim_in, _vbjs.shim_out

    def call(*args, **kw):
        shim_in()
        r = f(*args, **kw)
        shim_out(calls)
        return r
    return call


def service():
    """Deliver pin edges and due timers as scheduled callbacks (soft IRQs), as the ESP32 does,
    then tell the bridge when the next edge is due, so that it can have this run again then."""
    _scan()
    due = scan_in_ms(0)
    _vbjs.irq_next(-1 if due is None else _vbjs.world_ms() + due)


def isr(_):
    """Scheduled by the bridge between two bytecodes once an edge is due (board.mjs, poll):
    the GPIO interrupt of an ESP32, which schedules its handler at once. A shim of this module
    caught in the middle (the HX711 halfway through a readout's end, the world halfway through
    applying an action) is C or hardware on the ESP32, which no callback interrupts, and with
    machine.disable_irq() no GPIO interrupt lands at all: the scan then waits for the bridge's
    next look."""
    _vbjs.irq_ran()
    if not _busy[0] and not masked[0]:
        service()


def _scan():
    _report_memory(_vbjs.world_ms())
    version = _vbjs.inputs_version()
    unchanged = version == _static[0]
    _static[0] = version
    for pin in irqs:
        if unchanged and pin != REED and pin not in DOUTS:
            continue
        rec = irqs[pin]
        lv = level(pin)
        if pin in DOUTS:
            # DOUT rises for a readout and falls at the next conversion, possibly both between
            # two scans: a new conversion that is ready is a falling edge even if the high level
            # in between was never seen (hx711.ready_at moves once per conversion).
            if lv == 0 and rec[3] == 0 and _dout_seen.get(pin) != hx711.ready_at:
                rec[3] = 1
            _dout_seen[pin] = hx711.ready_at
        if lv != rec[3]:
            rec[3] = lv
            if rec[1] & (IRQ_RISING if lv else IRQ_FALLING):
                _schedule(rec[0], rec[2])
    if timers:
        now = _vbjs.world_ms()
        for rec in timers[:]:
            if now >= rec[0]:
                if rec[1]:
                    rec[0] += rec[1] * max(1, (now - rec[0]) // rec[1] + 1)
                else:
                    timers.remove(rec)
                _schedule(rec[2], rec[3])


dropped = [0]  # events lost to a full schedule queue (4 deep here, 8 on the ESP32)


def _schedule(fn, arg):
    if fn is None:
        return
    try:
        micropython.schedule(fn, arg)
    except RuntimeError:
        dropped[0] += 1  # schedule queue full: the ESP32 drops the event too


def service_due():
    """One pass of asyncio's loop: deliver the edges that are due (the bridge knows when)."""
    if _vbjs.irq_due():
        service()


_busy = [0]  # shims of this module in progress (isr() waits for them)
masked = [0]  # 1 between machine.disable_irq() and enable_irq() (isr() waits)


def _atomic(f):
    def call(*args):
        _busy[0] += 1
        try:
            return f(*args)
        finally:
            _busy[0] -= 1
    return call


level, write, configure, planted_raise, scan_in_ms, service = (
    _atomic(f) for f in (level, write, configure, planted_raise, scan_in_ms, service))

if _vbjs.timed():
    # the ESP32's IRQs and timers cost its firmware nothing to scan
    service = timed(service, 0)
    service_due = timed(service_due, 0)
