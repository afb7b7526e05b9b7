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
# How long the app may take from a soft reset to its `ready` line. Measured on the virtual board at
# ESP32 timing: 179 ms (docs/benchmarks.md, boot -> ready); the rest is room for a game resumed
# from a long log and a slow first mount.
BOOT_S = 15.0


def shown(data, limit=120):
    """What the board sent, for a message: its last `limit` characters as text (control characters
    as spaces, quoted), or "nothing" -- never a Python bytes repr."""
    text = data.decode("utf-8", "replace")[-limit:]
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return f'"{text}"' if text else "nothing"


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
                        f"try pressing EN/RST); it sent {shown(seen)}")

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
            # the friendly REPL's banner ends with its prompt: waited for, not for 0.1 s of quiet
            self.t.read_until(1, b">>> ", timeout=1.0, timeout_overall=1.0)
            self.serial.write(b"\x04")
            data = self.t.read_until(1, b"soft reboot\r\n", timeout=3, timeout_overall=5)
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        if not data.endswith(b"soft reboot\r\n"):
            raise NestError(f"the board on {self.port} did not reset; it sent {shown(data)}")

    def hard_reset(self):
        """machine.reset() from the raw REPL: the chip restarts (as by EN) and runs boot.py and
        main.py; no answer comes back, so the command is sent, not executed and waited for."""
        try:
            self.t.exec_raw_no_follow("import machine\nmachine.reset()")
            self.t.in_raw_repl = False  # the board restarts into the friendly REPL, then main.py
        except TransportError as e:
            raise NestError(f"the board on {self.port} did not take the reset: {e}") from None
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None

    def watch_boot(self, timeout=BOOT_S):
        """After soft_reset_to_main: follow what boot.py and main.py print until the nest app says
        `ready` (returned: "ready (new game)", or the safe mode's line). NestError if main.py raised
        (its traceback in the message), ended at the REPL, or the app said nothing in `timeout` s."""
        from nest.boardconsole import json_line

        seen = buf = b""
        at_repl = False
        end = time.monotonic() + timeout
        try:
            while time.monotonic() < end and not at_repl:
                chunk = self.serial.read(self.serial.in_waiting or 1)
                seen += chunk
                *lines, buf = (buf + chunk).split(b"\n")
                for raw in lines:
                    ev = json_line(raw)[0] or {}
                    if ev.get("ev") == "ready":
                        return f"ready ({'game resumed' if ev.get('resumed') else 'new game'})"
                    if ev.get("ev") == "safe_mode":
                        return "in safe mode (the menu button was held at boot): the game did not start"
                at_repl = buf.rstrip().endswith(b">>>")
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        text = seen.decode("utf-8", "replace")
        if "Traceback (most recent call last)" in text:
            trace = text[text.rindex("Traceback (most recent call last)"):]
            banner = ("MicroPython v", 'Type "help()"', ">>>")  # the REPL's, after the traceback
            trace = "\n".join(line.rstrip() for line in trace.splitlines()
                              if line.strip() and not line.startswith(banner))
            raise BoardError(f"the firmware did not start on {self.port}: main.py raised at boot and the "
                             f"board sits at the REPL:\n{trace}\nfix it and deploy again", trace)
        if at_repl:
            raise NestError(f"the firmware did not start on {self.port}: main.py ended without starting the "
                            f"nest app and the board sits at the REPL (it printed {shown(seen)})")
        raise NestError(f"the firmware on {self.port} did not say it was ready within {timeout:g} s of the "
                        f"reset (it printed {shown(seen)}); `nest monitor` follows what it does")

    def soft_reset_raw(self):
        """Soft reset that stays in the raw REPL (main.py does not run): a clean heap."""
        try:
            self.serial.write(b"\x04")
            data = self.t.read_until(1, RAW_BANNER, timeout=5, timeout_overall=10)
        except (OSError, serial.SerialException) as e:
            raise NestError(f"lost the connection to the board on {self.port}: {e}") from None
        if not data.endswith(RAW_BANNER):
            raise NestError(f"the board on {self.port} did not come back after a reset; "
                            f"it sent {shown(data)}")
