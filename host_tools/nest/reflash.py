"""`nest flash` as an API: MicroPython onto the board, the nest's /data kept.

    chip = reflash(port, firmware=None, baud=460800, erase_all=False, say=print)

1. Ask the board what it runs (raw REPL, if MicroPython answers): its build id (for fetching)
   and every file of /data, saved to the user's cache before anything is written;
2. the image: `firmware` (a file, offline), or MicroPython for this board fetched (nest.fetchfw);
3. flash (nest.flashing): no erase unless `erase_all`, so the file system stays where it is;
4. after the reset, /data is compared with the backup; what the flash lost is put back (not with
   `erase_all`: a clean start, the backup is kept and named).
"""

import time

from nest.boardlink import BoardLink
from nest.errors import NestError
from nest.words import plural


def survey(port, say):
    """(identity, /data files) of a board running MicroPython; (None, {}) when nothing answers.
    A port someone else holds is an error here, before the flash is touched."""
    from nest.boarddata import read_data
    from nest.boardinfo import identify

    with BoardLink.open(port) as link:
        try:
            link.enter_raw(attempts=2)
        except NestError:
            say(f"no MicroPython answers on {port}: nothing to back up")
            return None, {}
        info = identify(link)
        files = read_data(link)
    return info, files


def _open_after_boot(port, boot_s):
    """A raw-REPL link to the freshly flashed board: MicroPython's first boot formats the file
    system if it found none, so the link is retried for up to boot_s."""
    end = time.monotonic() + boot_s
    while True:
        link = None
        try:
            link = BoardLink.open(port)
            link.enter_raw()
            return link
        except NestError:
            if link:
                link.close()
            if time.monotonic() > end:
                raise
            time.sleep(1)


def reflash(port, firmware=None, *, baud=460800, erase_all=False, version=None, say=print, cmds=None,
            site=None, backup_root=None, boot_s=30.0):
    from nest import fetchfw
    from nest.boarddata import missing_or_changed, restore_data, save_backup
    from nest.flashing import flash_firmware, read_image
    from nest.portlock import claim, release

    info, files = survey(port, say)
    folder = None
    if files:
        folder = save_backup(files, port, backup_root)
        size = sum(map(len, files.values()))
        say(f"backed up /data ({plural(len(files), 'file')}, {size} bytes) to {folder}")
    elif info:
        say("no /data on the board: nothing to keep")
    if firmware:
        image = read_image(firmware)
    else:
        # MicroPython's own build id if it runs on an ESP32; else the chip, asked of its bootloader
        chip = info and _chip_of_machine(info["machine"])
        build = info.get("build", "") if chip else ""
        path = fetchfw.fetch(chip or _chip(port, cmds), build, version,
                             site=site or fetchfw.DEFAULT_SITE, say=say)
        image = path.read_bytes()
    note = claim(port)  # esptool holds the port's lock meanwhile; the note names `nest flash`
    try:
        chip = flash_firmware(port, image, baud=baud, cmds=cmds, say=say, erase_all=erase_all)
    finally:
        release(note)
    if not files:
        return chip
    if erase_all:
        say(f"/data erased (--erase-all): a clean start; the backup stays in {folder}")
        return chip
    link = _open_after_boot(port, boot_s)
    try:
        lost = missing_or_changed(link, files)
        if lost:
            restore_data(link, {p: files[p] for p in lost})
            say(f"/data put back: {len(lost)} of {plural(len(files), 'file')} the flash had lost")
        else:
            say(f"/data kept in place ({plural(len(files), 'file')} checked)")
    finally:
        link.close()
    return chip


def _chip_of_machine(machine):
    """The chip MicroPython names in sys.implementation._machine ("Generic ESP32S3 module with
    ESP32S3": MICROPY_HW_BOARD_NAME " with " MICROPY_HW_MCU_NAME), as esptool names it
    ("ESP32-S3"); None if it names no ESP32."""
    import re

    m = re.search(r"with (ESP32)([A-Z]\d+)?\b", machine or "")
    if not m:
        return None
    return m.group(1) + (f"-{m.group(2)}" if m.group(2) else "")


def _chip(port, cmds=None):
    """The chip, asked of its ROM bootloader with esptool (for a board without MicroPython)."""
    import importlib

    from nest.flashing import ROM_BAUD, esptool_errors

    cmds = cmds or importlib.import_module("esptool.cmds")
    with esptool_errors(port), cmds.detect_chip(port, baud=ROM_BAUD) as esp:
        return esp.CHIP_NAME
