"""`nest web` and Debian's headless Chromium for the play page's tests and the web fuzz drill: one
way to start and stop the server, and the browser's flags (as the machine's probe runs it: without
the background-networking flags Chromium's connections are refused by the closed network)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEST = Path(sys.executable).with_name("nest")
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start_web(flash, port=0, timing="host"):
    """`nest web` on 127.0.0.1 (port 0: any free one) in a process group of its own; (process, url).
    Host timing by default: what these tests check is the page and the server, not the ESP32's
    speed (docs/virtual-board.md). The url has no trailing slash."""
    proc = subprocess.Popen([str(NEST), "web", "--timing", timing, "--no-open", "--port", str(port),
                             "--flash", str(flash)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
    end = time.monotonic() + 90
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        if "http://" in line:
            url = line[line.index("http://"):].split()[0].rstrip("/")   # url + "/ws", url + "/"
            if not url.startswith("http://127.0.0.1:"):
                stop_web(proc)
                raise AssertionError(f"nest web is not on loopback: {url}")
            return proc, url
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError(f"nest web printed no URL: {proc.stderr.read()}")


def stop_web(proc):
    """Ctrl-C, as a person stops it; True if it stopped on it (else it is killed)."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
        return True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return False
