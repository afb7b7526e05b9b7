"""The board's own build id picks the MicroPython image `nest flash` downloads, and the board is not
trusted with it: only one of the chip's generic builds is taken (the chip is esptool's, read from
the ROM bootloader); any other name falls back to the chip's generic image. Before, whatever the
board said went into mpflash's board id, and with it into the download's URL and file name."""

import pytest

from nest.fetchfw import board_id_for


@pytest.mark.parametrize("chip, build, wanted", [
    ("ESP32", "ESP32_GENERIC", "ESP32_GENERIC"),
    ("ESP32", "ESP32_GENERIC_OTA", "ESP32_GENERIC_OTA"),
    ("ESP32-S3", "ESP32_GENERIC_S3", "ESP32_GENERIC_S3"),
    ("ESP32-S3", "ESP32_GENERIC_S3_SPIRAM_OCT", "ESP32_GENERIC_S3_SPIRAM_OCT"),
    ("ESP32-S3", "ESP32_GENERIC", "ESP32_GENERIC_S3"),                 # another chip's build
    ("ESP32", "../../../etc/passwd", "ESP32_GENERIC"),
    ("ESP32", "ESP32_GENERIC/../../x", "ESP32_GENERIC"),
    ("ESP32", "LOLIN_S2_MINI", "ESP32_GENERIC"),
    ("ESP32", "esp32_generic", "ESP32_GENERIC"),
    ("ESP32", "ESP32_GENERIC" + "_X" * 40, "ESP32_GENERIC"),
    ("ESP32", "\x1b]0;owned\x07", "ESP32_GENERIC"),
    ("ESP32", 7, "ESP32_GENERIC"),
    ("ESP32", "", "ESP32_GENERIC"),
])
def test_only_a_generic_build_of_the_chip_is_taken_from_the_board(chip, build, wanted):
    assert board_id_for(chip, build) == wanted
