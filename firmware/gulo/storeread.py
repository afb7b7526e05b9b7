# Reading back the files gulo.store writes (a header line "gulo1 CRC32 LENGTH", then the payload):
# at boot (the running game, config, calibration; the leftovers of interrupted writes) and on a
# console request (a finished game's log).

import os

from gulo.store import MAGIC, TMP, crc


class CorruptFile(ValueError):
    """A stored file whose header, length or checksum is wrong."""

    def __init__(self, path, reason):
        super().__init__("%s: %s" % (path, reason))
        self.path = path
        self.reason = reason


def load(path):
    """The bytes stored at `path`, None if there is no such file; CorruptFile if it is damaged."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    with f:
        header = f.readline()
        data = f.read()
    try:
        magic, checksum, length = header.decode().split()
        checksum = int(checksum, 16)
        length = int(length)
    except (ValueError, UnicodeError):
        raise CorruptFile(path, "no valid header")
    if magic != MAGIC:
        raise CorruptFile(path, "unknown format %r" % magic)
    if len(data) != length:
        raise CorruptFile(path, "truncated: %d of %d bytes" % (len(data), length))
    if crc(data) != checksum:
        raise CorruptFile(path, "checksum mismatch")
    return data


def remove_leftovers(folder):
    """Delete the .tmp files of writes that a power cut interrupted; returns their names."""
    gone = []
    for name in os.listdir(folder):
        if name.endswith(TMP):
            os.remove(folder + "/" + name)
            gone.append(name)
    return gone
