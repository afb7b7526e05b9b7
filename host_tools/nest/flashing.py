"""Writing MicroPython onto the ESP32 through esptool's Python API (esptool 5 `esptool.cmds`).

The sequence is esptool's own CLI's (esptool/__init__.py, `main`): connect at the ROM
bootloader's 115200 baud (`ESPLoader.ESP_ROM_BAUD`: "don't sync faster than the default baud
rate"), load the stub, then `change_baud` to the flashing speed. What esptool already does is
left to it:
- the chip: the image header's chip id is matched against `esp.IMAGE_CHIP_ID` of the chip that
  answered (esptool's CHIP_DEFS know every chip, ESP32-C5 included), before anything is written;
  `write_flash` checks it again with the chip revision;
- the check of what was written: `write_flash` compares the flash's MD5 with the image's after
  writing ("Hash of data verified", cmds.py), so no separate verify pass;
- the erase: `write_flash` erases only the sectors it writes. MicroPython's image (bootloader,
  partition table, app) ends well before the file system partition, so without `erase_all` the
  nest's /data stays where it is; `nest flash` also backs it up first (nest.boarddata) and puts
  back whatever the flash lost.
"""

import contextlib
import importlib
from pathlib import Path

from nest.errors import NestError

ESP_IMAGE_MAGIC = 0xE9
# ESP image header: magic, segments, flash mode, size/freq, entry (4), then the extended header:
# WP pin (1), drive settings (3), chip id (2, little-endian) (esptool bin_image.py, ESP32FirmwareImage).
_CHIP_ID_OFFSET = 12
MIN_IMAGE = 64 * 1024  # a MicroPython image is over a megabyte; anything this small is not one
ROM_BAUD = 115200      # esptool loader.py ESPLoader.ESP_ROM_BAUD: what the ROM bootloader syncs at

BOOTLOADER_HINT = ("no answer from the bootloader: hold the BOOT button, press and release EN (reset), "
                   "release BOOT, then run the command again; check the cable carries data")


def read_image(path):
    """The bytes of a MicroPython firmware image, checked; NestError naming what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise NestError(f"firmware file {path} not found (run `nest flash` without --firmware to "
                        "fetch the right MicroPython, or download it from micropython.org/download)",
                        status=2)
    data = p.read_bytes()
    check_image(data, path)
    return data


def check_image(data, name):
    if len(data) < MIN_IMAGE:
        raise NestError(f"{name}: only {len(data)} bytes, too small for a MicroPython image", status=2)
    if data[0] != ESP_IMAGE_MAGIC:
        raise NestError(f"{name}: not an ESP firmware image (first byte 0x{data[0]:02X}, expected 0xE9); "
                        "use the .bin for ESP32_GENERIC, not a .uf2, .elf or .app-bin", status=2)


def image_chip_id(data):
    return int.from_bytes(data[_CHIP_ID_OFFSET:_CHIP_ID_OFFSET + 2], "little")


def image_chip(data):
    """The chip an image was built for, named as esptool names it ("ESP32", "ESP32-C5", ...)."""
    from esptool.targets import CHIP_DEFS

    chip_id = image_chip_id(data)
    for rom in CHIP_DEFS.values():
        if getattr(rom, "IMAGE_CHIP_ID", None) == chip_id:
            return rom.CHIP_NAME
    return f"a chip esptool does not know (chip id {chip_id})"


@contextlib.contextmanager
def esptool_errors(port):
    """esptool's failures on `port` as a `nest:` line with what to do: a board not in download
    mode gets the BOOT/EN hint wherever esptool first talks to it (the flash, or asking the chip)."""
    from esptool.util import FatalError
    from serial import SerialException

    try:
        yield
    except FatalError as e:
        text = str(e)
        if "connect" in text.lower() or "no serial data" in text.lower():
            raise NestError(f"{port}: {BOOTLOADER_HINT} ({text})") from e
        if "md5" in text.lower() or "verif" in text.lower() or "digest" in text.lower():
            raise NestError(f"{port}: what was written does not match the image ({text}); try a lower "
                            "--baud, a shorter cable, or another USB port") from e
        raise NestError(f"{port}: esptool: {text}") from e
    except SerialException as e:
        raise NestError(f"cannot use {port}: {e} (is a serial monitor holding it?)") from e


def flash_firmware(port, image, baud=460800, cmds=None, say=print, erase_all=False):
    """Detect the chip at 115200, load the stub, change to `baud`, (erase all,) write at the chip's
    bootloader offset (write_flash checks the MD5), hard-reset. Returns the chip's name.

    `cmds` is esptool's public API module (`esptool.cmds`); tests pass a recorder with the same
    functions. esptool draws its own progress bar while it writes."""
    cmds = cmds or importlib.import_module("esptool.cmds")
    with esptool_errors(port):
        with cmds.detect_chip(port, baud=ROM_BAUD) as esp:
            chip = esp.CHIP_NAME
            if image_chip_id(image) != esp.IMAGE_CHIP_ID:
                raise NestError(f"the board is an {chip} but the image is for {image_chip(image)}: "
                                f"use the MicroPython build for {chip}", status=2)
            esp = cmds.run_stub(esp)
            if baud != ROM_BAUD:
                esp.change_baud(baud)
            cmds.attach_flash(esp)
            if erase_all:
                say(f"{chip} on {port}: erasing the whole flash (--erase-all)")
                cmds.erase_flash(esp)
            offset = esp.BOOTLOADER_FLASH_OFFSET
            say(f"{chip} on {port}: writing {len(image)} bytes at 0x{offset:X} at {baud} baud")
            cmds.write_flash(esp, [(offset, image)])
            cmds.reset_chip(esp, "hard-reset")
    say("done: MicroPython is on the board")
    return chip
