"""Pin IRQs on the virtual board reach their handler as on an ESP32: at the VM's next pending check
after the edge (micropython ports/esp32/machine_pin.c, machine_pin_isr_handler -> mp_sched_schedule),
not when the event loop next goes idle. Orderings only, no durations (docs/virtual-board.md, "Pin
IRQs"). Each check is also run on the old delivery (edges scanned only after a sleep), planted in
the VM, where it must fail."""

import pytest

from gulo import board as pins
from testkit.vboard_fixtures import mpremote

pytestmark = pytest.mark.board

# The old delivery, planted inside the VM: the bridge is never told an edge is due (so it schedules
# no scan between bytecodes) and a pass of the event loop never finds one due; only the scan after a
# sleep is left, as on main 63b2d91.
OLD_DELIVERY = """
import _vbhw, _vbjs
class _Old:
    def __getattr__(self, name):
        return getattr(_vbjs, name)
    def irq_next(self, ms):
        _vbjs.irq_next(-1)
    def irq_due(self):
        return 0
_vbhw._vbjs = _Old()
"""

# The handler notes where the firmware was and the world's time (ms) when it ran.
ARM = f"""
import time, asyncio, _vbjs
from machine import Pin
seen = []
where = ['busy', 0]
Pin({pins.REED}, Pin.IN).irq(lambda p: seen.append((where[0], where[1], _vbjs.world_ms())), Pin.IRQ_RISING)
t0 = time.ticks_ms()
"""

# Tasks that are always ready: the loop never sleeps (dt 0) until the handler has run or 4 s passed;
# then it goes idle (a 50 ms sleep).
ALWAYS_READY = """
async def busy():
    while not seen and time.ticks_diff(time.ticks_ms(), t0) < 4000:
        where[1] += 1
        await asyncio.sleep_ms(0)
    where[0] = 'idle'
    await asyncio.sleep_ms(50)
asyncio.run(busy())
print(seen)
"""

# Plain bytecode, no event loop, no machine call: the clock is read once per 4096 passes only.
PLAIN_LOOP = """
n = 0
x = 0
while not seen:
    n += 1
    x = (x * 7 + n) & 0xffff
    if n & 4095 == 0 and time.ticks_diff(time.ticks_ms(), t0) > 4000:
        break
where[0] = 'idle'
where[1] = n
time.sleep_ms(50)
print(seen)
"""


def _edge_and_handler(board, program, planted):
    """Knock the pole while `program` runs; (where and when the handler ran, the reed's edge in the
    world, world ms)."""
    board.control.knock_pole(in_ms=1500)  # the reed opens 20-50 ms later, while the loop runs
    out = mpremote(board, "exec", (OLD_DELIVERY if planted else "") + ARM + program).stdout
    seen = eval(out.strip().splitlines()[-1])  # a list of tuples printed by the board
    edge = [e["t_ms"] for e in board.control.world()["truth"] if e["what"] == "pole_out"]
    assert len(seen) == 1 and len(edge) == 1, (out, edge)
    return seen[0], edge[0]


@pytest.mark.parametrize("planted", [False, True], ids=["as-esp32", "planted-old-delivery"])
def test_an_edge_while_tasks_are_always_ready_reaches_its_handler_before_the_loop_goes_idle(
        vboard, planted):
    (where, passes, handler_ms), edge_ms = _edge_and_handler(vboard, ALWAYS_READY, planted)
    assert handler_ms >= edge_ms  # never before the edge
    before_idle = where == "busy"
    assert before_idle != planted, (where, passes)


@pytest.mark.parametrize("planted", [False, True], ids=["as-esp32", "planted-old-delivery"])
def test_an_edge_during_plain_bytecode_reaches_its_handler_mid_loop(vboard, planted):
    (where, _, handler_ms), edge_ms = _edge_and_handler(vboard, PLAIN_LOOP, planted)
    assert handler_ms >= edge_ms
    mid_loop = where == "busy"
    assert mid_loop != planted, where


# A scan that comes while a shim of _vbhw runs, or between machine.disable_irq() and enable_irq(),
# waits: on the ESP32 the pins' C and hardware are never interrupted by a scheduled callback (a scan
# inside the HX711's end of readout raised IndexError in the firmware's sampler), and with its
# interrupts off no GPIO interrupt lands (the firmware reads the HX711 so). Planted: a guard that
# always reads 0.
HOLD = {"shim": ("_vbhw._busy[0] += 1", "_vbhw._busy[0] -= 1"),
        "irqs-off": ("s = machine.disable_irq()", "machine.enable_irq(s)")}
ATOMIC = f"""
import _vbhw, machine
from machine import Pin
Pin({pins.REED}, Pin.IN).irq(lambda p: None, Pin.IRQ_RISING)
n = [0]
real = _vbhw._scan
def counting():
    n[0] += 1
    real()
_vbhw._scan = counting
{{hold}}
_vbhw.isr(0)
inside = n[0]
{{release}}
_vbhw.isr(0)
_vbhw._scan = real
print(inside, n[0])
"""
NO_GUARD = """
import _vbhw
class _Zero:
    def __getitem__(self, i):
        return 0
    def __setitem__(self, i, v):
        pass
_vbhw._busy = _vbhw.masked = _Zero()
"""


@pytest.mark.parametrize("held_by", sorted(HOLD))
@pytest.mark.parametrize("planted", [False, True], ids=["as-esp32", "planted-no-guard"])
def test_a_scan_waits_for_a_shim_in_progress_and_for_interrupts_off(vboard, planted, held_by):
    hold, release = HOLD[held_by]
    code = ATOMIC.format(hold=hold, release=release)
    out = mpremote(vboard, "exec", (NO_GUARD if planted else "") + code).stdout.split()
    waited = out == ["0", "1"]
    assert waited != planted, out
