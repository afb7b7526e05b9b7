"""The nest's own data on the board (`/data`: calibration, settings, game logs), copied off and put
back: `nest flash` backs it up before it touches the flash and restores what the flash lost.

    files = read_data(link)            # {"/data/calibration.json": b"...", ...} over the raw REPL
    folder = save_backup(files, port)  # on disk first: a flash cut half way loses nothing
    restore_data(link, files)          # each file written to a temporary name, checked, renamed

Files are read and written in base64 chunks, each one exec, so a game log of any size needs only
a chunk's worth of the board's heap.
"""

import base64
import hashlib
import json
import time
from pathlib import Path

from nest.errors import NestError

DATA = "/data"
CHUNK = 4096  # bytes per exec: 5.5 KB of base64 each way, well inside the board's free heap

_LIST = """
import os, json
def _ls(p, out):
    for e in os.ilistdir(p):
        q = p + '/' + e[0]
        if e[1] & 0x4000:
            _ls(q, out)
        else:
            out.append([q, os.stat(q)[6]])
_o = []
try:
    _ls(%r, _o)
except OSError:
    pass
print(json.dumps(_o))
"""
_READ = """
import binascii
with open(%r, 'rb') as _f:
    _f.seek(%d)
    print(binascii.b2a_base64(_f.read(%d)).decode().strip())
"""
_HASH = """
import hashlib, binascii
_h = hashlib.sha256()
with open(%r, 'rb') as _f:
    while True:
        _b = _f.read(1024)
        if not _b:
            break
        _h.update(_b)
print(binascii.hexlify(_h.digest()).decode())
"""


def read_data(link, say=None):
    """{board path: bytes} of every file under /data ({} when there is none)."""
    files = {}
    for path, size in link.eval_json(_LIST % DATA):
        data = b""
        while len(data) < size:
            out = link.exec(_READ % (path, len(data), min(CHUNK, size - len(data))), timeout=20)
            piece = base64.b64decode(out.decode().strip().splitlines()[-1])
            if not piece:
                break  # the file shrank under us (a game log rotated): keep what was read
            data += piece
        files[path] = data
        if say:
            say(f"  {path} ({len(data)} bytes)")
    return files


def _mkdirs(link, path):
    parts = path.strip("/").split("/")[:-1]
    dirs = ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]
    if dirs:
        link.exec(f"import os\nfor _d in {dirs!r}:\n try: os.mkdir(_d)\n except OSError: pass\n")


def restore_data(link, files):
    """Write `files` back; each goes to `path.nest-tmp`, is hash-checked on the board, then renamed
    over its name (atomic on littlefs): a power cut leaves the old file or the new, whole."""
    for path, data in sorted(files.items()):
        if not path.startswith(DATA + "/"):
            raise NestError(f"refusing to restore {path}: only {DATA} is the nest's data", status=2)
        _mkdirs(link, path)
        tmp = path + ".nest-tmp"
        for offset in range(0, max(len(data), 1), CHUNK):
            piece = base64.b64encode(data[offset:offset + CHUNK]).decode()
            link.exec(f"import binascii\nwith open({tmp!r}, {'ab' if offset else 'wb'!r}) as _f:\n"
                      f"    _f.write(binascii.a2b_base64(b'{piece}'))\n", timeout=20)
        got = link.exec(_HASH % tmp, timeout=20).decode().strip().splitlines()[-1]
        if got != hashlib.sha256(data).hexdigest():
            link.exec(f"import os\nos.remove({tmp!r})\n")
            raise NestError(f"{path} did not arrive intact on the board (hash {got[:12]}...): "
                            "run `nest flash` again, the backup is kept")
        link.exec(f"import os\nos.rename({tmp!r}, {path!r})\n")


def missing_or_changed(link, files):
    """The paths of `files` that the board no longer has, or has with other content."""
    on_board = dict(link.eval_json(_LIST % DATA))
    lost = []
    for path, data in sorted(files.items()):
        if on_board.get(path) != len(data):
            lost.append(path)
            continue
        got = link.exec(_HASH % path, timeout=20).decode().strip().splitlines()[-1]
        if got != hashlib.sha256(data).hexdigest():
            lost.append(path)
    return lost


def backup_root():
    """Where backups are kept: the user's cache (platformdirs: ~/.cache, ~/Library/Caches, AppData)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("gulo-nest")) / "data-backups"


def save_backup(files, port, root=None):
    """The files under a new folder named after the time and port; returns the folder."""
    name = time.strftime("%Y%m%d-%H%M%S") + "-" + Path(str(port)).name.replace(":", "_")
    folder = Path(root or backup_root()) / name
    for path, data in files.items():
        target = folder / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(
        {p: hashlib.sha256(d).hexdigest() for p, d in sorted(files.items())}, indent=1))
    return folder


def load_backup(folder):
    """{board path: bytes} from a folder save_backup wrote, each file checked against its hash."""
    folder = Path(folder)
    try:
        wanted = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        raise NestError(f"{folder}: not a nest data backup ({e})", status=2) from None
    files = {}
    for path, digest in wanted.items():
        data = (folder / path.lstrip("/")).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise NestError(f"{folder / path.lstrip('/')}: changed since the backup (hash mismatch)",
                            status=2)
        files[path] = data
    return files
