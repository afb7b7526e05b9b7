"""`nest reset`: the way back from the REPL. A board left at the REPL (a stopped `nest test`, a
REPL session) is refused by `nest monitor` naming `nest reset`, which starts the app again."""

import subprocess
import sys
from pathlib import Path

import pytest

from nest.boardlink import BoardLink
from nest.deploy import deploy

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))


def nest(*args):
    return subprocess.run([NEST, *args], capture_output=True, text=True, timeout=90)


def test_a_board_left_at_the_repl_comes_back_with_nest_reset(vboard):
    deploy(vboard.port)
    with BoardLink.open(vboard.port) as link:
        link.enter_raw()  # the app stopped; closing leaves the friendly REPL
    r = nest("monitor", "--port", vboard.port, "--seconds", "1")
    assert r.returncode == 1 and "sits at the MicroPython REPL" in r.stderr, r.stderr
    assert "`nest reset`" in r.stderr

    r = nest("reset", "--port", vboard.port)
    assert r.returncode == 0 and f"the board on {vboard.port} is ready" in r.stdout, r.stdout + r.stderr
    assert nest("monitor", "--port", vboard.port, "--seconds", "1").returncode == 0

    r = nest("reset", "--hard", "--port", vboard.port)
    assert r.returncode == 0 and "is ready" in r.stdout, r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_nest_reset_shows_the_traceback_of_a_main_py_that_raises(vboard):
    with BoardLink.open(vboard.port) as link:
        link.enter_raw()
        link.exec("open('/main.py', 'w').write('x = 1\\nraise OSError(\"planted\")\\n')")
    r = nest("reset", "--port", vboard.port)
    assert r.returncode == 1, r.stdout
    assert "main.py raised at boot" in r.stderr and "OSError: planted" in r.stderr, r.stderr
