"""ESP32 firmware images made with esptool's own image writer, laid out as MicroPython's ESP32 .bin
is (ESP-IDF defaults: bootloader at 0x1000, partition table at 0x8000, app at 0x10000), for the
flashing and fetching tests (no real image is downloaded in tests)."""

import os
import tempfile

from esptool import bin_image
from esptool.bin_image import ELFSection, ESP32FirmwareImage


def image_class(chip_id):
    """esptool's image writer for a chip (each writes its ROM's IMAGE_CHIP_ID into the header)."""
    for cls in vars(bin_image).values():
        if isinstance(cls, type) and issubclass(cls, ESP32FirmwareImage) \
                and cls.ROM_LOADER.IMAGE_CHIP_ID == chip_id:
            return cls
    raise ValueError(chip_id)


def esp_image(load_addr, payload, chip_id=0):
    img = image_class(chip_id)()
    img.entrypoint = load_addr
    img.segments = [ELFSection(b".data", load_addr, payload, 0)]
    with tempfile.TemporaryDirectory() as d:  # esptool's save() writes a file by name
        path = os.path.join(d, "image.bin")
        img.save(path)
        with open(path, "rb") as f:
            return f.read()


def partition_table(app_offset=0x10000, app_size=0x1F0000):
    row = b"\xaa\x50" + bytes([0, 0]) + app_offset.to_bytes(4, "little") + app_size.to_bytes(4, "little")
    return (row + b"factory".ljust(16, b"\0") + bytes(4)).ljust(0xC00, b"\xff")


def micropython_like(chip_id=0, app_bytes=80_000, seed=1):
    """A whole image from the chip's bootloader offset (0x1000 on the ESP32, 0 on the S3, C3...):
    bootloader, partition table, app (each esptool-valid)."""
    base = image_class(chip_id).ROM_LOADER.BOOTLOADER_FLASH_OFFSET
    boot = esp_image(0x3FFF0000, bytes([seed]) * 4096, chip_id)
    app = esp_image(0x3F400020, bytes([seed + 1]) * app_bytes, chip_id)
    data = bytearray(b"\xff" * (0x10000 - base))
    data[0:len(boot)] = boot
    data[0x8000 - base:0x8000 - base + 0xC00] = partition_table()
    return bytes(data) + app
