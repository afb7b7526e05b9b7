"""The console's `log` sends a game's log a line at a time as it reads it: the answer is never one
string the size of the log in RAM (built whole, it failed with MemoryError on the ESP32 memory
model, where the largest free block can be smaller than a game's 2-4 KB log:
docs/firmware-budgets.md). Measured here in CPython with tracemalloc, the firmware's own code;
the answer built whole, as it was, is planted and fails the check."""

import contextlib
import io
import json
import subprocess
import sys

import pytest

from gulo import commands, store
from gulo.gamestore import GameStore

LINES = 1000  # about 90 B each: a 90 KB log, ten times CPython's 8 KB file buffer


class Nest:
    def __init__(self, folder):
        self.store = GameStore(str(folder))


@pytest.fixture
def nest(tmp_path):
    n = Nest(tmp_path)
    path = n.store.games + "/0001.jsonl"
    for i in range(LINES):
        store.append(path, store.seal(json.dumps({"do": "take", "egg": "G", "t": 1000 * i, "pad": "x" * 40})))
    return n


def peak_while(folder, whole=False):
    """(the answer printed, the most memory held at once while it was made, in bytes): by the
    console's `log` command, or (`whole`) by the planted fault that builds it whole. Printed
    straight to a file, as to a serial port: nothing of it kept in memory. Measured in a process
    of its own: tracemalloc counts every thread's allocations, and a pytest-xdist worker's message
    thread allocates while the test runs (66 KB on top of a 6 KB peak, seen)."""
    answer = folder / "answer.txt"
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(folder), "whole" if whole else "sent",
                           str(answer)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return answer.read_text(), int(proc.stdout)


MEASURE = """
import contextlib, io, sys, tracemalloc
from gulo import commands, console
from gulo.gamestore import GameStore

class Nest:
    def __init__(self, folder):
        self.store = GameStore(folder)

def built_whole(nest, cmd, name, id):
    # the planted fault: the log's lines and the answer made whole, then printed
    lines = []
    nest.store.log_each(name, lines.append)
    print(console.answer(cmd, id, name=name, lines=lines))

folder, how, path = sys.argv[1:]
send = built_whole if how == "whole" else commands._send_log
nest = Nest(folder)
with open(path, "wb", buffering=0) as raw:
    out = io.TextIOWrapper(raw, write_through=True)
    tracemalloc.start()
    with contextlib.redirect_stdout(out):
        send(nest, "log", "0001.jsonl", 7)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out.detach()
print(peak)
"""


def log_lines(gs, name):
    lines = []
    gs.log_each(name, lines.append)
    return lines


def test_the_log_is_answered_whole_and_exact(nest, tmp_path):
    text, _ = peak_while(tmp_path)
    ans = json.loads(text)
    assert ans["ok"] and ans["id"] == 7 and ans["name"] == "0001.jsonl"
    assert ans["lines"] == log_lines(nest.store, "0001.jsonl") and len(ans["lines"]) == LINES


def test_the_log_is_never_held_whole(nest, tmp_path):
    size = LINES * 90
    _, peak = peak_while(tmp_path)
    assert peak < size / 4, (peak, size)


def test_planted_an_answer_built_whole_fails_the_check(nest, tmp_path):
    text, peak = peak_while(tmp_path, whole=True)
    assert json.loads(text)["lines"]                     # the same answer...
    assert not peak < LINES * 90 / 4, peak               # ...held whole


def test_a_log_cut_while_it_is_sent_is_no_answer(nest, monkeypatch):
    # a failure half way (the flash, memory) must not leave an answer that reads as whole
    def each(name, send):
        if send is commands._skip:
            return 1          # the check passes...
        send("{}")
        raise OSError("the flash went away")   # ...and the read that sends fails half way
    monkeypatch.setattr(nest.store, "log_each", each)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(OSError):
        commands._send_log(nest, "log", "0001.jsonl", 7)
    first = out.getvalue().split("\n")[0]
    with pytest.raises(ValueError):
        json.loads(first)
