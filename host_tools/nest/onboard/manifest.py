# On-board half of `nest deploy`: the board's files in one round trip (MicroPython; sent as
# source after commit.py). `roots` are the top-level names of the local tree; files recorded by
# the last deploy are listed too (and named in `rec`), so a file removed locally can be deleted.
# /data is never listed.
import binascii
import hashlib
import json
import os
import sys

_buf = bytearray(1024)


def _hash(path):
    h = hashlib.sha256()
    mv = memoryview(_buf)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(_buf)
            if not n:
                break
            h.update(mv[:n])
    return binascii.hexlify(h.digest()[:16]).decode()  # 128 bits tell files apart


def _walk(path, out):
    try:
        mode = os.stat(path)[0]
    except OSError:
        return
    if mode & 0x4000:
        for entry in os.ilistdir(path):
            _walk(path + "/" + entry[0], out)
    else:
        out[path[1:]] = [os.stat(path)[6], _hash(path)]


def manifest(roots, tree="deployed", want="", own=()):
    # want: the fingerprint of the host's tree (deploy.py tree_digest). When the board's tree has it
    # (`own` files that no deploy recorded left out: the maker's), only "same" is answered: the
    # listing, 80 bytes a file, is most of a nothing-changed deploy's time on the line.
    files = {}
    try:
        with open("/.nest/" + tree + ".json") as f:
            recorded = json.load(f)
    except (OSError, ValueError):
        recorded = []
    for name in roots + recorded:
        if name.split("/")[0] not in ("data", ".nest"):
            _walk("/" + name, files)
    try:
        import deflate  # noqa: F401  (compressed chunks when the firmware build has it)

        z = 1
    except ImportError:
        z = 0
    if want:
        mine = [p for p in own if p in files and p not in recorded]
        lines = sorted(p + " " + files[p][1] for p in files if p not in mine)
        if binascii.hexlify(hashlib.sha256("\n".join(lines)).digest()[:12]).decode() == want:
            print(json.dumps({"mpy": sys.implementation._mpy, "z": z, "same": 1, "own": mine}))
            return
    print(json.dumps({"mpy": sys.implementation._mpy, "z": z, "files": files, "rec": recorded}))


def _w(n, mode, b64, z):
    data = binascii.a2b_base64(b64)
    if z:
        import io

        from deflate import DeflateIO

        data = DeflateIO(io.BytesIO(data)).read()
    with open("/.nest/stage/" + str(n), mode) as f:
        f.write(data)
