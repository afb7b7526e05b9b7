"""One nest per flash folder, and Ctrl-C that ends `nest web` at once with a page open, in real
headless Chromium against `nest web` on the virtual board. Both failed before this change: a
second `nest web` on the same folder ran beside the first without a word, and Ctrl-C with a page
open took 30-60 s (the server waited for the page's socket)."""

import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_web_family import browser, open_page  # noqa: F401  (browser: the module's fixture)

from testkit.web_kit import CHROMIUM, NEST, ROOT, start_web, stop_web

pytestmark = [pytest.mark.browser, pytest.mark.board, pytest.mark.timeout(300)]

STOP_S = 3.0   # the bound: a person's Ctrl-C ends it within 3 s

if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)


def test_one_nest_per_flash_folder_and_ctrl_c_ends_it_with_a_page_open(browser, tmp_path):  # noqa: F811
    flash = tmp_path / "flash"
    proc, url = start_web(flash)
    try:
        pg = open_page(browser, url)
        # A second `nest web` on the same folder is refused at once, naming the holder.
        second = subprocess.run([str(NEST), "web", "--timing", "host", "--no-open", "--port", "0",
                                 "--flash", str(flash)], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert second.returncode != 0, second.stdout
        assert f"already in use by nest web (pid {proc.pid}" in second.stderr, second.stderr
        assert "Traceback" not in second.stderr
        # Ctrl-C with the page open: over within STOP_S.
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        took = time.monotonic() - t0
        assert took < STOP_S, f"Ctrl-C took {took:.1f} s"
        assert proc.returncode == 0, proc.stderr.read()
        pg.context.close()
    finally:
        if proc.poll() is None:
            stop_web(proc)
    # The lock ends with the process: the folder is free again.
    proc, url = start_web(flash)
    assert stop_web(proc)
