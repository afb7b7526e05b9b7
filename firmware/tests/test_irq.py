# Interrupt handlers allocate nothing: each one the nest registers (gulo.peripherals.Peripherals.arm) is
# called here with the heap locked, as micropython-lib's usb-device tests lock it in their critical
# section. On the ESP32 an allocation in a hard IRQ crashes and one in a soft IRQ is a hidden cost;
# inside the MicroPython VM (tests/test_firmware_in_micropython.py) a locked heap makes any
# allocation raise MemoryError. On CPython there is no heap lock and these check the flags only.

from gulo.debounce import Debounced

from fakes import FakePin, heap_lock, heap_unlock


class StoreFlag:
    """asyncio.ThreadSafeFlag's set() as on the ESP32 (extmod/asyncio/event.py): it stores."""

    def __init__(self):
        self.state = 0

    def set(self):
        self.state = 1


def call_locked(handler, pin):
    """Call handler(pin) with the heap locked; the error it raised, or None."""
    heap_lock()
    try:
        handler(pin)
    except Exception as e:  # noqa: BLE001  (MemoryError is what we look for; anything is a failure)
        heap_unlock()
        return e
    heap_unlock()
    return None


def test_the_heap_lock_catches_an_allocation():
    # Without this the tests below could pass vacuously: under the lock, building a list fails.
    try:
        import micropython
        micropython.heap_lock  # noqa: B018
    except (ImportError, AttributeError):
        return  # CPython: nothing to lock
    err = call_locked(lambda pin: [pin, pin], 1)
    assert isinstance(err, MemoryError), err


def test_reed_and_button_handlers_only_set_flags():
    flag = StoreFlag()
    pin = FakePin(0)
    d = Debounced(pin, stable_ms=20, flag=flag)
    handler = d.irq  # bound once, as Pin.irq(handler=d.irq) does
    pin.level = 1
    assert call_locked(handler, pin) is None
    assert d.pending is True and flag.state == 1
    assert d.state is True  # the handler confirmed nothing: that is the task's work
    # twice more, as a bouncing contact fires it in a burst
    assert call_locked(handler, pin) is None and call_locked(handler, pin) is None


def test_a_debouncer_without_a_flag_still_marks_itself():
    d = Debounced(FakePin(1), flag=None)
    assert call_locked(d.irq, None) is None
    assert d.pending is True

