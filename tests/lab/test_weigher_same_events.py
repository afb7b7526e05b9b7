"""lab/weigher_same_events.py, the check that a change meant only to cost less decides the same:
it passes the shipped weigher against itself and fails one that decides otherwise."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ["-m", "lab.weigher_same_events"]
SOURCE = ROOT / "firmware" / "gulo" / "weigher.py"


def same_events(old_file, *args):
    return subprocess.run([sys.executable, *TOOL, "--old-file", str(old_file), "--traces", "3", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_shipped_weigher_decides_as_itself():
    r = same_events(SOURCE)
    assert r.returncode == 0 and "0 of 3 sessions decide differently" in r.stdout, r.stdout + r.stderr


def test_a_weigher_that_decides_otherwise_is_named(tmp_path):
    # planted: the median of 3 taken out (glitches reach the signal)
    src = SOURCE.read_text()
    shipped = "        y = x if lo <= x <= hi else (lo if x < lo else hi)\n"
    assert src.count(shipped) == 1, "the shipped line moved: update the planted fault"
    bad = tmp_path / "weigher.py"
    bad.write_text(src.replace(shipped, "        y = x\n"))
    r = same_events(bad, "--rate", "10")
    assert r.returncode == 1 and "seed 7601: only before" in r.stdout, r.stdout + r.stderr
