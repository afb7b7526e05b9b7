# Files on flash that survive a power cut at any instant: config, calibration, the running game.
#
# A file is written whole to PATH.tmp and then renamed over PATH. On the ESP32's littlefs (and on
# POSIX) the rename is atomic, so a reader finds either the old file or the new one, never a mix;
# a cut before the rename loses only the write in flight. A header line carries the payload's
# length and CRC-32, so a file damaged any other way is reported, never trusted.

import binascii
import os

_MAGIC = "gulo1"
_TMP = ".tmp"


class CorruptFile(ValueError):
    """A stored file whose header, length or checksum is wrong."""

    def __init__(self, path, reason):
        super().__init__("%s: %s" % (path, reason))
        self.path = path
        self.reason = reason


def _crc(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def save(path, data):
    """Store bytes (or text) at `path` atomically."""
    if isinstance(data, str):
        data = data.encode()
    tmp = path + _TMP
    with open(tmp, "wb") as f:
        f.write(("%s %08x %d\n" % (_MAGIC, _crc(data), len(data))).encode())
        f.write(data)
    sync = getattr(os, "sync", None)  # flush littlefs' caches before the commit point
    if sync:
        sync()
    os.rename(tmp, path)


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
        magic, crc, length = header.decode().split()
        crc = int(crc, 16)
        length = int(length)
    except (ValueError, UnicodeError):
        raise CorruptFile(path, "no valid header")
    if magic != _MAGIC:
        raise CorruptFile(path, "unknown format %r" % magic)
    if len(data) != length:
        raise CorruptFile(path, "truncated: %d of %d bytes" % (len(data), length))
    if _crc(data) != crc:
        raise CorruptFile(path, "checksum mismatch")
    return data


def remove_leftovers(folder):
    """Delete the .tmp files of writes that a power cut interrupted; returns their names."""
    gone = []
    for name in os.listdir(folder):
        if name.endswith(_TMP):
            os.remove(folder + "/" + name)
            gone.append(name)
    return gone
