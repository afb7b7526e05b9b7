# A scratch folder for tests that write files: a fresh temporary one on CPython, /scratch/N on
# MicroPython (the board's flash or the VM's memory file system).
import os

_count = [0]


def scratch_dir():
    try:
        import tempfile  # type: ignore[import-not-found]  # CPython only; absent on the board
    except ImportError:
        tempfile = None
    if tempfile is not None:
        return tempfile.mkdtemp(prefix="gulo-")
    _count[0] += 1
    for d in ("/scratch", "/scratch/%d" % _count[0]):
        try:
            os.mkdir(d)
        except OSError:
            pass  # exists
    folder = "/scratch/%d" % _count[0]
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    return folder
