"""What a board sends is checked before the host uses it: a board is a device on a cable, not a
trusted peer (a damaged flash, other firmware, or a board made to lie). Three checks, one place:

    path = confined(folder, "games/0001.jsonl")   # a file inside `folder`, or NestError
    print(plain(text))                            # control characters shown, never obeyed
    ev = checked(obj)                             # the line if its shape is its kind's, else BoardLie

The schemas (one per message kind the host reads) are here so that `monitor`, `ports`, `test`,
`diag` and `logs` agree on what a well-formed line is.
"""

import unicodedata
from pathlib import Path

from nest.errors import NestError

# ---- names --------------------------------------------------------------------------------------


def check_name(name, folder=".", what="the board"):
    """NestError unless `name` is a plain relative file name (parts joined by "/"): not absolute,
    no "..", ".", empty part, backslash, colon or control character. Its parts."""
    if not isinstance(name, str) or not name:
        raise NestError(f"{what} named a file {plain(repr(name))}: not a file name; refused, nothing written")
    parts = name.split("/")
    if "\\" in name or any(p in ("", ".", "..") or ":" in p or _has_control(p) for p in parts):
        raise NestError(f"{what} named a file {plain(repr(name))}, which is not a plain name inside "
                        f"{folder}: refused, nothing written")
    return parts


def confined(folder, name, what="the board"):
    """`folder / name` for a relative name `what` gave (a board path less its root, a log name), or
    NestError when it would land anywhere but inside `folder` (check_name), a symlink already in the
    folder pointing out included."""
    root = Path(folder)
    target = root.joinpath(*check_name(name, folder, what))
    if not target.resolve().is_relative_to(root.resolve()):
        raise NestError(f"{what} named a file {plain(repr(name))}, which leads out of {folder} "
                        "(a link on the way): refused, nothing written")
    return target


# ---- text for the terminal ----------------------------------------------------------------------

# Unicode categories a terminal acts on or hides: C0/C1 controls (ESC starts a title, a screen
# clear, a cursor move), format characters (right-to-left overrides), line and paragraph separators.
_HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def _has_control(text):
    return any(unicodedata.category(ch) in _HIDDEN for ch in text)


def plain(text, newlines=False):
    """`text` (anything: str() of it) with every control character shown as an escape (\\x1b,
    \\u202e) instead of reaching the terminal; newlines kept only when asked (a multi-line report)."""
    text = str(text)
    out = []
    for ch in text:
        if ch == "\n" and newlines:
            out.append(ch)
        elif unicodedata.category(ch) in _HIDDEN:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)
