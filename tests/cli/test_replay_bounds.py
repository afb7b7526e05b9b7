"""`nest replay` on hostile input (issue 17, hole 7): deep nesting, endless input, a FIFO and an
over-long line each end with exit status 2 and `FILE:LINE: reason`, never a traceback or a hang."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gulo.gamelog import encode, setup_record
from gulo.rules import Game
from nest.jsonguard import MAX_DEPTH, nesting_depth
from nest.replay import MAX_LINE

NEST = str(Path(sys.executable).with_name("nest"))


def replay(*files, timeout=30):
    return subprocess.run([NEST, "replay", "--json", *map(str, files)], capture_output=True, text=True,
                          timeout=timeout)


def setup_line():
    return encode(setup_record(Game.new(2, "standard", 1)))


@pytest.mark.parametrize("line", ["[" * 1000, '{"a":' * 10000, "[" * 1000 + "]" * 1000])
def test_deep_nesting_is_refused_with_its_line(tmp_path, line):
    f = tmp_path / "deep.jsonl"
    f.write_text(setup_line() + "\n" + line + "\n")
    r = replay(f)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"{f}:2: JSON nested deeper than {MAX_DEPTH} levels (not a game log)"
    assert "Traceback" not in r.stderr


def test_endless_line_is_refused_without_reading_it_all(tmp_path):
    # /dev/zero as a regular file: zero bytes and no newline, past the bound
    f = tmp_path / "zeros.jsonl"
    f.write_bytes(b"\0" * (MAX_LINE * 4))
    r = replay(f)
    assert r.returncode == 2
    assert r.stderr.strip() == f"{f}:1: line longer than {MAX_LINE} bytes (not a game log)"


@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(dev):
    r = replay(dev)
    assert r.returncode == 2 and r.stderr.startswith(f"{dev}:1: not a regular file"), r.stderr


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    # a writer that never closes: reading the FIFO to its end would hang for ever
    opened = threading.Thread(target=lambda: open(fifo, "wb"), daemon=True)
    opened.start()
    r = replay(fifo, timeout=20)
    assert r.returncode == 2 and r.stderr.startswith(f"{fifo}:1: not a regular file"), r.stderr
    with open(fifo, "rb"):  # lets the writer thread finish
        pass


def test_a_good_log_with_a_bad_file_beside_it_still_replays(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(setup_line() + "\n" + '{"do": "reveal"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[" * 5000 + "\n")
    r = replay(good, bad)
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 1
    assert r.stderr.startswith(f"{bad}:1: JSON nested deeper")


def test_nesting_depth_skips_strings():
    assert nesting_depth('{"a": "[[[[[[", "b": [1, [2]]}') == 3
    assert nesting_depth('"\\"[[["') == 0
    assert nesting_depth("[" * 10) == 10
    assert nesting_depth("[" * 1000) == 1000
