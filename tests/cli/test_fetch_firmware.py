"""`nest flash` fetching MicroPython from micropython.org's download pages, against a stand-in on
127.0.0.1 (no test reaches the internet): the right board and version, cached, verified."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nest import fetchfw
from nest.errors import NestError
from testkit.firmware_images import micropython_like

VERSION = fetchfw.matching_micropython()


class StandIn:
    """micropython.org's download pages: the port's page lists board cards, a board's page links
    its firmware files under /resources/firmware/."""

    def __init__(self, files):
        self.files = files      # {file name: bytes}
        self.requests = []

    def page(self, path):
        if path.startswith("/download/?port=esp32"):
            boards = sorted({name.split("-")[0] for name in self.files})
            return "".join(f'<a class="board-card" href="{b}">{b}</a>' for b in boards).encode()
        if path.startswith("/download/"):
            board = path.split("/")[2]
            return "".join(f'<a href="/resources/firmware/{n}">{n}</a>' for n in self.files
                           if n.split("-")[0] == board).encode()
        if path.startswith("/resources/firmware/"):
            return self.files.get(path.rsplit("/", 1)[1])
        return None


@pytest.fixture
def site():
    stand_in = StandIn({})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            stand_in.requests.append(self.path)
            body = stand_in.page(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body if body is not None else b"<html>not found</html>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stand_in.url = f"http://127.0.0.1:{server.server_port}/"
    yield stand_in
    server.shutdown()
    server.server_close()


def test_the_matching_version_of_the_boards_build_is_fetched_once_then_cached(site, tmp_path):
    good = micropython_like(seed=3)
    site.files = {f"ESP32_GENERIC-20260101-v{VERSION}.bin": good,
                  "ESP32_GENERIC-20250101-v1.25.0.bin": micropython_like(seed=5),
                  f"ESP32_GENERIC_S3-20260101-v{VERSION}.bin": micropython_like(chip_id=9)}
    said = []
    path = fetchfw.fetch("ESP32", "ESP32_GENERIC", site=site.url, folder=tmp_path, say=said.append)
    assert path.read_bytes() == good
    fetched = [r for r in site.requests if r.startswith("/resources/")]
    assert fetched == [f"/resources/firmware/ESP32_GENERIC-20260101-v{VERSION}.bin"]
    assert said[0] == f"fetching MicroPython {VERSION} for ESP32_GENERIC from {site.url}"
    # A second flash: from the cache, the site is not asked.
    site.requests.clear()
    again = fetchfw.fetch("ESP32", "ESP32_GENERIC", site=site.url, folder=tmp_path, say=said.append)
    assert again == path and site.requests == [] and said[-1].endswith("(cached)")


def test_a_board_without_micropython_gets_its_chips_generic_build(site, tmp_path):
    s3 = micropython_like(chip_id=9, seed=7)
    site.files = {f"ESP32_GENERIC_S3-20260101-v{VERSION}.bin": s3}
    assert fetchfw.board_id_for("ESP32-S3") == "ESP32_GENERIC_S3"
    assert fetchfw.board_id_for("ESP32") == "ESP32_GENERIC"
    assert fetchfw.board_id_for("ESP32-C5") == "ESP32_GENERIC_C5"
    path = fetchfw.fetch("ESP32-S3", "", site=site.url, folder=tmp_path, say=lambda _: None)
    assert path.read_bytes() == s3


def test_a_damaged_download_is_refused_and_not_kept(site, tmp_path):
    bad = bytearray(micropython_like())
    bad[-5000] ^= 0xFF  # one byte of the app flipped in transit
    name = f"ESP32_GENERIC-20260101-v{VERSION}.bin"
    site.files = {name: bytes(bad)}
    with pytest.raises(NestError, match="app image's checksum is wrong.*removed from the cache"):
        fetchfw.fetch("ESP32", "ESP32_GENERIC", site=site.url, folder=tmp_path, say=lambda _: None)
    assert not list(tmp_path.rglob("*.bin"))


def test_an_image_for_another_chip_is_refused(site, tmp_path):
    site.files = {f"ESP32_GENERIC-20260101-v{VERSION}.bin": micropython_like(chip_id=9)}
    with pytest.raises(NestError, match="built for ESP32-S3, not ESP32"):
        fetchfw.fetch("ESP32", "ESP32_GENERIC", site=site.url, folder=tmp_path, say=lambda _: None)


def test_a_version_the_site_does_not_have_says_where_to_look(site, tmp_path):
    site.files = {"ESP32_GENERIC-20250101-v1.25.0.bin": micropython_like()}
    with pytest.raises(NestError, match=f"has no MicroPython {VERSION} for ESP32_GENERIC.*--firmware"):
        fetchfw.fetch("ESP32", "ESP32_GENERIC", site=site.url, folder=tmp_path, say=lambda _: None)


def test_an_unreachable_site_says_use_firmware(tmp_path):
    with pytest.raises(NestError, match="cannot fetch MicroPython from http://127.0.0.1:9/.*--firmware"):
        fetchfw.fetch("ESP32", "ESP32_GENERIC", site="http://127.0.0.1:9/", folder=tmp_path,
                      say=lambda _: None)


@pytest.mark.board
def test_nest_flash_without_a_file_writes_the_image_fetched_for_the_chip(vboard, site, tmp_path, monkeypatch):
    # The virtual board answers as MicroPython's WebAssembly port (no ESP32 in _machine), so the
    # chip is asked of the (recorded) bootloader, as for a board without MicroPython.
    from test_ports_flash import RecordingEsptool

    from nest.reflash import reflash

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # platformdirs' user cache
    good = micropython_like(seed=9)
    site.files = {f"ESP32_GENERIC-20260101-v{VERSION}.bin": good}
    rec = RecordingEsptool()
    said = []
    reflash(vboard.port, None, cmds=rec, site=site.url, say=said.append, backup_root=tmp_path / "b")
    writes = [c for c in rec.calls if c[0] == "write_flash"]
    assert writes and writes[0][1][1] == [(0x1000, good)]
    assert f"fetching MicroPython {VERSION} for ESP32_GENERIC from {site.url}" in said
    assert list((tmp_path / "cache").rglob("ESP32_GENERIC-v*.bin"))  # kept in the user's cache
