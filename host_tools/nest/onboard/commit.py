# On-board half of `nest deploy` (MicroPython; sent as source, never imported on the host).
# finish() carries out the commit journal /.nest/commit.json: every file of the new firmware is
# already complete under /.nest/stage when the journal appears (written to a temporary name and
# renamed, so it is whole or absent). Each step can be done again, so a deploy cut anywhere in here
# (power, cable) is finished by the next boot: main.py starts with this code. Until the journal
# exists the previous firmware is untouched.
import os

_JOURNAL = "/.nest/commit.json"


def _exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def finish():
    import json

    try:
        with open(_JOURNAL) as f:
            job = json.load(f)
    except (OSError, ValueError):
        return False
    for d in job["mkdir"]:
        if not _exists(d):
            os.mkdir(d)
    for src, dst in job["move"]:
        if _exists(src):
            try:
                os.rename(src, dst)  # atomic replace on littlefs
            except OSError:
                os.remove(dst)  # a file system that will not rename over a file (FAT)
                os.rename(src, dst)
    for p in job["delete"]:
        try:
            os.remove(p)
        except OSError:
            pass
    for d in job["rmdir"]:
        try:
            os.rmdir(d)
        except OSError:
            pass  # not empty: something else lives there
    name = "/.nest/" + job.get("tree", "deployed")  # the firmware, or `nest test`'s own tree
    with open(name + ".tmp", "w") as f:
        json.dump(job["record"], f)
    os.rename(name + ".tmp", name + ".json")
    os.remove(_JOURNAL)
    return True
