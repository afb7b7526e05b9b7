"""Writing MicroPython onto the ESP32 through esptool's Python API (esptool 5 `esptool.cmds`).

The image is checked before the board is touched (exists, is an ESP image, built for the chip
that answers), and every failure esptool can report is turned into a message with a hint.
"""

import importlib
from pathlib import Path

from nest.errors import NestError

ESP_IMAGE_MAGIC = 0xE9
# ESP image header: magic, segments, flash mode, size/freq, entry (4), then the extended header:
# WP pin (1), drive settings (3), chip id (2, little-endian).
_CHIP_ID_OFFSET = 12
IMAGE_CHIPS = {0: "ESP32", 2: "ESP32-S2", 5: "ESP32-C3", 9: "ESP32-S3", 12: "ESP32-C2", 13: "ESP32-C6",
               16: "ESP32-H2", 18: "ESP32-P4"}
MIN_IMAGE = 64 * 1024  # a MicroPython image is over a megabyte; anything this small is not one

BOOTLOADER_HINT = ("no answer from the bootloader: hold the BOOT button, press and release EN (reset), "
                   "release BOOT, then run the command again; check the cable carries data")


def read_image(path):
    """The bytes of a MicroPython firmware image, checked; NestError naming what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise NestError(f"firmware file {path} not found (download ESP32_GENERIC v1.29 from "
                        "micropython.org/download/ESP32_GENERIC)", status=2)
    data = p.read_bytes()
    if len(data) < MIN_IMAGE:
        raise NestError(f"{path}: only {len(data)} bytes, too small for a MicroPython image", status=2)
    if data[0] != ESP_IMAGE_MAGIC:
        raise NestError(f"{path}: not an ESP firmware image (first byte 0x{data[0]:02X}, expected 0xE9); "
                        "use the .bin for ESP32_GENERIC, not a .uf2, .elf or .app-bin", status=2)
    return data


def image_chip(data):
    """The chip an image was built for (its header's chip id), e.g. "ESP32"."""
    chip_id = int.from_bytes(data[_CHIP_ID_OFFSET:_CHIP_ID_OFFSET + 2], "little")
    return IMAGE_CHIPS.get(chip_id, f"unknown chip id {chip_id}")


def _esptool_errors():
    from esptool.util import FatalError
    from serial import SerialException
    return FatalError, SerialException


def flash_firmware(port, image, baud=460800, cmds=None, say=print):
    """Detect the chip, erase, write at the chip's bootloader offset, verify, reset.

    `cmds` is esptool's public API module (`esptool.cmds`); tests pass a recorder with the same
    functions. esptool draws its own progress bar while it writes and verifies."""
    cmds = cmds or importlib.import_module("esptool.cmds")
    fatal, serial_error = _esptool_errors()
    wanted = image_chip(image)
    try:
        with cmds.detect_chip(port, baud=baud) as esp:
            chip = esp.CHIP_NAME
            if chip != wanted:
                raise NestError(f"the board is an {chip} but the image is for {wanted}: download the "
                                f"MicroPython build for {chip}", status=2)
            say(f"{chip} on {port}: erasing the flash")
            esp = cmds.run_stub(esp)
            cmds.attach_flash(esp)
            cmds.erase_flash(esp)
            offset = esp.BOOTLOADER_FLASH_OFFSET
            say(f"writing {len(image)} bytes at 0x{offset:X}")
            cmds.write_flash(esp, [(offset, image)])
            say("verifying")
            cmds.verify_flash(esp, [(offset, image)])
            cmds.reset_chip(esp, "hard-reset")
    except fatal as e:
        text = str(e)
        if "connect" in text.lower() or "no serial data" in text.lower():
            raise NestError(f"{port}: {BOOTLOADER_HINT} ({text})") from e
        if "verify" in text.lower() or "digest" in text.lower() or "md5" in text.lower():
            raise NestError(f"{port}: the flash did not verify ({text}); try a lower --baud, "
                            "a shorter cable, or another USB port") from e
        raise NestError(f"{port}: esptool: {text}") from e
    except serial_error as e:
        raise NestError(f"cannot use {port}: {e} (is a serial monitor holding it?)") from e
    say("done: MicroPython is on the board")
    return chip
