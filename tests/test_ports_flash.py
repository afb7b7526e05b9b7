"""`nest ports` / port picking, and `nest flash` at esptool's API boundary (no ESP32 here)."""

import json
import os
import subprocess
import sys
import tty
from pathlib import Path

import pytest
from serial.tools.list_ports_common import ListPortInfo

from nest import flashing, ports
from nest.errors import NestError

NEST = str(Path(sys.executable).with_name("nest"))


def usb(device, vid=None, pid=None, serial=None, description="USB serial"):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.description = vid, pid, serial, description
    return info


@pytest.fixture(autouse=True)
def private_virtual_board_dir(tmp_path, monkeypatch):
    # Virtual boards announce themselves under XDG_RUNTIME_DIR: keep each test's to itself.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))


@pytest.fixture
def pty_port():
    master, slave = os.openpty()
    tty.setraw(slave)
    yield os.ttyname(slave)
    os.close(master)
    os.close(slave)


def test_the_one_esp32_port_is_picked():
    seen = [usb("/dev/ttyS0"), usb("/dev/ttyUSB0", 0x10C4, 0xEA60, "0001", "CP2102N")]
    assert ports.pick_port(comports=lambda: seen) == "/dev/ttyUSB0"
    listed = ports.list_ports(lambda: seen)
    assert [p.bridge for p in listed] == [None, "Silicon Labs CP210x"]
    assert "10C4:EA60" in listed[1].line() and "0001" in listed[1].line()


def test_no_board_is_a_clear_error():
    with pytest.raises(NestError, match=r"no ESP32 board found.*/dev/ttyS0"):
        ports.pick_port(comports=lambda: [usb("/dev/ttyS0")])


def test_two_boards_must_be_told_apart():
    seen = [usb("/dev/ttyUSB0", 0x10C4, 0xEA60, "A"), usb("/dev/ttyACM0", 0x1A86, 0x55D4, "B")]
    with pytest.raises(NestError, match="2 ESP32 boards found; choose one with --port") as e:
        ports.pick_port(comports=lambda: seen)
    assert "/dev/ttyUSB0" in str(e.value) and "WCH CH9102" in str(e.value)


def test_an_explicit_port_wins_but_must_exist(pty_port):
    assert ports.pick_port(pty_port, comports=lambda: []) == pty_port
    with pytest.raises(NestError, match="does not exist"):
        ports.pick_port("/dev/ttyNOPE", comports=lambda: [])


def test_a_running_virtual_board_is_found_and_stale_ones_dropped(pty_port):
    note = ports.announce_virtual_board(pty_port, control="127.0.0.1:1")
    stale = note.with_name("999999999.json")
    stale.write_text(json.dumps({"port": pty_port, "pid": 999999999}))
    assert ports.pick_port(comports=lambda: [usb("/dev/ttyS0")]) == pty_port
    assert not stale.exists()
    r = subprocess.run([NEST, "ports"], capture_output=True, text=True)
    assert "virtual board" in r.stdout and pty_port in r.stdout


class RecordingEsptool:
    """Stands in for `esptool.cmds` at its API boundary: records every call, in order."""

    def __init__(self, chip="ESP32", offset=0x1000, fail=None):
        self.calls = []
        self.chip, self.offset, self.fail = chip, offset, fail

    def _record(self, name, *args, **kwargs):
        self.calls.append((name, args, kwargs))
        if self.fail and self.fail[0] == name:
            raise self.fail[1]

    def detect_chip(self, port, baud):
        self._record("detect_chip", port, baud=baud)
        esp = type("Loader", (), {"CHIP_NAME": self.chip, "BOOTLOADER_FLASH_OFFSET": self.offset,
                                  "__enter__": lambda s: s, "__exit__": lambda s, *a: None})()
        self.esp = esp
        return esp

    def run_stub(self, esp):
        self._record("run_stub", esp)
        return esp

    def attach_flash(self, esp):
        self._record("attach_flash", esp)

    def erase_flash(self, esp):
        self._record("erase_flash", esp)

    def write_flash(self, esp, addr_data):
        self._record("write_flash", esp, addr_data)

    def verify_flash(self, esp, addr_data):
        self._record("verify_flash", esp, addr_data)

    def reset_chip(self, esp, mode):
        self._record("reset_chip", esp, mode)


def image(chip_id=0, size=200_000):
    data = bytearray(size)
    data[0] = 0xE9
    data[12:14] = chip_id.to_bytes(2, "little")
    return bytes(data)


def test_flash_makes_exactly_these_esptool_calls():
    rec = RecordingEsptool()
    img = image()
    said = []
    assert flashing.flash_firmware("/dev/ttyUSB0", img, baud=921600, cmds=rec, say=said.append) == "ESP32"
    esp = rec.esp
    assert rec.calls == [
        ("detect_chip", ("/dev/ttyUSB0",), {"baud": 921600}),
        ("run_stub", (esp,), {}),
        ("attach_flash", (esp,), {}),
        ("erase_flash", (esp,), {}),
        ("write_flash", (esp, [(0x1000, img)]), {}),
        ("verify_flash", (esp, [(0x1000, img)]), {}),
        ("reset_chip", (esp, "hard-reset"), {}),
    ]
    assert said[-1].startswith("done")


def test_the_wrong_chip_is_refused_before_erasing():
    rec = RecordingEsptool(chip="ESP32-S3", offset=0)
    with pytest.raises(NestError, match="the board is an ESP32-S3 but the image is for ESP32"):
        flashing.flash_firmware("/dev/ttyUSB0", image(0), cmds=rec)
    assert [c[0] for c in rec.calls] == ["detect_chip"]


def test_a_failed_verify_says_what_to_try():
    from esptool.util import FatalError
    rec = RecordingEsptool(fail=("verify_flash", FatalError("Verify failed: digest mismatch")))
    with pytest.raises(NestError, match="did not verify.*lower --baud"):
        flashing.flash_firmware("/dev/ttyUSB0", image(), cmds=rec)
    assert "reset_chip" not in [c[0] for c in rec.calls]


def test_real_esptool_on_a_silent_port_says_hold_boot(pty_port):
    # The real esptool, talking to a serial port where no bootloader answers.
    with pytest.raises(NestError, match="hold the BOOT button"):
        flashing.flash_firmware(pty_port, image(), say=lambda _: None)


@pytest.mark.parametrize("content, message", [
    (None, "not found"),
    (b"\xe9" * 100, "too small"),
    (b"\x7fELF" + bytes(100_000), "not an ESP firmware image"),
])
def test_bad_firmware_files_are_named(tmp_path, content, message):
    f = tmp_path / "fw.bin"
    if content is not None:
        f.write_bytes(content)
    r = subprocess.run([NEST, "flash", "--firmware", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and str(f) in r.stderr


def test_image_chip_is_read_from_the_header():
    assert flashing.image_chip(image(0)) == "ESP32"
    assert flashing.image_chip(image(9)) == "ESP32-S3"


def test_nest_flash_chains_into_a_deploy_unless_told_not_to(tmp_path, pty_port, monkeypatch):
    from nest import cli, cmd_flash

    calls = []
    monkeypatch.setattr(cmd_flash, "flash_firmware", lambda port, img, baud: calls.append(("flash", port)))

    class Report:
        def summary(self):
            return "sent 0 files"

    monkeypatch.setattr(cmd_flash, "deploy",
                        lambda port, src: calls.append(("deploy", port, src)) or Report())
    fw = tmp_path / "fw.bin"
    fw.write_bytes(image())
    assert cli.main(["flash", "--firmware", str(fw), "--port", pty_port, "--src", "somewhere"]) == 0
    assert calls == [("flash", pty_port), ("deploy", pty_port, "somewhere")]
    calls.clear()
    assert cli.main(["flash", "--firmware", str(fw), "--port", pty_port, "--no-deploy"]) == 0
    assert calls == [("flash", pty_port)]
