"""Unmodified mpremote (CLI and its transport API) and pyserial against the virtual board's pty."""

import hashlib
import os
import select
import subprocess
import time

import pytest
import serial
from mpremote.transport_serial import SerialTransport

from testkit.vboard_fixtures import MPREMOTE, mpremote, read_until

pytestmark = pytest.mark.board


def put(board, name, text, tmp_path):
    src = tmp_path / name.replace("/", "_")
    src.write_text(text)
    mpremote(board, "fs", "cp", str(src), f":{name}")


def test_exec_eval_run(vboard, tmp_path):
    assert mpremote(vboard, "exec", "print(6 * 7)").stdout.strip() == "42"
    assert mpremote(vboard, "eval", "[x * x for x in range(4)]").stdout.strip() == "[0, 1, 4, 9]"
    script = tmp_path / "script.py"
    script.write_text("import sys\nprint('ran on', sys.implementation.name)\n")
    assert mpremote(vboard, "run", str(script)).stdout.strip() == "ran on micropython"


def test_exec_error_is_reported(vboard):
    proc = mpremote(vboard, "exec", "1/0", check=False)
    assert proc.returncode != 0
    assert "ZeroDivisionError" in proc.stdout + proc.stderr


def test_fs_commands_both_ways(vboard, tmp_path):
    local = tmp_path / "hello.txt"
    local.write_text("hello nest\n")
    mpremote(vboard, "fs", "cp", str(local), ":")
    assert mpremote(vboard, "fs", "cat", ":hello.txt").stdout == "hello nest\n"
    assert "Up to date" in mpremote(vboard, "fs", "cp", str(local), ":").stdout
    mpremote(vboard, "fs", "mkdir", ":lib")
    mpremote(vboard, "fs", "cp", str(local), ":lib/again.txt")
    listing = mpremote(vboard, "fs", "ls", ":").stdout
    assert "hello.txt" in listing and "lib/" in listing and "11 hello.txt" in " ".join(listing.split())
    tree = mpremote(vboard, "fs", "tree", ":").stdout
    assert "again.txt" in tree
    back = tmp_path / "back.txt"
    mpremote(vboard, "fs", "cp", ":lib/again.txt", str(back))
    assert back.read_text() == "hello nest\n"
    mpremote(vboard, "fs", "rm", ":hello.txt")
    assert "hello.txt" not in mpremote(vboard, "fs", "ls", ":").stdout
    missing = mpremote(vboard, "fs", "cat", ":nope.txt", check=False)
    assert missing.returncode != 0 and "No such file" in missing.stdout + missing.stderr


def test_recursive_copy_both_ways(vboard, tmp_path):
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("A = 1\n")
    (tree / "sub" / "b.py").write_text("B = 2\n")
    mpremote(vboard, "fs", "cp", "-r", str(tree), ":")
    out = mpremote(vboard, "exec", "import pkg.a, pkg.sub.b; print(pkg.a.A + pkg.sub.b.B)").stdout
    assert out.strip() == "3"
    out = tmp_path / "out"
    out.mkdir()
    mpremote(vboard, "fs", "cp", "-r", ":pkg", str(out))
    assert (out / "pkg" / "sub" / "b.py").read_text() == "B = 2\n"


def test_fresh_board_root_is_empty(vboard):
    # an ESP32 fresh from flashing: nothing of the emulator's own folders or shims shows
    assert mpremote(vboard, "exec", "import os; print(os.listdir('/'))").stdout.strip() == "[]"


def test_binary_50k_round_trip_is_byte_exact(vboard, tmp_path):
    blob = bytes(os.urandom(50 * 1024))
    src, back = tmp_path / "blob.bin", tmp_path / "back.bin"
    src.write_bytes(blob)
    mpremote(vboard, "fs", "cp", str(src), ":blob.bin")
    size = mpremote(vboard, "exec", "import os; print(os.stat('blob.bin')[6])").stdout.strip()
    assert size == str(len(blob))
    mpremote(vboard, "fs", "cp", ":blob.bin", str(back))
    assert hashlib.sha256(back.read_bytes()).hexdigest() == hashlib.sha256(blob).hexdigest()


def test_raw_paste_mode_is_offered_and_used(vboard):
    t = SerialTransport(vboard.port, baudrate=115200)
    try:
        t.enter_raw_repl()
        code = "x = 0\n" + "x += 1\n" * 400 + "print(x)\n"  # more than one raw-paste window
        assert t.exec(code).strip() == b"400"
        assert t.use_raw_paste  # mpremote drops to plain raw REPL when the board refuses
        t.exit_raw_repl()
    finally:
        t.close()


def test_soft_reset_and_reset(vboard, tmp_path):
    put(vboard, "boot.py", "BOOT_MARK = 'boot'\n", tmp_path)
    mpremote(vboard, "exec", "import builtins; builtins.LEFTOVER = 1")
    mpremote(vboard, "soft-reset")
    out = mpremote(vboard, "exec", "import builtins; print(hasattr(builtins, 'LEFTOVER'), BOOT_MARK)").stdout
    assert out.split() == ["False", "boot"]  # a fresh VM, and boot.py ran in it
    mpremote(vboard, "reset")  # `machine.reset()` after a 100 ms sleep that a new ^C would interrupt
    end = time.monotonic() + 10
    while vboard.control.request("ping")["reset_cause"] == 1 and time.monotonic() < end:
        time.sleep(0.05)
    assert mpremote(vboard, "exec", "import machine; print(machine.reset_cause())").stdout.strip() == "5"


def test_soft_reset_runs_boot_then_main(vboard, tmp_path):
    put(vboard, "boot.py", "print('boot ran')\n", tmp_path)
    put(vboard, "main.py", "print('main ran')\n", tmp_path)
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        port.write(b"\r\x02")  # friendly REPL
        read_until(port, b">>> ")
        port.write(b"\x04")  # Ctrl-D: soft reset
        text = read_until(port, b">>> ")
    assert b"MPY: soft reboot\r\n" in text
    assert text.index(b"boot ran") < text.index(b"main ran") < text.index(b"MicroPython v1.29.0")
    assert b"\r\nboot ran\r\n" in text  # \r\n line endings, as a board sends


def test_repl_interactive(vboard):
    # mpremote's repl needs a terminal on its side: give it one
    master, slave = os.openpty()
    proc = subprocess.Popen([str(MPREMOTE), "connect", vboard.port, "repl"], stdin=slave, stdout=slave,
                            stderr=slave)
    try:
        seen = b""
        end = time.monotonic() + 20
        sent = False
        while time.monotonic() < end and b"1764" not in seen:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                seen += os.read(master, 4096)
            if b"Connected to MicroPython" in seen and not sent:
                time.sleep(0.3)
                os.write(master, b"\r42*42\r")
                sent = True
        assert b"1764" in seen, seen
        os.write(master, b"\x1d")  # Ctrl-] leaves mpremote's repl
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)


MAINS = {
    "tight loop": "n = 0\nwhile True:\n    n += 1\n",
    "blocking sleep": "import time\ntime.sleep(3600)\n",
    "asyncio app": ("import asyncio\n\n"
                    "async def tick():\n    while True:\n        await asyncio.sleep_ms(10)\n\n"
                    "async def main():\n    asyncio.create_task(tick())\n    await asyncio.sleep(3600)\n\n"
                    "asyncio.run(main())\n"),
}


@pytest.mark.parametrize("kind", sorted(MAINS))
def test_ctrl_c_stops_a_running_main(vboard, tmp_path, kind):
    put(vboard, "main.py", "print('main started')\n" + MAINS[kind], tmp_path)
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        vboard.control.reset()  # the EN button: boots and runs main.py
        read_until(port, b"main started")
        time.sleep(0.3)
        port.write(b"\x03")
        text = read_until(port, b">>> ")
    assert b"KeyboardInterrupt" in text
    # and mpremote gets in while main.py runs again after another reset
    vboard.control.reset()
    time.sleep(0.5)
    assert mpremote(vboard, "exec", "print('in control')").stdout.strip() == "in control"


def test_flash_folder_survives_restart(vboard_factory, tmp_path):
    flash = tmp_path / "flash"
    board = vboard_factory(flash_dir=flash)
    mpremote(board, "fs", "mkdir", ":lib")
    put(board, "lib/keep.txt", "kept\n", tmp_path)
    board.stop()
    assert (flash / "lib" / "keep.txt").read_text() == "kept\n"
    again = vboard_factory(flash_dir=flash)
    assert mpremote(again, "fs", "cat", ":lib/keep.txt").stdout == "kept\n"


def test_baud_throttle_holds(vboard_factory, tmp_path):
    # Physical lower bound, not a speed target: 8N1 at 115200 moves at most 11520 bytes/s, and
    # the file (plus the code that carries it) must cross the line.
    board = vboard_factory(baud=115200)
    blob = tmp_path / "blob.bin"
    blob.write_bytes(os.urandom(16 * 1024))
    t0 = time.monotonic()
    mpremote(board, "fs", "cp", str(blob), ":blob.bin")
    elapsed = time.monotonic() - t0
    assert elapsed >= 16 * 1024 * 10 / 115200


def test_a_chatty_board_with_no_client_keeps_running(vboard_factory, tmp_path):
    # Nobody has the port open: the output goes out at line speed and is lost, as on a UART,
    # instead of filling the pty and stalling the board. 200 KB is more than the pipe and the pty
    # hold (~85 KB); the rest needs ~1.2 s at 1 Mbaud.
    flash = tmp_path / "flash"
    board = vboard_factory(baud=1000000, flash_dir=flash)
    main = "for i in range(2000):\n    print('x' * 100)\nopen('done', 'w').close()\n"
    put(board, "main.py", main, tmp_path)
    board.control.reset()
    # The board's flash is this folder: watched from outside, so no client opens the port.
    end = time.monotonic() + 60
    while not (flash / "done").exists() and time.monotonic() < end:
        time.sleep(0.1)
    assert (flash / "done").exists(), "main.py stalled: its output filled the unread port"
