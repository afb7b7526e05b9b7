"""`nest sim` as a user runs it: a port file appears, mpremote works, SIGTERM stops it cleanly."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nest import ports
from testkit.vboard_fixtures import MPREMOTE

pytestmark = pytest.mark.board
NEST = Path(sys.executable).with_name("nest")


def test_nest_sim_headless_with_port_file_and_flash(tmp_path):
    port_file, flash = tmp_path / "port", tmp_path / "flash"
    cmd = [str(NEST), "sim", "--timing", "host",
           "--headless", "--port-file", str(port_file), "--flash", str(flash),
           "--baud", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 20
        while not port_file.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < end, "no port file"
            time.sleep(0.05)
        port = port_file.read_text().strip()
        assert port in [p.device for p in ports.virtual_boards()]
        out = subprocess.run([str(MPREMOTE), "connect", port, "exec", "open('hi.txt', 'w').write('hi')"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 0, stderr
    assert stdout == ""  # headless
    assert not port_file.exists()
    assert (flash / "hi.txt").read_text() == "hi"


def test_nest_sim_rejects_a_negative_baud():
    proc = subprocess.run([str(NEST), "sim", "--baud", "-5"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--baud" in proc.stderr
