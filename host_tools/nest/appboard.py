"""A virtual board running the nest app, built one way for everyone who needs one: `nest web`
(nest.web.server), the drills and the end-to-end harness (testkit.boardkit), the bench and the tests.

    board = start_app_board(flash_dir, timing="host", baud=0)   # firmware in, main.py written
    with serial.Serial(board.port, 115200, timeout=0.05) as port:
        board.control.reset()                                   # EN: boots into main.py
        ready = Console(port).wait(lambda ev: ev.get("ev") == "ready")[-1]

The firmware package goes into the board's flash folder as source; main.py is written over the
serial line once the board is up (a board that boots into the app never shows the REPL prompt
that VirtualBoard.start() waits for). The caller presses EN and reads the console its own way.
"""

import contextlib
import errno
import json
import shutil
import time
from pathlib import Path

from gulo import store
from nest.boardlink import BoardLink
from nest.errors import NestError
from nest.vboard import VirtualBoard, bench_calibration

ROOT = Path(__file__).resolve().parent.parent.parent
FIRMWARE = ROOT / "firmware"
READY_PROMPT_S = 10.0  # a bound on the wait for the banner and ">>> " after leaving the raw REPL


def prepare_flash(folder, firmware=FIRMWARE, calibrated=False):
    """The firmware package (`firmware`/gulo) into a board's flash folder, fresh (an old gulo/
    removed first); the game, settings and calibration under data/ stay. main.py is removed (see
    the module's note)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").unlink(missing_ok=True)
    gulo = folder / "gulo"
    if gulo.exists():
        shutil.rmtree(gulo)
    gulo.mkdir()
    for f in sorted((Path(firmware) / "gulo").glob("*.py")):
        shutil.copyfile(f, gulo / f.name)
    # `calibrated`: a new virtual nest comes calibrated, as a real one leaves the bench after `nest
    # calibrate` (nest web): its weight is then absolute, and the firmware checks the bowl against
    # the game at a restart. The harnesses keep the uncalibrated board unless they ask.
    calib = folder / "data" / "calib.json"
    if calibrated and not calib.exists():
        calib.parent.mkdir(exist_ok=True)
        store.save(str(calib), json.dumps(bench_calibration()))


# The virtual board's flash (vboard/flash.mjs, FLASH_BLOCK and FLASH_BLOCKS: ESP32_GENERIC's 2 MB
# file system of 4 KB blocks) and how it counts a folder's blocks (usedBlocks there: one per
# folder, one per file plus one per whole block of its size).
FLASH_BLOCK, FLASH_BLOCKS = 4096, 512


def _blocks(path):
    if path.is_dir():
        return 1 + sum(_blocks(p) for p in path.iterdir())
    return 1 + path.stat().st_size // FLASH_BLOCK if path.is_file() else 0


def check_room(folder, firmware=FIRMWARE):
    """NestError, before anything in `folder` changes, when the board's flash could not take the
    firmware prepare_flash and install_main put there (gulo/ and main.py refreshed, main.py
    written once under a temporary name first): a full flash at start is a clear error that leaves
    the folder as it was, not a half-written main.py."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    keep = [p for p in folder.iterdir() if p.name not in ("gulo", "main.py")]
    main = Path(firmware) / "main.py"
    new = 1 + len(list((Path(firmware) / "gulo").glob("*.py"))) + sum(
        f.stat().st_size // FLASH_BLOCK for f in (Path(firmware) / "gulo").glob("*.py"))
    need = new + 2 * (1 + main.stat().st_size // FLASH_BLOCK)
    used = 1 + sum(_blocks(p) for p in keep)
    if used + need > FLASH_BLOCKS:
        raise NestError(f"the flash folder {folder} is full: the firmware needs {need} blocks of "
                        f"{FLASH_BLOCK // 1024} KB and {max(FLASH_BLOCKS - used, 0)} are free (the virtual "
                        f"board's flash is {FLASH_BLOCK * FLASH_BLOCKS // 2**20} MB); nothing changed. Make "
                        "room in it (the finished games in data/games) or choose another --flash folder")


def write_file(board, path, data):
    """A file onto a running board over its serial line, through the raw REPL as `nest deploy`
    enters it (Ctrl-C stops a running app first; no soft reset; a NestError if the port is held
    or the board does not answer). Returns once the board is back at the friendly REPL's prompt:
    the Ctrl-B that leaves the raw REPL, still unread at a reset, once reached the app after the
    boot as the start of its first console line ("not JSON")."""
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        tmp = path + ".nest-tmp"  # renamed over `path` once whole: a full flash leaves no stub
        try:
            link.t.fs_writefile(tmp, data)
            link.exec(f"import os\nos.rename({tmp!r}, {path!r})\n")
        except OSError as e:  # mpremote's filesystem errors (ENOSPC: "[Errno 28] main.py")
            with contextlib.suppress(Exception):
                link.exec(f"import os\nos.remove({tmp!r})\n")
            full = getattr(e, "errno", None) == errno.ENOSPC
            raise NestError(f"cannot write {path} on the board: "
                            + ("its flash is full" if full else str(e))) from None
        link.t.exit_raw_repl()
        seen = link.t.read_until(1, b">>> ", timeout=READY_PROMPT_S, timeout_overall=READY_PROMPT_S)
        if not seen.endswith(b">>> "):
            raise NestError(f"{path} written, but the board never came back to the REPL prompt "
                            f"(last bytes: {seen[-80:]!r}); board log: {board.log_path}")


def install_main(board, firmware=FIRMWARE):
    """`firmware`/main.py onto the board: its next reset boots into the app."""
    write_file(board, "main.py", (Path(firmware) / "main.py").read_bytes())


def start_app_board(flash_dir, firmware=FIRMWARE, calibrated=False, **kw):
    """A VirtualBoard (kw: its options) started on `flash_dir` with the firmware (`firmware`: a
    firmware/ folder, this checkout's by default) and main.py installed, not yet reset: the caller
    opens the console, then presses EN. Stopped again if the install fails."""
    if not (Path(firmware) / "main.py").is_file():
        raise NestError(f"the firmware folder {firmware} is not there: the virtual nest runs the "
                        "repository's firmware/, so run this from a clone of the repository")
    check_room(flash_dir, firmware)
    main = Path(flash_dir) / "main.py"
    old_main = main.read_bytes() if main.is_file() else None
    prepare_flash(flash_dir, firmware, calibrated)
    board = VirtualBoard(flash_dir=flash_dir, **kw).start()
    try:
        install_main(board, firmware)
    except BaseException:
        board.stop()
        if old_main is not None and not main.exists():
            main.write_bytes(old_main)  # the board boots as it did before
        raise
    return board


class Console:
    """The firmware's JSON lines on an open serial port, read in order and never lost between two
    waits (a line that is not JSON, a traceback or the REPL banner, is skipped)."""

    def __init__(self, port):
        self.port = port
        self.buf = b""
        self.pending = []

    def wait(self, until, timeout=20.0):
        """Every line read until `until(line)` is true (that one last); AssertionError on timeout."""
        seen = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while self.pending:
                ev = self.pending.pop(0)
                seen.append(ev)
                if until(ev):
                    return seen
            self.buf += self.port.read(512)
            *lines, self.buf = self.buf.split(b"\n")
            for line in lines:
                try:
                    self.pending.append(json.loads(line))
                except ValueError:
                    pass  # a traceback or the REPL banner: not a console line
        raise AssertionError(f"not seen within {timeout} s; last lines: {seen[-10:]}")

    def send(self, **cmd):
        self.port.write((json.dumps(cmd) + "\n").encode())
