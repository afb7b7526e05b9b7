"""The suite's split between workers (testkit.workers): a small suite of three files, run in two
workers as `make test` runs them, keeps each file on one worker and the page tests with the CAD;
the same suite spread test by test (what xdist's `loadgroup` marks amount to on pytest 9.2,
pytest-dev/pytest-xdist issue 1386) splits a file, and the same suite split by file alone (xdist's
own `loadscope`) puts the page tests on another worker than the CAD: each check fails there. The
longest scope goes out first: a file of one long test, listed in tests/durations.json, is the first
its worker runs, and is not when the scopes go out by test count, as xdist orders them."""

import subprocess
import sys
from collections import defaultdict

from testkit.workers import LIGHT_TEST_S, expected_seconds, longest, work_scope

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


# xdist's own order of handing out scopes (the most tests first), kept with the suite's scopes
BY_COUNT = """from xdist.scheduler import LoadScopeScheduling
from testkit.workers import BySubject

class ByCount(BySubject):
    _assign_work_unit = LoadScopeScheduling._assign_work_unit

def pytest_xdist_make_scheduler(config, log):
    return ByCount(config, log)
"""


def runs(tmp_path, dist, conftest=CONFTEST):
    """The small suite in two workers: [(module, worker)] in the order the tests ran."""
    for sub in ("tests/web", "tests/enclosure", "tests/cli", "tests/lab"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests/conftest.py").write_text(conftest)
    # the CAD slow and the tool quick: spread by file alone, the page tests would go to the
    # worker the quick tool frees first, not to the CAD's
    for name, sleep_s in (("tests/web/test_page.py", 0.05), ("tests/enclosure/test_cad.py", 0.3),
                          ("tests/cli/test_tool.py", 0.01)):
        (tmp_path / name).write_text(FILE.replace("SLEEP_S", str(sleep_s)))
    # one long test, in a file tests/durations.json lists as long
    (tmp_path / "tests/lab/test_bench.py").write_text(
        FILE.replace("SLEEP_S", "0.1").replace("range(6)", "range(1)"))
    where = tmp_path / "where.txt"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                        "--dist", dist, "tests"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env={"WHERE": str(where), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stdout + r.stderr
    return [tuple(line.split()) for line in where.read_text().splitlines()]


def workers_per_file(tmp_path, dist, conftest=CONFTEST):
    seen = defaultdict(set)
    for module, worker in runs(tmp_path, dist, conftest):
        seen[module].add(worker)
    return seen


def first_on_its_worker(tmp_path, module, conftest):
    order = runs(tmp_path, "loadscope", conftest)
    worker = next(w for m, w in order if m == module)
    return next(m for m, w in order if w == worker) == module


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


def test_the_longest_scope_goes_first(tmp_path):
    assert "tests/lab/test_bench.py" in expected_seconds()
    assert first_on_its_worker(tmp_path, "test_bench", CONFTEST)


def test_planted_scopes_by_test_count_start_the_long_test_late(tmp_path):
    assert not first_on_its_worker(tmp_path, "test_bench", BY_COUNT)


def test_longest_uses_the_measured_seconds_else_the_test_count():
    queue = {"a.py": dict.fromkeys(range(10)), "b.py": dict.fromkeys(range(3)), "c.py": {1: 0}}
    assert longest(queue, {}) == "a.py"
    assert longest(queue, {"c.py": 10 * LIGHT_TEST_S + 1}) == "c.py"


def test_a_missing_durations_file_is_said_and_counts_nothing(tmp_path, capsys):
    assert expected_seconds(tmp_path / "durations.json") == {}
    assert "durations.json" in capsys.readouterr().err
