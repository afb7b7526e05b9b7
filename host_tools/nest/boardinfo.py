"""What is on a board: its MicroPython (version, board name and build id, as `mpflash list` shows
them) and the nest firmware deployed on it (the record `nest deploy` leaves in /.nest/version.json).

    info = identify(link)   # {"micropython": "1.29.0", "machine": "Generic ESP32 module with ESP32",
                            #  "build": "ESP32_GENERIC", "nest": {"version": "0.1.0", ...} or None}
"""

import json

from nest.boardtrust import IDENTITY, checked_as, plain
from nest.errors import NestError

VERSION_FILE = "/.nest/version.json"

_IDENTIFY = f"""
import sys, json
_v = sys.implementation.version
_n = None
try:
    with open({VERSION_FILE!r}) as _f:
        _n = json.load(_f)
except (OSError, ValueError):
    pass
print(json.dumps({{'micropython': '%d.%d.%d' % _v[:3], 'machine': sys.implementation._machine,
                  'build': getattr(sys.implementation, '_build', ''), 'nest': _n}}))
"""


def identify(link):
    """The board's MicroPython and nest firmware, read through an open raw-REPL link, checked
    (nest.boardtrust.IDENTITY): a nest record of another shape (a string in version.json) is set
    aside as None with `nest_problem` saying why; the MicroPython part of another shape is an error."""
    info = link.eval_json(_IDENTIFY)
    if isinstance(info, dict) and info.get("nest") is not None:
        try:
            checked_as(IDENTITY["nest"], info["nest"], VERSION_FILE)
        except NestError as e:
            info = {**info, "nest": None, "nest_problem": str(e)}
    return checked_as(IDENTITY, info, "identity")


def version_record(version, tree):
    """The JSON `nest deploy` writes to /.nest/version.json: the host tool's version and a short
    fingerprint of the deployed tree (the same tree always gives the same fingerprint)."""
    return json.dumps({"version": version, "tree": tree})


def describe(info):
    """One line for `nest ports` (control characters shown, never obeyed)."""
    if info is None:
        return "no MicroPython answer"
    build = f" ({info['build']})" if info.get("build") else ""
    mp = f"MicroPython {info['micropython']}, {info['machine']}{build}"
    nest = info.get("nest")
    if info.get("nest_problem"):
        return plain(f"{mp}; nest firmware record unreadable ({info['nest_problem']})")
    return plain(mp + (f"; nest firmware {nest.get('version')} (tree {nest.get('tree')})" if nest
                       else "; no nest firmware deployed"))
