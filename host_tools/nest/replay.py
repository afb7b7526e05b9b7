"""Replaying game logs on the host with the firmware's own engine (gulo.gamelog)."""

from pathlib import Path

from gulo.gamelog import LogError, read_log
from nest.errors import NestError


class ReplayError(NestError):
    """A log that cannot be replayed; the message is `FILE:LINE: reason`."""

    def __init__(self, path, line, reason):
        super().__init__(f"{path}:{line}: {reason}", status=2)
        self.path = path
        self.line = line
        self.reason = reason


def _lines(path):
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise NestError(f"cannot read {path}: {e.strerror}", status=2) from e
    for n, raw in enumerate(data.splitlines(), 1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ReplayError(path, n, "not UTF-8 text") from e


def replay_file(path):
    """The Game a log file leads to; ReplayError names the first bad line."""
    try:
        return read_log(_lines(path))
    except LogError as e:
        raise ReplayError(path, e.line, e.reason) from e
