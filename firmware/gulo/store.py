# Files on flash that survive a power cut at any instant: config, calibration, the running game.
#
# A file is written whole to PATH.tmp and then renamed over PATH. On the ESP32's littlefs (and on
# POSIX) the rename is atomic, so a reader finds either the old file or the new one, never a mix;
# a cut before the rename loses only the write in flight. A header line carries the payload's
# length and CRC-32, so a file damaged any other way is reported, never trusted.
#
# Reading the files back is gulo.storeread's (load, CorruptFile): at boot and on a console
# request; this module writes, after every action of a game.

import binascii
import os

MAGIC = "gulo1"
TMP = ".tmp"


def crc(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def save(path, data):
    """Store bytes (or text) at `path` atomically."""
    if isinstance(data, str):
        data = data.encode()
    tmp = path + TMP
    try:
        with open(tmp, "wb") as f:
            f.write(("%s %08x %d\n" % (MAGIC, crc(data), len(data))).encode())
            f.write(data)
    except OSError:
        # A full flash (ENOSPC) fails here: the half-written .tmp would only hold on to the
        # blocks the next try needs. The file at `path` is untouched.
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    sync = getattr(os, "sync", None)  # flush littlefs' caches before the commit point
    if sync:
        sync()
    os.rename(tmp, path)
