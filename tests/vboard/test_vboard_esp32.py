"""The virtual board behaves like MicroPython on an ESP32 where firmware can tell."""

import threading
import time

import pytest
import serial

from gulo import board as pins
from testkit.vboard_fixtures import mpremote, read_until

pytestmark = pytest.mark.board


def run(board, code, timeout=60):
    return mpremote(board, "exec", code, timeout=timeout).stdout


def test_micropython_errno_numbers(vboard):
    out = run(vboard, (
        "import errno, os\n"
        "try:\n    open('missing.txt')\nexcept OSError as e:\n    print(e.errno, e.errno == errno.ENOENT)\n"
        "os.mkdir('d')\n"
        "try:\n    os.mkdir('d')\nexcept OSError as e:\n    print(e.errno, e.errno == errno.EEXIST)\n"))
    assert out.split() == ["2", "True", "17", "True"]
    proc = mpremote(vboard, "exec", "open('missing.txt')", check=False)
    assert "OSError: [Errno 2] ENOENT" in proc.stdout + proc.stderr


def test_banner_and_line_endings(vboard):
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        vboard.control.reset()
        # The reset's ROM text first: on a loaded host the board's first boot may still be printing
        # its banner when the port is opened, and that banner's prompt is not the reset's.
        text = read_until(port, b"rst:0x1 (POWERON_RESET)", 15)
        text += read_until(port, b">>> ", 15)
        port.write(b"print('a'); print('b')\r")
        time.sleep(0.5)
        text2 = port.read(256)
    assert b"rst:0x1 (POWERON_RESET)" in text
    assert b"MicroPython v1.29.0 on " in text and b"Generic ESP32 module with ESP32\r\n" in text
    assert b"a\r\nb\r\n>>> " in text2


def test_machine_identity(vboard):
    out = run(vboard, "import machine\n"
                      "print(machine.reset_cause() == machine.PWRON_RESET, len(machine.unique_id()),"
                      " machine.freq())")
    assert out.split() == ["True", "6", "160000000"]
    vboard.control.reset()
    time.sleep(0.5)
    assert run(vboard, "import machine\nprint(machine.reset_cause() == machine.HARD_RESET)").strip() == "True"


def test_ticks_and_sleeps_do_not_spin(vboard):
    # A spinning sleep burns a whole core for its duration; a blocking one next to nothing.
    cpu0 = _cpu_seconds(vboard.proc.pid)
    out = run(vboard, "import time\nt = time.ticks_ms()\nu = time.ticks_us()\n"
                      "time.sleep(1)\ntime.sleep_ms(500)\n"
                      "print(time.ticks_diff(time.ticks_ms(), t),"
                      " time.ticks_diff(time.ticks_us(), u) // 1000)")
    cpu = _cpu_seconds(vboard.proc.pid) - cpu0
    ms, us_ms = (int(x) for x in out.split())
    assert 1500 <= ms < 5000 and 1500 <= us_ms < 5000
    assert cpu < 0.5 * 1.5, f"the board used {cpu:.2f} s of CPU during 1.5 s of sleep"


def _cpu_seconds(pid):
    import os
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_asyncio_run_blocks_and_thread_safe_flag_wakes(vboard):
    button = pins.BUTTON_RED
    timer = threading.Timer(2.5, vboard.control.press, args=("RED",))  # once the IRQ is armed
    timer.start()
    try:
        out = run(vboard, (
            "import asyncio, time\nfrom machine import Pin\n"
            "flag = asyncio.ThreadSafeFlag()\n"
            f"p = Pin({button}, Pin.IN, Pin.PULL_UP)\n"
            "p.irq(lambda pin: flag.set(), Pin.IRQ_FALLING)\n"
            "async def main():\n"
            "    t = time.ticks_ms()\n"
            "    await asyncio.wait_for(flag.wait(), 20)\n"
            "    return p.value(), time.ticks_diff(time.ticks_ms(), t) > 300\n"
            "print(asyncio.run(main()))\n"
            "print('after run')\n"))
    finally:
        timer.cancel()
    assert out.split("\n")[:2] == ["(0, True)", "after run"]


def test_wdt_resets_a_hung_program(vboard, tmp_path):
    main = tmp_path / "main.py"
    main.write_text(
        "import machine\n"
        "if machine.reset_cause() == machine.WDT_RESET:\n"
        "    print('reset by the watchdog')\n"
        "else:\n"
        "    wdt = machine.WDT(timeout=500)\n"
        "    print('hanging')\n"
        "    n = 0\n"
        "    while True:\n"
        "        n += 1\n")
    mpremote(vboard, "fs", "cp", str(main), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        vboard.control.reset()
        text = read_until(port, b"reset by the watchdog", 20)
    assert b"hanging" in text and b"rst:0x7 (TG0WDT_SYS_RESET)" in text
    assert text.index(b"hanging") < text.index(b"reset by the watchdog")


def test_fed_wdt_does_not_reset(vboard):
    out = run(vboard, "import machine, time\nw = machine.WDT(timeout=300)\nfor i in range(8):\n"
                      "    time.sleep_ms(100)\n    w.feed()\nprint('still here', machine.reset_cause())")
    assert out.strip() == "still here 1"


CONSOLE_MAIN = """import asyncio, select, sys
async def console():
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    line = ''
    while True:
        while poller.poll(0):
            ch = sys.stdin.read(1)
            if ch in ('\\r', '\\n'):
                if line:
                    print('got:', line)
                line = ''
            else:
                line += ch
        await asyncio.sleep_ms(20)
print('console up')
asyncio.run(console())
"""


def test_a_running_program_reads_the_serial_line_through_stdin(vboard, tmp_path):
    main = tmp_path / "main.py"
    main.write_text(CONSOLE_MAIN)
    mpremote(vboard, "fs", "cp", str(main), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        vboard.control.reset()
        text = read_until(port, b"console up", 15)
        time.sleep(0.3)
        cpu0 = _cpu_seconds(vboard.proc.pid)
        time.sleep(1.0)  # nothing to read: the poll loop must not spin
        idle_cpu = _cpu_seconds(vboard.proc.pid) - cpu0
        port.write(b'{"cmd": "ping"}\r')
        text = read_until(port, b"got:", 10)
        port.write(b"\x03")
        text += read_until(port, b">>> ", 10)
    assert b'got: {"cmd": "ping"}\r\n' in text
    assert b"KeyboardInterrupt" in text
    assert idle_cpu < 0.5, f"{idle_cpu:.2f} s of CPU in 1 s of an idle console loop"


def test_sys_exit_in_main_soft_resets(vboard, tmp_path):
    main = tmp_path / "main.py"
    main.write_text("import sys, os\nprint('main run')\nif 'again' not in os.listdir():\n"
                    "    open('again', 'w').close()\n    sys.exit()\nprint('second run')\n")
    mpremote(vboard, "fs", "cp", str(main), ":main.py")
    with serial.Serial(vboard.port, 115200, timeout=0.2) as port:
        vboard.control.reset()
        text = read_until(port, b">>> ", 15)
    assert text.count(b"main run") == 2
    assert text.index(b"MPY: soft reboot") < text.index(b"second run")


def test_statvfs_reports_an_esp32_sized_flash_that_fills_up(vboard):
    out = run(vboard, "import os\ns = os.statvfs('/')\nf = open('big.bin', 'wb')\nf.write(bytes(40000))\n"
                      "f.close()\nt = os.statvfs('/')\nprint(s[0] * s[2], s[3] - t[3])")
    total, used_blocks = (int(x) for x in out.split())
    assert total == 2 * 1024 * 1024
    assert used_blocks >= 40000 // 4096


def test_a_full_flash_raises_enospc(vboard):
    # MicroPython's errno module has no ENOSPC constant (on the ESP32 neither): 28 is Linux's
    out = run(vboard, "f = open('fill.bin', 'wb')\ntry:\n    while True:\n"
                      "        f.write(bytes(10000))\nexcept OSError as e:\n"
                      "    print(e.errno)\n"
                      "f.close()\nimport os\nos.remove('fill.bin')\n"
                      "f = open('small.txt', 'w')\nf.write('ok')\nf.close()\nprint(open('small.txt').read())")
    assert out.split() == ["28", "ok"]
