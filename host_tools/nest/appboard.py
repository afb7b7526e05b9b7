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


def write_file(board, path, data):
    """A file onto a running board over its serial line, through the raw REPL as `nest deploy`
    enters it (Ctrl-C stops a running app first; no soft reset; a NestError if the port is held
    or the board does not answer). Returns once the board is back at the friendly REPL's prompt:
    the Ctrl-B that leaves the raw REPL, still unread at a reset, once reached the app after the
    boot as the start of its first console line ("not JSON")."""
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        link.t.fs_writefile(path, data)
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
    prepare_flash(flash_dir, firmware, calibrated)
    board = VirtualBoard(flash_dir=flash_dir, **kw).start()
    try:
        install_main(board, firmware)
    except BaseException:
        board.stop()
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
