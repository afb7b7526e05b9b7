"""Finding the board: serial ports with their USB identity, and the one to use.

Every command that talks to a board calls `pick_port(args.port)`: an explicit port wins; otherwise
the board is picked when exactly one ESP32-like port is present (a USB bridge chip known to sit on
ESP32 boards, or a running virtual board); otherwise a clear error lists what was seen.
"""

import getpass
import json
import os
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


def virtual_board_dir():
    """Where running virtual boards (`nest sim`) announce themselves, one JSON file each."""
    return runtime_dir()


def announce_virtual_board(port, **extra):
    """Called by a running virtual board: returns the file to delete when it stops."""
    folder = virtual_board_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"port": port, "pid": os.getpid(), **extra}))
    tmp.replace(path)
    return path


def pid_alive(pid):
    """Whether process `pid` runs: psutil's pid_exists, which probes with os.kill(pid, 0) on POSIX
    and OpenProcess on Windows, where os.kill(pid, 0) would terminate the process (Python docs)."""
    import psutil

    return psutil.pid_exists(pid)


def virtual_boards():
    """Ports of the virtual boards running now (stale announcements are cleaned up)."""
    found = []
    folder = virtual_board_dir()
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else []:
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
