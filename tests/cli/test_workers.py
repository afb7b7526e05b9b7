"""The suite's split between workers (testkit.workers): a small suite of three files, run in two
workers as `make test` runs them, keeps each file on one worker and the page tests with the CAD;
the same suite spread test by test (what xdist's `loadgroup` marks amount to on pytest 9.2,
pytest-dev/pytest-xdist issue 1386) splits a file, and the same suite split by file alone (xdist's
own `loadscope`) puts the page tests on another worker than the CAD: each check fails there."""

import subprocess
import sys
from collections import defaultdict

from testkit.workers import work_scope

FILE = """
import os, time
import pytest

@pytest.mark.parametrize("n", range(6))
def test_step(n):
    time.sleep(SLEEP_S)
    with open(os.environ["WHERE"], "a") as f:
        f.write(f"{__name__} {os.environ['PYTEST_XDIST_WORKER']}\\n")
"""
CONFTEST = "from testkit.workers import pytest_xdist_make_scheduler  # the suite's own hook\n"


def workers_per_file(tmp_path, dist, conftest=CONFTEST):
    for sub in ("tests/web", "tests/enclosure", "tests/cli"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests/conftest.py").write_text(conftest)
    # the CAD slow and the tool quick: spread by file alone, the page tests would go to the
    # worker the quick tool frees first, not to the CAD's
    for name, sleep_s in (("tests/web/test_page.py", 0.05), ("tests/enclosure/test_cad.py", 0.3),
                          ("tests/cli/test_tool.py", 0.01)):
        (tmp_path / name).write_text(FILE.replace("SLEEP_S", str(sleep_s)))
    where = tmp_path / "where.txt"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                        "--dist", dist, "tests"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env={"WHERE": str(where), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stdout + r.stderr
    seen = defaultdict(set)
    for line in where.read_text().splitlines():
        module, worker = line.split()
        seen[module].add(worker)
    return seen


def test_each_file_stays_on_one_worker_and_the_page_tests_share_it_with_the_cad(tmp_path):
    seen = workers_per_file(tmp_path, "loadscope")
    assert all(len(w) == 1 for w in seen.values()), seen
    assert seen["test_page"] == seen["test_cad"]


def test_planted_spread_test_by_test_splits_a_file_and_fails_the_check(tmp_path):
    seen = workers_per_file(tmp_path, "load")
    assert not all(len(w) == 1 for w in seen.values()), seen


def test_planted_split_by_file_alone_parts_the_page_tests_from_the_cad(tmp_path):
    seen = workers_per_file(tmp_path, "loadscope", conftest="")   # xdist's own scope: the file
    assert seen["test_page"] != seen["test_cad"], seen


def test_the_scopes():
    assert work_scope("tests/web/test_web_play.py::test_x[de]") == "web+cad"
    assert work_scope("tests/enclosure/test_circuit.py::test_y") == "web+cad"
    assert work_scope("tests/cli/test_deploy.py::test_z") == "tests/cli/test_deploy.py"
    vm = "tests/firmware/test_firmware_in_micropython.py"
    assert work_scope(f"{vm}::test_in_micropython[test_lights_idle::test_a]") == f"{vm}:test_lights_idle"
