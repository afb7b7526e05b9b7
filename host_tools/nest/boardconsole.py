"""A client for the running nest app's console: JSON lines over the USB serial (pyserial).

The app prints one JSON object per line (`{"ev": ...}` unasked, `{"re": cmd, "ok": ...}` answers)
and reads `{"cmd": ...}` lines. This client sends commands with an `id`, waits for the answer with
that id, and keeps every other line (events) in order for whoever follows them (`nest monitor`,
`nest diag`), so nothing is lost between two waits.

Opening the port does not reset the board: DTR and RTS are set inactive before the port opens (on
an ESP32 DevKit they drive EN and GPIO0 through the auto-reset transistors), so a running game
goes on. The port is taken with the exclusive lock every nest command takes (nest.portlock), so
`nest monitor` and `nest deploy` cannot talk over each other. The commands that use this client
are monitor, diag, calibrate and logs.

    with BoardConsole.open(port) as con:     # NestError if the board does not speak JSON lines
        con.request("status")                # the answer dict; NestError if ok is false
        for ev in con.events(seconds=5): ...
"""

import collections
import json
import time

from nest.boardtrust import BoardLie, Malformed, checked, plain
from nest.errors import NestError

BAUD = 115200
PROBE_S = 3.0  # how long a running app may take to answer `status` (it polls the console every 20 ms)


def json_line(raw):
    """One line the app printed (bytes, no newline) as (the JSON object or None, its text).

    Anything that is not a JSON object (a traceback, the boot banner, a bare number) gives None with
    its text; a blank line gives (None, "")."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text) if text else None
    except ValueError:
        obj = None
    return (obj if isinstance(obj, dict) else None), text


class BoardConsole:
    def __init__(self, serial_port, name="the board"):
        self.ser = serial_port
        self.name = name
        self.buf = b""
        self.pending = collections.deque()  # event lines read while waiting for an answer
        self.other = collections.deque(maxlen=20)  # recent lines that were not JSON
        self.next_id = 1

    @classmethod
    def open(cls, port, baud=BAUD, probe=True):
        from nest.portlock import open_serial  # pyserial inside: imported here so `nest --help` stays quick

        # The lock every nest command takes (a port in use is refused, naming who has it); DTR and
        # RTS inactive before open(): no reset, no bootloader.
        con = cls(open_serial(port, baud, timeout=0.05), port)
        if probe:
            try:
                con.probe()
            except BaseException:
                con.close()
                raise
        return con

    def close(self):
        self.ser.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- lines ---------------------------------------------------------------------------------

    def _read_line(self, deadline):
        """The next JSON object from the port (events queued first), or None at the deadline."""
        if self.pending:
            return self.pending.popleft()
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                raw, self.buf = self.buf[:nl], self.buf[nl + 1:]
                obj, text = json_line(raw)
                if obj is not None:
                    try:
                        return checked(obj)
                    except BoardLie as e:  # passed on as such: a reader never gets a lying shape
                        return Malformed(obj, e)
                if text:
                    self.other.append(text)
                continue
            if time.monotonic() >= deadline:
                # a prompt has no newline: keep it visible for the REPL diagnosis
                if self.buf.rstrip().endswith(b">>>"):
                    self.other.append(">>>")
                    self.buf = b""
                return None
            try:
                chunk = self.ser.read(self.ser.in_waiting or 1)
            except OSError as e:  # pyserial's SerialException is an OSError
                raise NestError(f"lost the connection to {self.name}: {e}") from None
            self.buf += chunk

    def send(self, cmd, **fields):
        """Send one command line; returns its id."""
        id = self.next_id
        self.next_id += 1
        line = json.dumps({"cmd": cmd, "id": id, **fields}) + "\n"
        try:
            self.ser.write(line.encode())
        except OSError as e:
            raise NestError(f"lost the connection to {self.name}: {e}") from None
        return id

    def wait_answer(self, cmd, id, timeout=5.0):
        """The answer to command `id`; events read meanwhile are kept for events()."""
        deadline = time.monotonic() + timeout
        kept = []
        try:
            while True:
                obj = self._read_line(deadline)
                if obj is None:
                    raise NestError(self._silence(f"no answer to {cmd} within {timeout:g} s"))
                if isinstance(obj, Malformed) and obj.re == cmd and obj.id == id:
                    raise NestError(f"{self.name} answered {cmd} with a malformed line: {obj['malformed']}")
                if obj.get("re") == cmd and obj.get("id") == id:
                    return obj
                kept.append(obj)
        finally:
            self.pending.extendleft(reversed(kept))

    def request(self, cmd, timeout=5.0, check=True, **fields):
        """Send a command and return its answer; NestError naming the board's reason if refused."""
        answer = self.wait_answer(cmd, self.send(cmd, **fields), timeout)
        if check and not answer.get("ok"):
            raise NestError(f"the board refused {cmd}: {plain(answer.get('error'))}")
        return answer

    def events(self, seconds=None):
        """Every line the board sends, in order, for `seconds` (None: until interrupted); a line whose
        shape is not its kind's (nest.boardtrust) as a Malformed."""
        end = None if seconds is None else time.monotonic() + seconds
        while end is None or time.monotonic() < end:
            deadline = time.monotonic() + 0.2
            if end is not None:
                deadline = min(deadline, end)
            obj = self._read_line(deadline)
            if obj is not None:
                yield obj

    # ---- diagnosis -----------------------------------------------------------------------------

    def probe(self):
        """Make sure the nest app answers; a clear NestError (REPL, silence) otherwise."""
        self.request("status", timeout=PROBE_S)

    def _silence(self, what):
        seen = list(self.other)
        if any(">>>" in s or "MicroPython" in s or "Traceback" in s for s in seen):
            return (f"{self.name} does not answer JSON lines: it sits at the MicroPython REPL ({what}). "
                    "Run `nest reset` (or press EN) so main.py starts the nest app, or `nest deploy` "
                    "if the firmware is not on it (it shows main.py's traceback if it fails)")
        if seen:
            said = plain(repr(seen[-1][:80]))
            return (f"{self.name} does not answer JSON lines ({what}); it printed: {said}. "
                    "Run `nest reset`, or `nest deploy`")
        return (f"{self.name} is silent ({what}): is the nest firmware on it? Reset the board or run "
                "`nest deploy`")


def open_console(args):
    """The console of the board named by --port, or of the single board found."""
    from nest.ports import pick_port

    return BoardConsole.open(pick_port(getattr(args, "port", None)))
