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

from nest.boardtrust import check_name, confined, plain
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


def data_name(path):
    """The name of a board path under /data less that root ("games/0001.jsonl"), checked: the board
    lists the names a backup is written under and restored to, and it is not trusted with either
    (a board that lists /data/../../.bashrc must not have it written there). NestError otherwise."""
    if not isinstance(path, str) or not path.startswith(DATA + "/"):
        raise NestError(f"the board listed {plain(repr(path))} as its data: not a file under {DATA}; "
                        "refused, nothing written", status=2)
    name = path[len(DATA) + 1:]
    check_name(name, DATA)
    return name


def _listing(answer):
    """The board's listing [[path, size], ...] checked: each path under /data, each size a count."""
    if not isinstance(answer, list):
        raise NestError(f"the board's listing of {DATA} is not a list: {plain(str(answer)[:200])}", status=2)
    for entry in answer:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], int)
                and not isinstance(entry[1], bool) and entry[1] >= 0):
            raise NestError(f"the board's listing of {DATA} holds {plain(str(entry)[:200])}: not a "
                            "[path, size] pair; refused, nothing written", status=2)
        data_name(entry[0])
    return answer


def read_data(link, say=None):
    """{board path: bytes} of every file under /data ({} when there is none)."""
    files = {}
    for path, size in _listing(link.eval_json(_LIST % DATA)):
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
    for path in files:
        data_name(path)  # every name checked before the first is written
    for path, data in sorted(files.items()):
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
    targets = {path: _in_backup(folder, path) for path in files}  # all checked before one is written
    for path, data in files.items():
        target = targets[path]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(
        {p: hashlib.sha256(d).hexdigest() for p, d in sorted(files.items())}, indent=1))
    return folder


def _in_backup(folder, path):
    """Where board path `path` (/data/...) is kept in a backup folder: folder/data/..., confined."""
    return confined(Path(folder) / DATA.lstrip("/"), data_name(path))


def load_backup(folder):
    """{board path: bytes} from a folder save_backup wrote, each file checked against its hash."""
    folder = Path(folder)
    try:
        wanted = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        raise NestError(f"{folder}: not a nest data backup ({e})", status=2) from None
    if not isinstance(wanted, dict):
        raise NestError(f"{folder}: not a nest data backup (its manifest is not an object)", status=2)
    files = {}
    for path, digest in wanted.items():
        target = _in_backup(folder, path)
        try:
            data = target.read_bytes()
        except OSError as e:
            raise NestError(f"{target}: cannot read the backup ({e.strerror})", status=2) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise NestError(f"{target}: changed since the backup (hash mismatch)", status=2)
        files[path] = data
    return files
