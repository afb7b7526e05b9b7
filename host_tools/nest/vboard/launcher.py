"""VirtualBoard: the MicroPython VM (board.mjs under Node) behind a pseudo-terminal.

The launcher owns what Node cannot do well while the VM blocks its thread: the pty (kept open
here so a client closing it never gives the board EIO), the UART throttle (a pty has no baud
rate), the loopback control socket, and a CPython copy of the world that validates scripted
actions and answers questions about it.
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
from pathlib import Path

from nest.errors import NestError
from nest.vboard.control import ControlClient, ControlServer
from nest.world import BOWL_G, DEFAULT_MASSES, NestWorld

HERE = Path(__file__).resolve().parent
BOARD_MJS = HERE / "board.mjs"
SHIM_DIR = HERE / "mpy"
WORLD_PY = HERE.parent / "world.py"
ROOT = HERE.parent.parent.parent
START_TIMEOUT_S = 15.0
# The MicroPython VM (WebAssembly port) the board runs, as package.json pins it (a test checks the two
# agree). Looked for in the repository's node_modules (`npm ci`), then in the user's data folder,
# where `npm install --prefix` puts it for an installed nest (pipx) that has no repository.
VM_PACKAGE = "@micropython/micropython-webassembly-pyscript"
VM_VERSION = "1.29.0-6"
REQUEST_TIMEOUT_S = 5.0
HX711_SPS = 80
# The virtual HX711 reads HX711_OFFSET + grams x HX711_COUNTS_PER_G counts (mpy/_vbhw.py): a 1 mV/V
# cell at gain 128, the firmware's uncalibrated default (gulo.hx711.DEFAULT_COUNTS_PER_G).
HX711_OFFSET = 30000
HX711_COUNTS_PER_G = 2147.0
# the board's clock (host_tools/nest/vboard/timing.mjs): an ESP32's speed (flash at its typical or
# worst-case datasheet times), or the VM's own speed ("host": tests where time does not matter)
TIMINGS = ("esp32", "esp32-worst", "host")
TIMING_HELP = ("the board's speed: esp32 = an ESP32_GENERIC at its 160 MHz (bytecode, machine calls, flash, "
               "LEDs; docs/virtual-board.md), esp32-worst = the same with the flash's worst-case datasheet "
               "times, host = as fast as this machine runs it (default: %(default)s)")


def pin_map():
    """The nest's wiring, read from the firmware's one board file (never retyped here)."""
    try:
        from gulo import board
    except ImportError:  # running from a checkout without the editable install
        import importlib.util
        spec = importlib.util.spec_from_file_location("gulo_board", ROOT / "firmware" / "gulo" / "board.py")
        board = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(board)
    hw = {name: value for name, value in vars(board).items() if name.isupper() and isinstance(value, int)}
    hw["HX711_DOUT"] = list(board.HX711_DOUT)
    hw["buttons"] = {name[len("BUTTON_"):]: pin for name, pin in hw.items() if name.startswith("BUTTON_")}
    return hw


class _Line:
    """One direction of a UART: bytes cannot leave faster than baud / 10 (8N1)."""

    def __init__(self, baud):
        self.byte_s = 10.0 / baud if baud else 0.0
        self.done = time.monotonic()

    def chunk(self):
        return 64 if self.byte_s else 65536

    def wait(self, n):
        if not self.byte_s:
            return
        now = time.monotonic()
        self.done = max(self.done, now) + n * self.byte_s
        if self.done > now:
            time.sleep(self.done - now)


def bench_calibration():
    """The calibration `nest calibrate` leaves on the virtual nest (gulo.calibration's values): the
    empty bowl tared with the pole on the table (tare_pole false: the firmware then adds the pole's
    mass while it is seated), the cell's counts per gram, the world's egg masses. With it the
    firmware's weight is absolute, and its resume check runs (docs/play-page.md)."""
    return {"offset": HX711_OFFSET + round(BOWL_G * HX711_COUNTS_PER_G), "counts_per_g": HX711_COUNTS_PER_G,
            "masses": dict(DEFAULT_MASSES), "tare_pole": False}


def vm_folders():
    """Where the VM's npm package is looked for, in order: node_modules/ above this file (the
    repository), then the user's data folder (platformdirs: ~/.local/share/gulo-nest/vm on Linux)."""
    import platformdirs

    folders = [parent / "node_modules" for parent in HERE.parents if (parent / "package.json").is_file()]
    return folders + [Path(platformdirs.user_data_dir("gulo-nest")) / "vm" / "node_modules"]


def vm_install_hint():
    prefix = Path(vm_folders()[-1]).parent
    return f'npm install --prefix "{prefix}" {VM_PACKAGE}@{VM_VERSION}'


def find_vm():
    """The VM's entry module (micropython.mjs) of the pinned version; NestError naming the command
    that installs it when it is not there (or is another version)."""
    seen = []
    for folder in vm_folders():
        meta = folder / VM_PACKAGE / "package.json"
        try:
            info = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        if info.get("version") == VM_VERSION:
            return folder / VM_PACKAGE / info.get("main", "micropython.mjs")
        seen.append(f"{info.get('version')} in {folder}")
    found = f" (found {', '.join(seen)})" if seen else ""
    raise NestError(f"the virtual board needs the MicroPython VM, npm package {VM_PACKAGE} {VM_VERSION}, "
                    f"not found{found}; install it with: {vm_install_hint()}  (in the repository: npm ci)")


def find_node(node="node"):
    """The Node.js executable; NestError with how to get it (before any 15 s wait for a board)."""
    import shutil

    found = shutil.which(node)
    if not found:
        raise NestError(f"the virtual board needs Node.js 20 or later and `{node}` is not on PATH: install "
                        "it (nodejs.org, or `sudo apt install nodejs npm`, `brew install node`), then the "
                        f"MicroPython VM: {vm_install_hint()}")
    return found


class VirtualBoard:
    """`with VirtualBoard() as board:` gives `board.port` (/dev/pts/N) and `board.control`."""

    def __init__(self, flash_dir=None, baud=115200, headless=True, seed=1, control_port=0, log_path=None,
                 node="node", timing="esp32", timing_factor=None, keep_world=False):
        if timing not in TIMINGS:
            raise NestError(f"timing {timing!r}: choose one of {', '.join(TIMINGS)}")
        self.timing = timing
        self.timing_factor = timing_factor  # None: timing.mjs's calibrated FACTOR
        self.flash_dir = Path(flash_dir).resolve() if flash_dir else None
        self.baud = baud
        self.headless = headless
        self.seed = seed
        self.control_port = control_port
        self.node = node
        self.hw = pin_map()
        self._own_log = log_path is None
        if log_path is None:
            fd, log_path = tempfile.mkstemp(prefix="vboard-", suffix=".log")
            os.close(fd)
        self.log_path = Path(log_path)
        self.port = None
        self.control = None
        self.control_address = None
        self.proc = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._stdin_lock = threading.Lock()
        self._waiting = {}
        self._next_id = 0
        self._id_lock = threading.Lock()
        self._threads = []
        self.world = None
        self.epoch_ms = None
        # The physical nest (eggs out of the bowl, the pole) kept beside the flash folder and put back
        # at the next start, as a real nest stays as it was across a power cut or an unplug.
        self.world_file = (self.flash_dir.with_name(self.flash_dir.name + ".world.json")
                           if keep_world and self.flash_dir else None)

    # ---- life cycle ----
    def start(self):
        node = find_node(self.node)
        vm = find_vm()
        if self.flash_dir:
            self.flash_dir.mkdir(parents=True, exist_ok=True)
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.port = os.ttyname(self.slave)
        self.epoch_ms = int(time.time() * 1000)
        self.world = NestWorld(seed=self.seed, sps=HX711_SPS)
        kept = self._kept_world()
        if kept:
            self.world.restore(kept["nest"], kept["pole_seated"])
        ctl_r, ctl_w = os.pipe()
        cfg = {
            "hw": {**self.hw, "hx711_sps": HX711_SPS, "hx711_offset": HX711_OFFSET,
                   "hx711_counts_per_g": HX711_COUNTS_PER_G, "world_state": kept},
            "seed": self.seed,
            "epoch_ms": self.epoch_ms,
            "flash_dir": str(self.flash_dir) if self.flash_dir else None,
            "shim_dir": str(SHIM_DIR),
            "world_path": str(WORLD_PY),
            "ctl_fd": ctl_w,
            "timing": self.timing,
            "timing_factor": self.timing_factor,
            "vm": str(vm),
        }
        self._log = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen([node, str(BOARD_MJS), json.dumps(cfg)], cwd=HERE,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                         pass_fds=(ctl_w,))
        except FileNotFoundError as e:
            raise NestError(f"cannot start the virtual board: {self.node!r} not found "
                            "(Node.js 20 is needed)") from e
        os.close(ctl_w)
        self._ctl = os.fdopen(ctl_r, "rb")
        for target in (self._pump_to_board, self._pump_from_board, self._read_control):
            t = threading.Thread(target=target, daemon=True, name=f"vboard-{target.__name__}")
            t.start()
            self._threads.append(t)
        if not self._ready.wait(START_TIMEOUT_S):
            self.stop(keep_log=True)  # the error names it
            raise NestError(f"the virtual board did not start within {START_TIMEOUT_S:.0f} s; "
                            f"its log: {self.log_path}: {self._log_tail()}")
        self.server = ControlServer(self, port=self.control_port)
        self.control_address = self.server.address
        self.control = ControlClient(self.control_address)
        return self

    def stop(self, keep_log=False):
        """Stops the board (its flash folder saved). A log file made up here is deleted when the
        board ended cleanly, unless `keep_log` (an error message names it)."""
        self._stop.set()
        if getattr(self, "server", None):
            self.server.close()
            self.server = None
        if self.control:
            self.control.close()
        if self.proc and self.proc.poll() is None:
            # End of input is the board's signal to save the flash folder and exit (a signal alone
            # cannot end Node while its reader thread sits in a blocking read)
            with self._stdin_lock:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (getattr(self, "master", None), getattr(self, "slave", None)):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None
        if getattr(self, "_log", None):
            self._log.close()
            # a log we made up ourselves is kept only when the board did not end cleanly
            if self._own_log and not keep_log and self.proc is not None and self.proc.returncode == 0:
                self.log_path.unlink(missing_ok=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _log_tail(self):
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    # ---- serial relay ----
    def _send_frame(self, kind, payload):
        frame = kind + len(payload).to_bytes(4, "little") + payload
        with self._stdin_lock:
            try:
                self.proc.stdin.write(frame)
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass

    def _pump_to_board(self):
        line = _Line(self.baud)
        while not self._stop.is_set():
            try:
                r, _, _ = select.select([self.master], [], [], 0.2)
                if not r:
                    continue
                data = os.read(self.master, line.chunk())
            except (BlockingIOError, InterruptedError):
                continue
            except (OSError, TypeError, ValueError):
                return
            line.wait(len(data))
            self._send_frame(b"S", data)

    def _pump_from_board(self):
        line = _Line(self.baud)
        out = self.proc.stdout.fileno()
        while not self._stop.is_set():
            try:
                data = os.read(out, line.chunk())
            except OSError:
                return
            if not data:
                return
            line.wait(len(data))
            self._write_pty(data)

    def _client_attached(self):
        """Has a process other than this one the serial port open? (a scan of /proc)"""
        me = str(os.getpid())
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid == me:
                continue
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == self.port:
                        return True
            except OSError:
                continue
        return False

    def _write_pty(self, data):
        # A UART with nobody listening loses its bytes; a pty would instead fill up and stall the
        # board. So with no client, what is waiting unread is flushed; a client that does not
        # read gets a second, then the chunk is dropped.
        deadline = time.monotonic() + 1.0
        while data and not self._stop.is_set():
            try:
                n = os.write(self.master, data)
                data = data[n:]
            except BlockingIOError:
                if not self._client_attached():
                    termios.tcflush(self.slave, termios.TCIFLUSH)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                try:
                    select.select([], [self.master], [], min(left, 0.1))
                except (OSError, TypeError, ValueError):
                    return
            except (OSError, TypeError, ValueError):
                return

    # ---- control ----
    def _read_control(self):
        for raw in self._ctl:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if msg.get("event") == "ready":
                self._ready.set()
                continue
            waiter = self._waiting.pop(msg.get("id"), None)
            if waiter:
                waiter[1].update(msg)
                waiter[0].set()

    def board_request(self, req, timeout=REQUEST_TIMEOUT_S):
        """Send one request to board.mjs and wait for its answer."""
        if not self.alive():
            return {"ok": False, "error": f"the virtual board is not running (log: {self.log_path})"}
        with self._id_lock:
            self._next_id += 1
            rid = self._next_id
        done, answer = threading.Event(), {}
        self._waiting[rid] = (done, answer)
        # One request per line: requests from several clients can meet in the board's ring.
        self._send_frame(b"C", json.dumps({**req, "id": rid}).encode() + b"\n")
        if not done.wait(timeout):
            self._waiting.pop(rid, None)
            return {"ok": False, "error": f"the board did not answer within {timeout:.0f} s (Python busy "
                                          "without sleeping or touching hardware?)"}
        answer.pop("id", None)
        return answer

    def _kept_world(self):
        """The world state saved beside the flash folder, or None (none kept, or unreadable: then
        the nest starts full, as before, and the log says why)."""
        if not self.world_file or not self.world_file.exists():
            return None
        try:
            kept = json.loads(self.world_file.read_text())
            NestWorld(seed=self.seed).restore(kept["nest"], bool(kept["pole_seated"]))  # validates
            return {"nest": kept["nest"], "pole_seated": bool(kept["pole_seated"])}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            why = f"vboard: {self.world_file}: not restored ({e}); the nest starts full"
            print(why, file=sys.stderr)
            with open(self.log_path, "a") as log:  # the board's log says it too
                log.write(why + "\n")
            return None

    def save_world(self):
        """Write the world's state beside the flash folder (atomically: a kill never leaves half)."""
        if not self.world_file:
            return
        tmp = self.world_file.with_name(self.world_file.name + ".tmp")
        tmp.write_text(json.dumps(self.world.state()))
        os.replace(tmp, self.world_file)

    def world_ms(self):
        return int(time.time() * 1000) - self.epoch_ms
