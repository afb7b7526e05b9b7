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


# ---- the slow clients drill (lab.drills): a page that never reads, half-open and idle connections ---

def _ws_frame(text):
    """One masked client text frame (RFC 6455 section 5.2), payload under 126 bytes."""
    data = text.encode()
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _never_reading_page(port, requests, seconds):
    """A WebSocket client with a 4 KB receive buffer that sends `requests` refused requests and
    never reads an answer; (requests sent, seconds until the server cut it, or None)."""
    import socket

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    frame = _ws_frame('{"op": "no such op"}')
    sock.settimeout(seconds)
    start = time.monotonic()
    sent = 0
    try:
        while sent < requests and time.monotonic() - start < seconds:
            sock.sendall(frame * 100)
            sent += 100
    except OSError:  # reset or broken pipe: the server cut it
        return sent, time.monotonic() - start
    finally:
        sock.close()
    return sent, None


def _closed(socks, seconds):
    """The seconds after which the peer closed each of `socks` that it closed within `seconds`
    (all waited on together), in order."""
    import selectors

    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    times, start = [], time.monotonic()
    end = start + seconds
    while len(times) < len(socks) and time.monotonic() < end:
        for key, _ in sel.select(max(0.0, end - time.monotonic())):
            try:
                data = key.fileobj.recv(1024)
            except OSError:
                data = b""
            if not data:
                sel.unregister(key.fileobj)
                times.append(time.monotonic() - start)
    for s in socks:
        s.close()
    return times


def slow_clients(folder, requests=200000, connections=200):
    """`nest web` against a page that never reads and `connections` half-open HTTP connections, and
    a control channel against as many idle ones; counts, and nest web's memory (RSS) before/after."""
    import socket

    import psutil

    from nest.vboard import control
    from nest.web import server

    proc, url = start_web(Path(folder) / "flash")
    port = int(url.rsplit(":", 1)[1])
    try:
        rss = psutil.Process(proc.pid).memory_info().rss
        sent, cut_after = _never_reading_page(port, requests, 60)
        time.sleep(1)
        rss_after = psutil.Process(proc.pid).memory_info().rss
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(connections)]
        for s in socks:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
        http = _closed(socks, server.HEADER_TIMEOUT_S + 10)
        import urllib.request
        with urllib.request.urlopen(url + "/", timeout=30) as page:   # the page is served still
            served = page.status == 200
    finally:
        stop_web(proc)
    srv = control.ControlServer(board=None)
    try:
        ctl = _closed([socket.create_connection(srv.address) for _ in range(connections)],
                      control.FIRST_LINE_S + 10)
    finally:
        srv.close()
    return {"sent": sent, "cut_after_s": cut_after, "rss_mb": rss / 2**20, "rss_after_mb": rss_after / 2**20,
            "served": served, "connections": connections,
            "http_closed": len(http), "http_at_once": sum(t < 1 for t in http), "http_last_s": max(http),
            "control_closed": len(ctl), "control_at_once": sum(t < 1 for t in ctl),
            "control_last_s": max(ctl),
            "header_s": server.HEADER_TIMEOUT_S, "first_line_s": control.FIRST_LINE_S,
            "http_cap": server.MAX_CONNECTIONS, "control_cap": control.MAX_CONNECTIONS}
