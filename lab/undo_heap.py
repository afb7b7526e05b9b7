"""What the players' undo costs the heap: the bytes one verdict's snapshot (gulo.rules.Game.
_before_verdict) allocates, measured inside the real MicroPython 1.29 VM (WebAssembly port, 32-bit
like the ESP32) with the firmware compiled by mpy-cross, as deployed.

    .venv/bin/python -m lab.undo_heap

Prints `snapshot bytes N`. One snapshot is alive at a time (the next verdict's replaces it), so N
is also what the undo keeps on the heap. The GC is off around the call, so the figure is what the
call allocates (gc.mem_alloc() before and after), whatever the port's collector does.
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from testkit.micropython_vm import MicroPythonVM  # noqa: E402  (the tests' VM runner)

CODE = """
import gc
from gulo.rules import Game
g = Game.new(3, "standard", 7)
g.reveal()
gc.collect()
gc.disable()
a = gc.mem_alloc()
g._before_verdict()
b = gc.mem_alloc()
gc.enable()
print("snapshot bytes", b - a)
"""


def main():
    vm = MicroPythonVM(Path(tempfile.mkdtemp(prefix="undo-heap-")))
    vm.start()
    try:
        vm.load_firmware()
        print(vm.exec(CODE).strip())
    finally:
        vm.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
