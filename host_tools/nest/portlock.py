"""One exclusive lock per serial port for every `nest` command that opens the board, and who holds it.

The lock is pyserial's `exclusive=True`: `flock(LOCK_EX | LOCK_NB)` on POSIX (serialposix.py,
`Serial.open`); Windows opens a COM port for one program only anyway. esptool (loader.py) and
mpremote (transport_serial.py) open their ports the same way, so `nest flash`, mpremote and every
nest command exclude each other.

A lock alone says only "busy". So that the refusal names the holder, a command that takes the port
leaves a note `<runtime dir>/ports/<port>.json` ({pid, command}) while it holds it; a note whose
process is gone is ignored. A holder that is not `nest` (a serial monitor, Thonny) is looked up in
Linux's /proc/*/fd; elsewhere the message says "another program".
"""

import json
import os
import sys
from pathlib import Path

import serial

from nest.errors import NestError
from nest.ports import pid_alive, private_dir, runtime_dir, write_private


def _note_path(port):
    name = str(port).replace("/", "_").replace("\\", "_").replace(":", "_").strip("_")
    return runtime_dir() / "ports" / f"{name}.json"


def this_command():
    """How this process was started, as a user would type it (`nest monitor --port ...`)."""
    args = sys.argv[1:]
    prog = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    if prog in ("nest", "nest.exe", "__main__.py", "cli.py"):
        prog = "nest"
    return " ".join([prog, *args])[:120]


def claim(port):
    """Leave the note naming this process as the port's holder; returns its path (for release)."""
    path = _note_path(port)
    private_dir(private_dir().joinpath("ports"))  # NestError if another user could plant notes
    try:
        write_private(path, json.dumps({"pid": os.getpid(), "command": this_command(), "port": str(port)}))
    except OSError:
        return None  # the note is a courtesy: the lock itself is the port's
    return path


def release(note):
    if note is None:
        return
    try:
        if json.loads(note.read_text()).get("pid") == os.getpid():
            note.unlink()
    except (OSError, ValueError):
        pass


def _proc_holders(port):
    """(pid, program name) of the processes that have `port` open (Linux /proc; [] elsewhere).
    Not psutil: its Process.open_files() lists regular files only, never a tty."""
    try:
        target = os.path.realpath(port)
        pids = [d for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return []
    found = []
    for pid in pids:
        if int(pid) == os.getpid():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    found.append((int(pid), Path(f"/proc/{pid}/comm").read_text().strip()))
                    break
        except OSError:
            continue  # another user's process, or gone meanwhile
    return found


def who_holds(port):
    """`nest monitor --port P` (pid 12), `picocom` (pid 40), ... or None when nobody is known."""
    try:
        private_dir(_note_path(port).parent, create=False)  # a note another user could plant is no name
        note = json.loads(_note_path(port).read_text())
        if note["pid"] != os.getpid() and pid_alive(int(note["pid"])):
            return f"`{note['command']}` (pid {note['pid']})"
    except (OSError, ValueError, KeyError, TypeError, NestError):
        pass
    holders = _proc_holders(port)
    if holders:
        return ", ".join(f"{name} (pid {pid})" for pid, name in holders)
    return None


def busy_error(port, error):
    """The NestError for a port that would not open: who holds it if it is held, else why."""
    text = str(error)
    held = "exclusively lock" in text or "busy" in text.lower() or "Errno 11" in text \
        or "Errno 16" in text or "PermissionError(13" in text  # Windows: access denied = in use
    if held:
        who = who_holds(port)
        return NestError(f"port {port} is busy: {who or 'another program'} has it open"
                         + ("" if who else " (a serial monitor, `nest monitor`, mpremote, Thonny?)")
                         + "; close it and try again")
    return NestError(f"cannot open {port}: {text}")


def open_serial(port, baud=115200, timeout=0.05, quiet_lines=True):
    """The port opened with the exclusive lock and the holder's note; `close()` releases both.

    quiet_lines: DTR and RTS inactive before open(), so opening does not reset an ESP32 DevKit
    (they drive EN and GPIO0 through its auto-reset transistors)."""
    ser = _LockedSerial()
    ser.port = port
    ser.baudrate = baud
    ser.timeout = timeout
    ser.exclusive = True
    if quiet_lines:
        ser.dtr = False
        ser.rts = False
    try:
        ser.open()
    except (serial.SerialException, OSError) as e:
        raise busy_error(port, e) from None
    ser.note = claim(port)
    return ser


class _LockedSerial(serial.Serial):  # serial.Serial is the platform's class (posix, win32)
    note = None

    def close(self):
        super().close()
        release(self.note)
        self.note = None
