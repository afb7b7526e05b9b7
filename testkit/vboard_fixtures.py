"""The virtual board as pytest fixtures, plus helpers to drive it with real mpremote.

`vboard`: a fresh board (unthrottled line, empty flash) for one test.
`vboard_factory(**kw)`: boards with options (`baud=115200`, `flash_dir=...`), all stopped after.
`mpremote(board, *args)`: runs the real mpremote CLI against the board's port.
`read_until(port, marker)`: raw serial bytes up to a marker; `Console(port)`: the nest firmware's
JSON lines, in order (nest.appboard's, the one the harness and `nest web` share).
`compile_gulo(out)`: the firmware package as .mpy; `heap(board, code)`: the heap after `code`.
"""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from nest.appboard import Console  # noqa: F401 (the tests' console reader, shared)
from nest.deploy import mpy_cross_path
from nest.vboard import VirtualBoard

MPREMOTE = Path(sys.executable).with_name("mpremote")
FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"


def mpremote(board, *args, timeout=60, check=True):
    """Run `mpremote connect PORT args...`; returns the CompletedProcess (text)."""
    proc = subprocess.run([str(MPREMOTE), "connect", board.port, *args], capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"mpremote {' '.join(args)} failed ({proc.returncode}):\n"
                             f"{proc.stdout}{proc.stderr}\n--- board log ---\n{board._log_tail()}")
    return proc


@pytest.fixture
def vboard_factory(tmp_path):
    boards = []

    def make(**kw):
        kw.setdefault("baud", 0)
        kw.setdefault("timing", "host")  # the VM's own speed: ESP32 timing has its own tests
        kw.setdefault("log_path", tmp_path / f"vboard-{len(boards)}.log")
        board = VirtualBoard(**kw).start()
        boards.append(board)
        return board

    yield make
    for board in boards:
        board.stop()


@pytest.fixture
def vboard(vboard_factory):
    return vboard_factory()


def read_until(port, marker, timeout=15.0):
    """Read from an open pyserial port until `marker` (bytes) shows up; returns all read."""
    data = b""
    end = time.monotonic() + timeout
    while marker not in data:
        if time.monotonic() > end:
            raise AssertionError(f"{marker!r} not seen; got {data[-800:]!r}")
        data += port.read(port.in_waiting or 1)
    return data


# The firmware's heap as issue 4 counts it (tests/test_firmware_watchdog.py, lab/heap_report.py,
# lab/bench_firmware.py all measure it this way: compile_gulo, then heap(board, HEAP_BOOT)).
# Boots the app as gulo.app.run() does and lets every task start and run for a second; the app
# is left alive in __main__ (tasks suspended), the watchdog slowed. The heap is measured by a
# second raw-REPL command: in this WebAssembly port gc.collect() frees nothing while Python code
# is running (its garbage is only reclaimable once the call returns to the top level), so a
# figure taken inside the app would count a second of garbage.
HEAP_BOOT = """
import asyncio, machine
import gulo.app as app
nest = app.Nest("/data")
async def boot():
    global main_task
    main_task = asyncio.create_task(app.main(nest))
    await asyncio.sleep_ms(1000)
asyncio.run(boot())
machine.WDT(timeout=24 * 3600 * 1000)
"""
HEAP_MEASURE = "import gc\ngc.collect()\nprint('HEAP', gc.mem_alloc())"


def compile_gulo(out, flags=(), firmware=None):
    """firmware/gulo/*.py -> out/gulo/*.mpy with mpy-cross 1.29 (bytecode: the wasm VM cannot load
    xtensawin), each named `gulo/NAME.py` inside as `nest deploy` names it; `__init__` stays an
    empty .py. `flags`: extra mpy-cross flags (e.g. -O3); `firmware`: another firmware/ folder
    than this checkout's. Returns the out/gulo folder."""
    pkg = Path(out) / "gulo"
    pkg.mkdir(parents=True)
    exe = mpy_cross_path()
    for src in sorted((Path(firmware or FIRMWARE) / "gulo").glob("*.py")):
        if src.stem == "__init__":
            (pkg / "__init__.py").write_text("")
            continue
        subprocess.run([exe, *flags, "-o", str(pkg / (src.stem + ".mpy")), "-s", f"gulo/{src.name}",
                        str(src)], check=True, capture_output=True)
    return pkg


def heap(board, code=""):
    """gc.mem_alloc() after gc.collect() (bytes, the VM's shims included), taken after `code`
    (e.g. HEAP_BOOT) in the same mpremote call."""
    args = (["exec", code] if code else []) + ["exec", HEAP_MEASURE]
    out = mpremote(board, *args, timeout=120).stdout
    return int(out.split("HEAP")[1].split()[0])
