"""Finding the board: serial ports with their USB identity, and the one to use.

Every command that talks to a board calls `pick_port(args.port)`: an explicit port wins; otherwise
the board is picked when exactly one ESP32-like port is present (a USB bridge chip known to sit on
ESP32 boards, or a running virtual board); otherwise a clear error lists what was seen.
"""

import getpass
import json
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nest.errors import NestError

# Which USB serial ports are taken for an ESP32 when no --port is given. mpremote's `connect auto`
# takes the first port with any VID:PID (mpremote/commands.py, do_connect), which would pick a
# USB-serial adapter wired to something else; esptool has no list of bridges, only Espressif's own
# VID (esp_pylib.constants.ESPRESSIF_VID, used for the S2/S3/C3... native USB). So: any port with
# Espressif's VID, plus the third-party bridges ESP32 boards carry (DevKitC: CP2102N; clones:
# CH340/CH9102). Anything else is one `--port` (or `--port id:SERIAL`) away.
BRIDGES = {
    (0x10C4, 0xEA60): "Silicon Labs CP210x",
    (0x1A86, 0x7523): "WCH CH340",
    (0x1A86, 0x55D4): "WCH CH9102",
    (0x1A86, 0x55D3): "WCH CH343",
    (0x0403, 0x6001): "FTDI FT232R",
    (0x0403, 0x6010): "FTDI FT2232",
    (0x0403, 0x6015): "FTDI FT231X",
}


@dataclass
class Port:
    device: str
    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None
    description: str = ""
    virtual: bool = False

    @property
    def bridge(self):
        if self.virtual:
            return "virtual board"
        from esp_pylib.constants import ESPRESSIF_VID, USB_JTAG_SERIAL_PID  # esptool's own

        if self.vid == ESPRESSIF_VID:
            return "Espressif USB-Serial/JTAG" if self.pid == USB_JTAG_SERIAL_PID else "Espressif USB"
        return BRIDGES.get((self.vid, self.pid))

    @property
    def esp32_like(self):
        return self.bridge is not None

    def line(self):
        usb = f"{self.vid:04X}:{self.pid:04X}" if self.vid is not None else "-"
        return (f"{self.device:<16} {usb:<10} {self.serial_number or '-':<18} "
                f"{self.bridge or '(not an ESP32 bridge)':<28} {self.description}")


def runtime_dir():
    """This user's folder for the notes running `nest` processes leave (virtual boards, port holders).

    XDG_RUNTIME_DIR on Linux; else the temp folder, per user: os.getuid() exists on POSIX only
    (Python docs, os.getuid: "Availability: Unix"), so Windows names the folder after the user."""
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    who = os.getuid() if hasattr(os, "getuid") else (os.environ.get("USERNAME") or getpass.getuser())
    return Path(base) / f"gulo-nest-{who}"


def private_dir(folder=None, create=True):
    """`folder` (the runtime folder by default) as a folder only this user can use: made 0700 if
    missing (None when missing and not `create`), NestError when it is a link, not this user's, or
    writable by the group or others (anyone could then plant a note naming a port, or a link where a
    note is written); a folder of this user's readable by others is closed to 0700. On Windows
    (no os.getuid) the per-user temp folder is private already and mode bits mean little."""
    folder = Path(folder or runtime_dir())
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            raise NestError(f"cannot make the runtime folder {folder}: {e.strerror}") from None
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise NestError(f"cannot use the runtime folder {folder}: {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise NestError(f"the runtime folder {folder} is not a folder (a link or a file): refusing to "
                        "use it; remove it, or set XDG_RUNTIME_DIR to a folder of your own")
    if not hasattr(os, "getuid"):
        return folder
    if st.st_uid != os.getuid():
        raise NestError(f"the runtime folder {folder} belongs to another user (uid {st.st_uid}): refusing "
                        "to use it; remove it, or set XDG_RUNTIME_DIR to a folder of your own")
    if st.st_mode & 0o022:
        raise NestError(f"the runtime folder {folder} is writable by other users "
                        f"(mode {stat.S_IMODE(st.st_mode):o}): refusing to use it; remove it, or "
                        "set XDG_RUNTIME_DIR to a folder of your own")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def write_private(path, text):
    """`text` into `path` (in a private_dir), readable by this user only (0600), whole or not at all:
    written to a random temporary name created afresh (O_EXCL: never an existing file or link;
    O_NOFOLLOW where the system has it), then renamed over `path` (a rename replaces a link, never
    writes through it)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def virtual_board_dir():
    """Where running virtual boards (`nest sim`) announce themselves, one JSON file each."""
    return runtime_dir()


def announce_virtual_board(port, **extra):
    """Called by a running virtual board: returns the file to delete when it stops. The
    announcement carries the control channel's token: private_dir and write_private keep it this
    user's."""
    folder = private_dir(virtual_board_dir())
    note = json.dumps({"port": port, "pid": os.getpid(), **extra})
    return write_private(folder / f"{os.getpid()}.json", note)


def pid_alive(pid):
    """Whether process `pid` runs: psutil's pid_exists, which probes with os.kill(pid, 0) on POSIX
    and OpenProcess on Windows, where os.kill(pid, 0) would terminate the process (Python docs)."""
    import psutil

    return psutil.pid_exists(pid)


def virtual_boards():
    """Ports of the virtual boards running now (stale announcements are cleaned up)."""
    found = []
    folder = private_dir(virtual_board_dir(), create=False)  # another user's notes are never read
    for f in sorted(folder.glob("*.json")) if folder else []:
        try:
            info = json.loads(f.read_text())
            pid, port = int(info["pid"]), info["port"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid_alive(pid) and os.path.exists(port):
            found.append(Port(port, description=f"nest sim (pid {pid})", virtual=True))
        else:
            f.unlink(missing_ok=True)
    return found


def list_ports(comports=None):
    """Every serial port: USB ones with VID/PID and serial number, then virtual boards.
    `comports` is pyserial's `serial.tools.list_ports.comports` (injectable for tests)."""
    if comports is None:
        from serial.tools.list_ports import comports
    ports = [Port(p.device, p.vid, p.pid, p.serial_number, p.description or "")
             for p in comports()]
    return sorted(ports, key=lambda p: p.device) + virtual_boards()


def pick_port(explicit=None, comports=None, virtual=True):
    """The port to talk to: `explicit` (a device, or `id:SERIAL` as mpremote's `connect id:SERIAL`:
    the board with that USB serial number), else the one ESP32-like port. NestError when there is
    no board or more than one. virtual=False leaves running virtual boards out (`nest flash`)."""
    if explicit and explicit.startswith("id:"):
        wanted = explicit[3:]
        ports = list_ports(comports)
        found = [p for p in ports if p.serial_number == wanted]
        if not found:
            seen = ", ".join(f"{p.device} ({p.serial_number})" for p in ports if p.serial_number) or "none"
            raise NestError(f"no board with serial number {wanted} (serial numbers seen: {seen})")
        return found[0].device
    if explicit:
        # A COM port on Windows is no path (os.path.exists("COM3") is False): known if listed.
        if not explicit.startswith(("rfc2217:", "socket:")) and not os.path.exists(explicit) \
                and explicit not in {p.device for p in list_ports(comports)}:
            raise NestError(f"port {explicit} does not exist (see `nest ports`)")
        return explicit
    ports = list_ports(comports)
    boards = [p for p in ports if p.esp32_like and (virtual or not p.virtual)]
    if len(boards) == 1:
        return boards[0].device
    if not boards:
        seen = ", ".join(p.device for p in ports) or "none"
        if not virtual:
            raise NestError("no ESP32 board plugged in (virtual boards are never flashed): plug it in "
                            f"with a data USB cable (serial ports seen: {seen})")
        raise NestError("no ESP32 board found: plug it in with a data USB cable, or start a virtual "
                        f"one with `nest sim` (serial ports seen: {seen})")
    listing = "\n  ".join(p.line() for p in boards)
    raise NestError(f"{len(boards)} ESP32 boards found; choose one with --port:\n  {listing}")
