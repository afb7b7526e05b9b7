# Files on flash that survive a power cut at any instant: config and calibration (whole files),
# the running game's log (appended one line at a time) and the finished games.
#
# Whole files (store.save/load): written to PATH.tmp and then renamed over PATH. On the ESP32's
# littlefs (and on POSIX) the rename is atomic, so a reader finds either the old file or the new
# one, never a mix; a cut before the rename loses only the write in flight. A header line
# "gulo1 CRC32 LENGTH" carries the payload's checksum, so a file damaged any other way is
# reported, never trusted.
#
# Sealed lines (seal/unseal/append/read_lines): a game log is JSON Lines, one line appended per
# action, each line sealed with the CRC-32 of its own text as a last key, so every line is still a
# plain JSON object that any reader of the log contract reads (readers ignore keys they do not
# know, docs/rules.md). A cut during an append leaves at most a torn or damaged LAST line
# (on littlefs not even that: an append is only committed at close, lfs_file_close in
# littlefs-project/littlefs lfs.c); read_lines drops it and says so, and treats damage anywhere
# before the last line as a damaged file.

import binascii
import os

MAGIC = "gulo1"
TMP = ".tmp"
# The seal: `{...}` becomes `{..., "crc": "1a2b3c4d"}`, the CRC-32 taken over `{...}` (the line
# without its seal). A fixed-width suffix, so unseal finds it without parsing the JSON.
_SEAL = ', "crc": "'
_SEAL_LEN = len(_SEAL) + 8 + 2  # the suffix, its 8 hex digits and the closing '"}'
_CHUNK = 512  # bytes per read when a file is copied


class CorruptFile(ValueError):
    """A stored file whose header, length, checksum or a line's seal is wrong."""

    def __init__(self, path, reason):
        super().__init__("%s: %s" % (path, reason))
        self.path = path
        self.reason = reason


def crc(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def _sync():
    sync = getattr(os, "sync", None)  # flush littlefs' caches before the commit point
    if sync:
        sync()


def _atomic(path, fill):
    """Write `path` whole and atomically: fill(f) writes PATH.tmp, which is then renamed over it."""
    tmp = path + TMP
    try:
        with open(tmp, "wb") as f:
            fill(f)
    except OSError:
        # A full flash (ENOSPC) fails here: the half-written .tmp would only hold on to the
        # blocks the next try needs. The file at `path` is untouched.
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    _sync()
    os.rename(tmp, path)


def replace(path, *chunks):
    """Store `chunks` (bytes or text) as the whole of `path`, atomically."""
    def fill(f):
        for chunk in chunks:
            f.write(chunk.encode() if isinstance(chunk, str) else chunk)
    _atomic(path, fill)


def copy(path, src):
    """The file at `src` copied to `path`, atomically, _CHUNK bytes at a time (no whole-file
    buffer). The file written comes first, as in every writer here (GameStore._write)."""
    def fill(f):
        with open(src, "rb") as s:
            while True:
                chunk = s.read(_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
    _atomic(path, fill)


def save(path, data):
    """Store bytes (or text) at `path` atomically, behind a checksummed header."""
    if isinstance(data, str):
        data = data.encode()
    replace(path, "%s %08x %d\n" % (MAGIC, crc(data), len(data)), data)


def _read(path):
    """The bytes at `path`, None if there is no such file."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    with f:
        return f.read()


def _unheader(path, data):
    """The payload of a whole file store.save wrote (`data`: the file's bytes)."""
    header, _, body = data.partition(b"\n")
    try:
        magic, checksum, length = header.decode().split()
        checksum = int(checksum, 16)
        length = int(length)
    except (ValueError, UnicodeError):
        raise CorruptFile(path, "no valid header")
    if magic != MAGIC:
        raise CorruptFile(path, "unknown format %r" % magic)
    if len(body) != length:
        raise CorruptFile(path, "truncated: %d of %d bytes" % (len(body), length))
    if crc(body) != checksum:
        raise CorruptFile(path, "checksum mismatch")
    return body


def load(path):
    """The bytes stored at `path` by save, None if there is no such file; CorruptFile if damaged."""
    data = _read(path)
    return None if data is None else _unheader(path, data)


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def remove_leftovers(folder):
    """Delete the .tmp files of writes that a power cut interrupted; returns their names."""
    gone = []
    for name in os.listdir(folder):
        if name.endswith(TMP):
            os.remove(folder + "/" + name)
            gone.append(name)
    return gone


# ---- sealed lines ----------------------------------------------------------------------------------

def seal(text):
    """A JSON object's text (`{...}`, not empty) with its own CRC-32 as a last key."""
    return "%s%s%08x\"}" % (text[:-1], _SEAL, crc(text.encode()))


def unseal(line):
    """The text `seal` was given, or None if `line` is not a whole, intact sealed line."""
    if len(line) <= _SEAL_LEN or not line.endswith('"}') or line[-_SEAL_LEN:-10] != _SEAL:
        return None
    text = line[:-_SEAL_LEN] + "}"
    try:
        if int(line[-10:-2], 16) != crc(text.encode()):
            return None
    except ValueError:
        return None
    return text


def append(path, line):
    """Add one line (text, no newline) at the end of `path`."""
    with open(path, "ab") as f:
        f.write(line.encode() + b"\n")
    _sync()


def sealed(path):
    """False if `path` is a whole file behind a header (a log an earlier firmware wrote)."""
    with open(path, "rb") as f:
        return f.read(len(MAGIC) + 1) != MAGIC.encode() + b" "


def read_lines(path, each):
    """Calls each(text) for every line of a log of sealed lines, unsealed, in order, reading one
    line at a time: a log is never held whole in RAM (a game's log is 2-4 KB, and on the ESP32
    memory model the largest free block can be smaller: docs/firmware-budgets.md). Returns (count,
    dropped), (None, None) if there is no such file. `dropped` is None, or what was wrong with the
    last line, which is left out (torn: no newline at its end, or its seal does not match: a write
    a power cut interrupted). CorruptFile for damage anywhere before the last line (the lines
    before it have been passed to `each` by then). A log written whole by an earlier firmware (a
    "gulo1" header, plain lines) is read as it was written."""
    try:
        f = open(path, "rb")
    except OSError:
        return None, None
    with f:
        line = f.readline()
        if line.startswith(MAGIC.encode() + b" "):
            texts = [t for t in _unheader(path, line + f.read()).decode().split("\n") if t]
            for t in texts:
                each(t)
            return len(texts), None
        n = 0
        while line:
            after = f.readline()
            if not line.endswith(b"\n"):
                return n, "torn last line (%d bytes, no end): dropped" % len(line)
            try:
                text = unseal(line[:-1].decode())
            except UnicodeError:
                text = None
            if text is None:
                if not after:
                    return n, "damaged last line %d: dropped" % (n + 1)
                raise CorruptFile(path, "line %d damaged (its checksum does not match)" % (n + 1))
            each(text)
            n += 1
            line = after
        return n, None


def load_lines(path):
    """read_lines' lines as a list: (lines, dropped), (None, None) if there is no such file. For
    the boot's resume, which replays them all."""
    lines = []  # type: list[str]
    n, dropped = read_lines(path, lines.append)
    return (None, None) if n is None else (lines, dropped)
