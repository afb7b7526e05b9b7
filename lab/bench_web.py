"""Figures for docs/play-page.md: `nest web` start-up (to its printed URL) on an empty flash folder
and again on the same folder (the firmware resumes its game), and the CPU the running page costs
(server + virtual board) over 10 s while one headless Chromium page is connected.

    .venv/bin/python -m lab.bench_web
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEST = Path(sys.executable).with_name("nest")


def cpu_s(pid):
    """user + system seconds of one process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def tree(pid):
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():  # children of any thread (Node is started by one)
        for child in (task / "children").read_text().split():
            out += tree(int(child))
    return out


def start(flash):
    t0 = time.monotonic()
    proc = subprocess.Popen([str(NEST), "web", "--no-open", "--port", "0", "--flash", str(flash)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    line = proc.stdout.readline()
    return proc, time.monotonic() - t0, line[line.index("http://"):].split()[0]


def stop(proc):
    proc.send_signal(signal.SIGINT)
    proc.wait(30)


def main():
    flash = Path(tempfile.mkdtemp(prefix="bench-web-"))
    proc, first, url = start(flash)
    stop(proc)
    proc, again, url = start(flash)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(), executable_path="/usr/bin/chromium", headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_selector("#app[data-phase]:not([data-phase=''])")
        time.sleep(2)
        pids = tree(proc.pid)
        c0, t0 = sum(cpu_s(p) for p in pids), time.monotonic()
        time.sleep(10)
        c1, t1 = sum(cpu_s(p) for p in pids), time.monotonic()
        ctx.close()
    stop(proc)
    print(f"start to URL, empty flash: {first:.1f} s; same flash again (game resumed): {again:.1f} s")
    print(f"server + board CPU, one page open, idle game: {100 * (c1 - c0) / (t1 - t0):.1f} % of one core")


if __name__ == "__main__":
    main()
