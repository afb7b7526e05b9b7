"""Serial edge cases a maker meets on a real ESP32, tried on the virtual board through its pty
(issue 14): Ctrl-C in the middle of a raw-paste, a board restarted on a flash folder that holds the
firmware (unplug and replug), and `mpremote romfs query` on a board built without ROMFS."""

import time
from pathlib import Path

import pytest
import serial

from nest.errors import NestError
from nest.vboard import VirtualBoard, launcher
from testkit.vboard_fixtures import Console, mpremote, read_until

pytestmark = pytest.mark.board
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def _raw_repl(port):
    port.write(b"\r\x03\x03")
    time.sleep(0.1)
    port.reset_input_buffer()
    port.write(b"\x01")
    read_until(port, b"raw REPL; CTRL-B to exit\r\n>")


def test_ctrl_c_in_a_raw_paste_aborts_it_and_leaves_the_raw_repl_usable(vboard):
    # MicroPython's raw-paste reader (shared/runtime/pyexec.c, mp_reader_stdin_readbyte) answers a
    # Ctrl-C in the data with "\x04" (end to host) and raises KeyboardInterrupt from the lexer;
    # parse_compile_execute prints "\x04", the exception (no traceback: it came from no frame),
    # "\x04", and the raw REPL shows its ">" prompt again.
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        _raw_repl(port)
        port.write(b"\x05A\x01")
        got = read_until(port, b"R\x01")
        got += port.read(3)
        # the ESP32's window: half of MICROPY_REPL_STDIN_BUFFER_MAX (256), and a second one free
        assert got.endswith(b"R\x01\x80\x00\x01"), got
        port.write(b"print('never')\nx = 1\n")
        time.sleep(0.2)
        port.write(b"\x03")
        aborted = read_until(port, b"\x04>")
        assert aborted == b"\x04\x04KeyboardInterrupt: \r\n\x04>", aborted
        assert b"never" not in aborted
        # still a raw REPL, ready for an ordinary command
        port.write(b"print(6 * 7)\x04")
        assert read_until(port, b"\x04>") == b"OK42\r\n\x04\x04>"
        port.write(b"\x02")
        read_until(port, b">>> ")
    # and real mpremote (which uses raw-paste itself) finds the board as usual
    assert mpremote(vboard, "exec", "print('after', 1 + 1)").stdout.strip() == "after 2"


def _deploy_firmware(board):
    mpremote(board, "fs", "cp", "-r", str(FIRMWARE / "gulo"), ":")
    mpremote(board, "fs", "cp", str(FIRMWARE / "main.py"), ":main.py")


def test_a_board_restarted_on_a_flash_folder_with_the_firmware_comes_up_running_the_game(tmp_path):
    # Unplug and replug: the firmware is on the flash, so main.py runs the game at power-up and
    # never returns. The board is ready when the app is up (a real board's port is there then).
    flash = tmp_path / "flash"
    with VirtualBoard(flash_dir=flash, baud=0, log_path=tmp_path / "first.log") as first:
        _deploy_firmware(first)
    assert (flash / "main.py").exists()
    with VirtualBoard(flash_dir=flash, baud=0, log_path=tmp_path / "second.log") as board:
        assert board.control.request("ping")["boots"] == 1
        with serial.Serial(board.port, 115200, timeout=0.1) as port:
            console = Console(port)
            console.send(cmd="status", id=7)
            status = console.wait(lambda ev: ev.get("re") == "status")[-1]
            assert status["ok"] and status["id"] == 7 and status["phase"]
            port.write(b"\x03")  # mpremote's way in: Ctrl-C stops the app, the REPL follows
            console.wait(lambda ev: ev.get("ev") == "stopped")
        assert mpremote(board, "exec", "print('repl', 2)").stdout.strip() == "repl 2"


def test_a_board_that_does_not_start_names_a_log_that_exists(monkeypatch):
    monkeypatch.setattr(launcher, "START_TIMEOUT_S", 0.001)  # no VM starts in a millisecond
    board = VirtualBoard()
    with pytest.raises(NestError) as err:
        board.start()
    assert str(board.log_path) in str(err.value)
    assert board.log_path.exists()
    board.log_path.unlink()




def test_a_stock_board_has_no_romfs(vboard):
    # MICROPY_VFS_ROM defaults to 0 (py/mpconfig.h) and nothing under ports/esp32 sets it, so a
    # stock ESP32_GENERIC's vfs has no rom_ioctl (extmod/modvfs.c); mpremote says so and stops.
    out = mpremote(vboard, "romfs", "query")
    assert out.stdout.strip() == "ROMFS is not enabled on this device", out.stdout + out.stderr
    assert mpremote(vboard, "exec", "import vfs; print(hasattr(vfs, 'rom_ioctl'), hasattr(vfs, 'mount'))"
                    ).stdout.strip() == "False True"
