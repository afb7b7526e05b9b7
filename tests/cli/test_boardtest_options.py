"""`nest test` tidies the board after a run (--keep keeps), --exclude, --rerun-failed; on the
virtual board with the real `nest` command."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nest.boardlink import BoardLink

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))
FIRMWARE_TESTS = Path(__file__).resolve().parents[2] / "firmware" / "tests"

TESTS = '''
from scratch import scratch_dir


def test_writes_a_scratch_file():
    with open(scratch_dir() + "/x.txt", "w") as f:
        f.write("x" * 100)


def test_fails_until_fixed():
    import flag
    assert flag.FIXED


def test_slow_one():
    pass
'''


def board_root(board):
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        return link.eval_json("import os, json\nprint(json.dumps(sorted(os.listdir('/') + "
                              "['.nest/' + n for n in os.listdir('/.nest')])))")


def nest_test(board, folder, env, *args):
    r = subprocess.run([NEST, "test", "--port", board.port, "--tests", str(folder), *args],
                       capture_output=True, text=True, timeout=180, env=env)
    ran = [x.split(" (")[0] for x in r.stdout.splitlines() if x.startswith(("PASS", "FAIL"))]
    return r, ran


def test_a_run_leaves_nothing_on_the_board_unless_kept_and_failures_can_be_rerun(vboard, tmp_path):
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_opts.py").write_text(TESTS)
    (folder / "scratch.py").write_text((FIRMWARE_TESTS / "scratch.py").read_text())
    (folder / "flag.py").write_text("FIXED = False\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))  # --rerun-failed's record

    r, ran = nest_test(vboard, folder, env, "--exclude", "slow")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ran == ["PASS test_opts::test_writes_a_scratch_file", "FAIL test_opts::test_fails_until_fixed"]
    assert "removed /nest_test, /scratch from the board" in r.stdout
    left = board_root(vboard)
    assert not {"nest_test", "scratch", ".nest/nest_test.json"} & set(left), left

    (folder / "flag.py").write_text("FIXED = True\n")
    r, ran = nest_test(vboard, folder, env, "--rerun-failed", "--keep")
    assert r.returncode == 0 and ran == ["PASS test_opts::test_fails_until_fixed"], r.stdout + r.stderr
    assert "rerunning the 1 test that failed last time" in r.stdout
    assert {"nest_test", ".nest/nest_test.json"} <= set(board_root(vboard))  # --keep kept them

    # nothing failed last time: --rerun-failed runs them all
    r, ran = nest_test(vboard, folder, env, "--rerun-failed", "-k", "test_opts")
    assert r.returncode == 0 and len(ran) == 3, r.stdout
    assert not {"nest_test", "scratch"} & set(board_root(vboard))

    r, _ = nest_test(vboard, folder, env, "--exclude", "test_")
    assert r.returncode == 2 and "outside --exclude test_" in r.stderr
