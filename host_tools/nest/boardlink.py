"""The raw-REPL link to the board, whatever it is doing.

Built on mpremote's `SerialTransport` (the reference implementation of the raw REPL and of
raw-paste flow control, kept by MicroPython) rather than a re-write. What is added here:
- a clear `NestError` for each way of failing to reach the board: no port, two boards (from
  `ports.pick_port`), a port held by another program (named: `nest.portlock`), no answer, a link
  lost half way;
- entering the raw REPL robustly while the game app runs: Ctrl-C a few times with short waits,
  drain what the app prints while it stops, Ctrl-A, check the banner, retry; never a soft reset
  unless asked (mpremote's `enter_raw_repl` soft-resets by default);
- a serial read timeout, so a silent board is "no answer" and not a hang (mpremote's default is
  `timeout=None`, and on a pty its reads block).
The transport is built by SerialTransport's own constructor, which opens the port: nothing here
depends on the state it keeps, so a new mpremote needs no change here.
"""

import time

import serial
from mpremote.transport import TransportError, TransportExecError
from mpremote.transport_serial import SerialTransport

from nest.errors import NestError
from nest.portlock import claim, open_serial, release
from nest.ports import pick_port

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
DEFAULT_BAUD = 115200


class BoardError(NestError):
    """Code sent to the board raised: `detail` is MicroPython's traceback."""

    def __init__(self, message, detail=""):
        super().__init__(message)
        self.detail = detail


class BoardLink:
    """One open connection to the board. Use as a context manager:

        with BoardLink.open(port) as link:
            link.enter_raw()
            out = link.exec("print(1)")
    """

    def __init__(self, transport, port, note=None):
        self.t = transport
        self.port = port
        self.note = note  # nest.portlock's note naming this process as the port's holder

    @classmethod
    def open(cls, port=None, baud=DEFAULT_BAUD, read_timeout=2.0):
        """mpremote's transport on the board's port, opened by its own constructor with the lock
        every nest command takes (nest.portlock: pyserial's exclusive open, and a note naming this
        process, so that a port in use is refused naming who has it). The modem lines are set as
        mpremote sets them: an ESP32 DevKit's auto-reset circuit resets on RTS without DTR, which
        opening never gives (pyserial sets DTR before RTS; mpremote clears both first for a
        CP210x on Windows), and every user of the link stops the app with Ctrl-C anyway."""
        port = pick_port(port)
        try:
            t = SerialTransport(port, baudrate=baud, exclusive=True, timeout=read_timeout)
        except TransportError:
            # mpremote says only "failed to access": the port opened as every nest command opens
            # it says why (busy, and who holds it; no such port)
            open_serial(port, baud).close()
            raise NestError(f"cannot open {port}") from None
        return cls(t, port, claim(port))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def serial(self):
        return self.t.serial

    def close(self, leave_raw=True):
        try:
            if leave_raw and self.t.in_raw_repl:
                self.t.exit_raw_repl()
            self.t.close()
        except (OSError, serial.SerialException):
            pass  # the link is gone already: nothing left to tidy
        finally:
            release(self.note)
            self.note = None

    # -- raw REPL ------------------------------------------------------------------------------
    def _drain(self, quiet_s=0.15, limit_s=3.0):
        """Read until the board has been silent for quiet_s (a stopping app prints a line or two)."""
        got = b""
        end = time.monotonic() + limit_s
        last = time.monotonic()
        while time.monotonic() < end:
            n = self.serial.in_waiting
            if n:
                got += self.serial.read(n)
                last = time.monotonic()
            elif time.monotonic() - last > quiet_s:
                break
            else:
                time.sleep(0.02)
        return got

    def enter_raw(self, attempts=4, banner_timeout=2.0):
        """Stop whatever runs and enter the raw REPL, without a soft reset. NestError if it never answers."""
        seen = b""
        try:
            for attempt in range(attempts):
                # Ctrl-C twice with a pause: the first may land while the app's KeyboardInterrupt
                # handler is still tidying up (deinit, WDT) and be swallowed.
                self.serial.write(b"\r\x03")
                time.sleep(0.02 + 0.1 * attempt)
                self.serial.write(b"\x03")
                seen = (seen + self._drain(quiet_s=0.06 + 0.1 * attempt))[-400:]
                self.serial.write(b"\r\x01")
                data = self.t.read_until(1, RAW_BANNER, timeout=banner_timeout,
                                         timeout_overall=banner_timeout)
                if data.endswith(RAW_BANNER):
                    self.t.in_raw_repl = True  # as its enter_raw_repl() sets it, which prints
                    return                     # to stdout what it saw when the banner is late
                seen = (seen + data)[-400:]
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        raise NestError(f"no answer from the board on {self.port} (is it an ESP32 running MicroPython? "
                        f"try pressing EN/RST); last bytes seen: {seen[-120:]!r}")

    def exec(self, code, timeout=10.0):
        """Run code in the raw REPL (raw-paste when the board offers it); its printed output (bytes)."""
        try:
            out, err = self.t.exec_raw(code, timeout=timeout)
        except TransportExecError as e:  # pragma: no cover - exec_raw returns err, exec raises
            raise BoardError(f"the board raised: {e.error_output.strip().splitlines()[-1]}",
                             e.error_output) from None
        except TransportError as e:
            raise NestError(f"the board stopped answering on {self.port}: {e}") from None
        except (OSError, serial.SerialException, TypeError, ValueError) as e:
            # TypeError/struct errors: a read came back short because the line went away.
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        if err:
            text = err.decode(errors="replace").strip()
            raise BoardError(f"the board raised: {text.splitlines()[-1] if text else '?'}", text)
        return out

    def eval_json(self, code, timeout=10.0):
        """Run code whose last printed line is JSON; returns it parsed."""
        import json

        out = self.exec(code, timeout=timeout).decode(errors="replace").strip().splitlines()
        try:
            return json.loads(out[-1])
        except (IndexError, ValueError):
            raise NestError(f"unexpected answer from the board: {out[-3:]!r}") from None

    def soft_reset_to_main(self):
        """Leave the raw REPL and soft-reset from the friendly REPL, so boot.py and main.py run."""
        try:
            self.t.exit_raw_repl()
            self._drain(quiet_s=0.1, limit_s=1.0)
            self.serial.write(b"\x04")
            data = self.t.read_until(1, b"soft reboot\r\n", timeout=3, timeout_overall=5)
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        if not data.endswith(b"soft reboot\r\n"):
            raise NestError(f"the board on {self.port} did not reset: {data[-120:]!r}")

    def soft_reset_raw(self):
        """Soft reset that stays in the raw REPL (main.py does not run): a clean heap."""
        try:
            self.serial.write(b"\x04")
            data = self.t.read_until(1, RAW_BANNER, timeout=5, timeout_overall=10)
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        if not data.endswith(RAW_BANNER):
            raise NestError(f"the board on {self.port} did not come back after a reset: {data[-120:]!r}")
