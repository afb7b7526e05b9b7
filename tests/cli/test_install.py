"""A plain install, as a maker gets it: the wheel built from the repository (`pip wheel --no-deps .`)
installed with its dependencies into a fresh venv (pip's cache reused; no editable install, no
repository beside it). Every command's --help and the main paths that need no board run without a
traceback; the installed package is the product only (no lab, no testkit); the virtual board
without the MicroPython VM or without Node says what is missing and how to get it, at once, and
with the VM installed where the message says, it starts.

One venv per test session (about a minute to build: the wheel in pip's isolated build env, then
~30 packages from the cache), shared by the tests below."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gulo.rules import deal
from nest.cli import COMMANDS
from nest.vboard.launcher import VM_PACKAGE, VM_VERSION

pytestmark = pytest.mark.install
ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("pyproject.toml", "README.md", "host_tools", "firmware/gulo")


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(venv's bin folder, env for its commands): the wheel of a copy of the product's sources
    (what git would check out: no build/ or egg-info left over from the editable install)."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".planted-*", "node_modules")
    for rel in PRODUCT:
        if (ROOT / rel).is_dir():
            shutil.copytree(ROOT / rel, src / rel, ignore=skip)
        else:
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / rel, src / rel)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", str(src), "-w", str(tmp / "wheel")], check=True, timeout=300)
    (wheel,) = (tmp / "wheel").glob("gulo_nest-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", str(wheel)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(XDG_CACHE_HOME=str(tmp / "cache"), XDG_DATA_HOME=str(tmp / "data"),
               XDG_RUNTIME_DIR=str(tmp / "run"), HOME=str(tmp / "home"))
    (tmp / "home").mkdir()
    return venv / "bin", env, tmp


def run(installed, *args, cwd=None, env=None, timeout=60):
    bin_dir, base_env, tmp = installed
    r = subprocess.run([str(bin_dir / "nest"), *args], capture_output=True, text=True, timeout=timeout,
                       cwd=cwd or tmp, env=env or base_env)
    assert "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr
    return r


def test_the_installed_package_is_the_product_only(installed):
    bin_dir, env, tmp = installed
    code = ("import importlib.metadata as m, json; d = m.distribution('gulo-nest'); "
            "print(json.dumps(sorted({str(f).split('/')[0] for f in d.files})))")
    tops = json.loads(subprocess.run([str(bin_dir / "python"), "-c", code], capture_output=True, text=True,
                                     env=env, cwd=tmp, check=True).stdout)
    assert [t for t in tops if not t.startswith(("gulo_nest-", ".."))] == ["gulo", "nest"], tops
    for name in ("lab", "testkit", "enclosure", "tests"):
        probe = subprocess.run([str(bin_dir / "python"), "-c", f"import {name}"], capture_output=True,
                               env=env, cwd=tmp)
        assert probe.returncode != 0, f"{name} is importable from the installed nest"


def test_every_command_and_the_paths_that_need_no_board_work(installed):
    assert run(installed, "--help").returncode == 0
    for name in COMMANDS:
        r = run(installed, name, "--help")
        assert r.returncode == 0 and r.stdout.startswith(f"usage: nest {name}"), (name, r.stderr)
    version = run(installed, "--version")
    assert version.returncode == 0 and version.stdout.startswith("nest ")
    ports = run(installed, "ports", "--no-probe")
    assert ports.returncode == 0 and "ESP32-like port" in ports.stdout

    tmp = installed[2]
    path, deck = deal(11)
    log = tmp / "game.jsonl"
    log.write_text(json.dumps({"setup": {"players": 2, "variant": "standard", "path": path, "deck": deck}})
                   + "\n" + json.dumps({"do": "reveal"}) + "\n")
    replay = run(installed, "replay", str(log), "--json")
    assert replay.returncode == 0 and json.loads(replay.stdout)["revealed"] == 1, replay.stdout
    trace = tmp / "trace.csv"
    generated = run(installed, "weigh", "--generate", str(trace), "--seed", "3")
    assert generated.returncode == 0 and trace.read_text().startswith("t_ms,grams"), generated.stderr
    weighed = run(installed, "weigh", "--replay", str(trace))
    assert weighed.returncode == 0 and weighed.stdout.strip(), weighed.stderr
    # outside a repository there is no firmware/ folder: named, before anything is written
    deploy = run(installed, "deploy", "--port", "/dev/null")
    assert deploy.returncode == 2 and "firmware folder firmware not found" in deploy.stderr, deploy.stderr


def test_the_virtual_board_without_its_vm_says_how_to_get_it(installed):
    start = time.monotonic()
    r = run(installed, "sim", "--headless")
    assert r.returncode == 1 and time.monotonic() - start < 10, r.stderr
    data = Path(installed[1]["XDG_DATA_HOME"]) / "gulo-nest" / "vm"
    line = [x for x in r.stderr.splitlines() if x.startswith("nest: ")][-1]
    assert f'npm install --prefix "{data}" {VM_PACKAGE}@{VM_VERSION}' in line, r.stderr


def test_the_play_page_outside_the_repository_says_it_needs_the_firmware(installed):
    # the virtual nest runs the repository's firmware/ (main.py and the app), which no wheel holds
    r = run(installed, "web", "--no-open", "--port", "0")
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "run this from a clone of the repository" in r.stderr, r.stderr


def test_the_virtual_board_without_node_says_so(installed):
    env = dict(installed[1], PATH=str(installed[0]))  # the venv's commands, no node
    r = run(installed, "sim", "--headless", env=env)
    assert r.returncode == 1 and "needs Node.js" in r.stderr and "npm install --prefix" in r.stderr, r.stderr


def test_with_the_vm_where_the_message_says_the_virtual_board_starts(installed):
    bin_dir, env, tmp = installed
    target = Path(env["XDG_DATA_HOME"]) / "gulo-nest" / "vm" / "node_modules" / VM_PACKAGE
    shutil.copytree(ROOT / "node_modules" / VM_PACKAGE, target)  # what the npm install puts there
    try:
        port_file = tmp / "sim.port"
        proc = subprocess.Popen([str(bin_dir / "nest"), "sim", "--headless", "--timing", "host",
                                 "--port-file", str(port_file)], env=env, cwd=tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            end = time.monotonic() + 60
            while not port_file.exists() and proc.poll() is None and time.monotonic() < end:
                time.sleep(0.2)
            assert port_file.exists(), proc.communicate(timeout=10)
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "Traceback" not in err, err
    finally:
        shutil.rmtree(target)
