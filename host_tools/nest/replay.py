"""Replaying game logs on the host with the firmware's own engine (gulo.gamelog).

The file is streamed a line at a time with bounds, so no input can exhaust the host: a line
longer than MAX_LINE bytes (a log's longest line, the set-up, is about 250 bytes), JSON nested
deeper than MAX_DEPTH (a log's deepest is 3: the set-up's path list), and anything that is not a
regular file (a FIFO would block for ever, /dev/zero never ends) are each a FILE:LINE: reason."""

import stat
from pathlib import Path

from gulo.console import ConsoleError, check_fields, load_object
from gulo.gamelog import LogError, read_log
from nest.errors import NestError
from nest.jsonguard import MAX_DEPTH, nesting_depth

MAX_LINE = 64 * 1024


class ReplayError(NestError):
    """A log that cannot be replayed; the message is `FILE:LINE: reason`."""

    def __init__(self, path, line, reason):
        super().__init__(f"{path}:{line}: {reason}", status=2)
        self.path = path
        self.line = line
        self.reason = reason


def _open(path):
    try:
        st = Path(path).stat()
    except OSError as e:
        raise NestError(f"cannot read {path}: {e.strerror}", status=2) from e
    if not stat.S_ISREG(st.st_mode):
        # a FIFO or a device: it may never end (or never begin), so it is not read at all
        raise ReplayError(path, 1, "not a regular file (a pipe, a device or a folder): save the log "
                                   "to a file first")
    try:
        return open(path, "rb")  # noqa: SIM115  (closed by _lines)
    except OSError as e:
        raise NestError(f"cannot read {path}: {e.strerror}", status=2) from e


def _lines(path, f):
    with f:
        n = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                return
            n += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise ReplayError(path, n, f"line longer than {MAX_LINE} bytes (not a game log)")
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as e:
                raise ReplayError(path, n, "not UTF-8 text") from e
            if nesting_depth(text) > MAX_DEPTH:
                raise ReplayError(path, n, f"JSON nested deeper than {MAX_DEPTH} levels (not a game log)")
            if text.strip():  # (a blank line is the reader's to judge)
                _as_the_console_would(path, n, text)
            yield text


# A log line's fields that the console also takes, by the console's kind for them (gulo.console).
LOG_FIELDS = {"players": "players", "variant": "variant", "seed": "int"}
# "t": milliseconds, the board's clock or the host's (nest play, nest web: since 1970), as an int64.
MAX_T = 2**63 - 1


def _as_the_console_would(path, n, text):
    """Refuse what the console refuses (gulo.console.load_object and its field kinds): a key given
    twice, NaN or Infinity, a number out of its field's range."""
    try:
        obj = load_object(text, '{"do": "reveal"}')
        check_fields(obj, LOG_FIELDS)
        if isinstance(obj.get("setup"), dict):
            check_fields(obj["setup"], LOG_FIELDS)
        t = obj.get("t", 0)
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= MAX_T:
            raise ConsoleError("field t must be a whole number of milliseconds >= 0")
    except ConsoleError as e:
        raise ReplayError(path, n, str(e)) from None


def replay_file(path):
    """The Game a log file leads to; ReplayError names the first bad line."""
    f = _open(path)
    try:
        return read_log(_lines(path, f))
    except LogError as e:
        raise ReplayError(path, e.line, e.reason) from e
    finally:
        f.close()
