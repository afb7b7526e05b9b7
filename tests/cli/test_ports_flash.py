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
    """Stands in for `esptool.cmds` at its API boundary: records every call, in order (the loader's
    change_baud included). `on` maps a call's name to what it does to a board (tests/test_flash_data)."""

    def __init__(self, chip="ESP32", chip_id=0, offset=0x1000, fail=None, on=None):
        self.calls = []
        self.chip, self.chip_id, self.offset, self.fail, self.on = chip, chip_id, offset, fail, on or {}

    def _record(self, name, *args, **kwargs):
        self.calls.append((name, args, kwargs))
        if self.fail and self.fail[0] == name:
            raise self.fail[1]
        if name in self.on:
            self.on[name]()

    def detect_chip(self, port, baud):
        self._record("detect_chip", port, baud=baud)
        rec = self
        esp = type("Loader", (), {"CHIP_NAME": self.chip, "IMAGE_CHIP_ID": self.chip_id,
                                  "BOOTLOADER_FLASH_OFFSET": self.offset,
                                  "change_baud": lambda s, baud: rec._record("change_baud", baud),
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


def test_flash_connects_at_115200_then_changes_baud_and_leaves_the_md5_check_to_write_flash():
    rec = RecordingEsptool()
    img = image()
    said = []
    assert flashing.flash_firmware("/dev/ttyUSB0", img, baud=921600, cmds=rec, say=said.append) == "ESP32"
    esp = rec.esp
    # esptool's CLI: sync at ESP_ROM_BAUD, stub, then change_baud; no erase (write_flash erases
    # the sectors it writes, the file system stays); no verify pass (write_flash checks the MD5).
    assert rec.calls == [
        ("detect_chip", ("/dev/ttyUSB0",), {"baud": 115200}),
        ("run_stub", (esp,), {}),
        ("change_baud", (921600,), {}),
        ("attach_flash", (esp,), {}),
        ("write_flash", (esp, [(0x1000, img)]), {}),
        ("reset_chip", (esp, "hard-reset"), {}),
    ]
    assert said[-1].startswith("done")


def test_erase_all_erases_before_writing_and_115200_needs_no_change():
    rec = RecordingEsptool()
    flashing.flash_firmware("/dev/ttyUSB0", image(), baud=115200, cmds=rec, say=lambda _: None,
                            erase_all=True)
    assert [c[0] for c in rec.calls] == ["detect_chip", "run_stub", "attach_flash", "erase_flash",
                                         "write_flash", "reset_chip"]


def test_the_wrong_chip_is_refused_before_anything_is_written():
    rec = RecordingEsptool(chip="ESP32-S3", chip_id=9, offset=0)
    with pytest.raises(NestError, match="the board is an ESP32-S3 but the image is for ESP32"):
        flashing.flash_firmware("/dev/ttyUSB0", image(0), cmds=rec, erase_all=True)
    assert [c[0] for c in rec.calls] == ["detect_chip"]


def test_every_chip_esptool_knows_is_accepted_esp32_c5_included():
    # esptool's CHIP_DEFS, not a table of our own: an ESP32-C5 image (chip id 23) goes on a C5.
    rec = RecordingEsptool(chip="ESP32-C5", chip_id=23, offset=0x2000)
    assert flashing.flash_firmware("/dev/ttyUSB0", image(23), cmds=rec, say=lambda _: None) == "ESP32-C5"
    assert flashing.image_chip(image(23)) == "ESP32-C5"
    assert "chip id 99" in flashing.image_chip(image(99))


def test_a_write_whose_md5_does_not_match_says_what_to_try():
    from esptool.util import FatalError
    rec = RecordingEsptool(fail=("write_flash", FatalError("MD5 of file does not match data in flash!")))
    with pytest.raises(NestError, match="does not match the image.*lower --baud"):
        flashing.flash_firmware("/dev/ttyUSB0", image(), cmds=rec, say=lambda _: None)
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
    from nest import cli, cmd_flash, reflash

    calls = []
    monkeypatch.setattr(reflash, "reflash", lambda port, fw, **kw: calls.append(("flash", port)))

    class Report:
        started = "ready (new game)"

        def summary(self):
            return "sent 0 files"

    monkeypatch.setattr(cmd_flash, "deploy",
                        lambda port, src: calls.append(("deploy", port, src)) or Report())
    monkeypatch.setattr(cmd_flash, "build", lambda src: calls.append(("build", src)))
    fw = tmp_path / "fw.bin"
    fw.write_bytes(image())
    assert cli.main(["flash", "--firmware", str(fw), "--port", pty_port, "--src", "somewhere"]) == 0
    assert calls == [("build", "somewhere"), ("flash", pty_port), ("deploy", pty_port, "somewhere")]
    calls.clear()
    assert cli.main(["flash", "--firmware", str(fw), "--port", pty_port, "--no-deploy"]) == 0
    assert calls == [("flash", pty_port)]


def test_a_virtual_board_is_never_a_flash_target(tmp_path, pty_port):
    ports.announce_virtual_board(pty_port, control="127.0.0.1:1")
    fw = tmp_path / "fw.bin"
    fw.write_bytes(image())
    env = dict(os.environ)
    r = subprocess.run([NEST, "flash", "--firmware", str(fw)], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "virtual boards are never flashed" in r.stderr, r.stderr
    r = subprocess.run([NEST, "flash", "--firmware", str(fw), "--port", pty_port], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 2 and f"{pty_port} is a virtual board" in r.stderr, r.stderr
    # ... while every other command still finds it by itself
    assert ports.pick_port(comports=lambda: []) == pty_port


def test_a_board_is_chosen_by_its_serial_number_as_mpremote_connect_id():
    seen = [usb("/dev/ttyUSB0", 0x10C4, 0xEA60, "A1"), usb("/dev/ttyACM0", 0x303A, 0x1001, "B2")]
    assert ports.pick_port("id:B2", comports=lambda: seen) == "/dev/ttyACM0"
    with pytest.raises(NestError, match=r"no board with serial number C3 .*/dev/ttyUSB0 \(A1\)"):
        ports.pick_port("id:C3", comports=lambda: seen)
    # Espressif's own USB is known by esptool's ESPRESSIF_VID, whatever the PID
    assert ports.list_ports(lambda: seen)[0].bridge == "Espressif USB-Serial/JTAG"
    assert ports.Port("/dev/ttyACM1", 0x303A, 0x4002).esp32_like


def test_asking_the_chip_of_a_board_not_in_download_mode_says_hold_boot(pty_port):
    # `nest flash` without --firmware on a board without MicroPython asks the chip first
    # (reflash._chip): the same hint as a flash, not esptool's FatalError.
    from nest import reflash

    with pytest.raises(NestError, match="hold the BOOT button"):
        reflash._chip(pty_port)


def test_nest_flash_outside_the_repository_stops_before_writing_micropython(tmp_path, pty_port, monkeypatch):
    from nest import cli, reflash

    calls = []
    monkeypatch.setattr(reflash, "reflash", lambda port, fw, **kw: calls.append(("flash", port)))
    fw = tmp_path / "fw.bin"
    fw.write_bytes(image())
    monkeypatch.chdir(tmp_path)  # no firmware/ here: as a pipx-installed nest run from anywhere
    assert cli.main(["flash", "--firmware", str(fw), "--port", pty_port, "--src", "firmware"]) == 2
    assert calls == []  # MicroPython was not written
