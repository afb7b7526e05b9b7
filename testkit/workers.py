"""How `make test` splits the suite between its pytest-xdist workers (`--dist loadscope`, with the
scope chosen here): a test file's tests run together, in order, on one worker, so the boards and
pages a module shares are booted once and a test may start where the one before it left off.

The split is made on the controller from node ids alone. xdist's own `--dist loadgroup` marks each
test by rewriting its node id on the worker; pytest 9.2 keeps node ids elsewhere, so those marks
are silently dropped and a file's tests are spread over both workers (pytest-dev/pytest-xdist
issue 1386). tests/cli/test_workers.py runs a small suite both ways and shows the difference.

The longest scope is handed out first (tests/durations.json: each heavy scope's seconds in a
measured run; any other test counts LIGHT_TEST_S). xdist hands out the scope with the most tests
first, so a long file of few tests started last and ran alone at the end: the bench, one test of
90 s. Remeasure after a large change to the suite:
`pytest -n 3 --dist loadscope --junitxml=run.xml; python -m testkit.workers run.xml`."""

import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

# Heavy on the host and sensitive to it: the page tests (Chromium and a virtual board in step with
# it) and the CAD (ray tracing on every core). They share one scope, so they take turns on one
# worker instead of running beside each other.
ONE_WORKER = ("tests/web/", "tests/enclosure/")
# The firmware's own tests, each run inside the MicroPython VM: one scope per firmware test
# module (each worker boots its own VM), not one for the whole file.
IN_VM = "tests/firmware/test_firmware_in_micropython.py"
_VM_MODULE = re.compile(r"\[([^\]:]+)::")
DURATIONS = Path(__file__).resolve().parent.parent / "tests" / "durations.json"
HEAVY_S = 15        # a scope that took this long or longer is listed in DURATIONS
LIGHT_TEST_S = 0.33  # the mean of every other test in the run DURATIONS was made from


def work_scope(nodeid):
    """The unit of work a test belongs to: its file; or "web+cad"; or, for the firmware tests run
    in the VM, that file and the firmware test module."""
    path, _, rest = nodeid.partition("::")
    if path.startswith(ONE_WORKER):
        return "web+cad"
    if path == IN_VM:
        m = _VM_MODULE.search(rest)
        if m:
            return f"{path}:{m.group(1)}"
    return path


def expected_seconds(durations=DURATIONS):
    """{scope: seconds} of the heavy scopes, as measured; {} without the file."""
    try:
        return json.loads(Path(durations).read_text())["seconds"]
    except (OSError, ValueError, KeyError) as e:
        print(f"testkit.workers: {durations}: {e}; scopes go out by test count", file=sys.stderr)
        return {}


def longest(workqueue, seconds):
    """The scope of `workqueue` ({scope: {nodeid: done}}) expected to take longest."""
    return max(workqueue, key=lambda scope: seconds.get(scope, LIGHT_TEST_S * len(workqueue[scope])))


class BySubject(LoadScopeScheduling):
    """xdist's load-by-scope scheduler with `work_scope` as the scope, the longest handed out first."""

    seconds = None

    def _split_scope(self, nodeid):
        return work_scope(nodeid)

    def _assign_work_unit(self, node):
        if self.seconds is None:
            self.seconds = expected_seconds()
        self.workqueue.move_to_end(longest(self.workqueue, self.seconds), last=False)
        super()._assign_work_unit(node)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """The hook tests/conftest.py imports: `--dist loadscope` (make test) splits by `work_scope`."""
    if config.getvalue("dist") == "loadscope":
        return BySubject(config, log)
    return None


def measure(junit_xml):
    """{scope: seconds} of the scopes of HEAVY_S or more in a pytest --junitxml report."""
    per = defaultdict(float)
    for case in ET.parse(junit_xml).iter("testcase"):
        nodeid = case.get("classname").replace(".", "/") + ".py::" + case.get("name")
        per[work_scope(nodeid)] += float(case.get("time") or 0)
    return {s: round(t) for s, t in sorted(per.items(), key=lambda x: -x[1]) if t >= HEAVY_S}


if __name__ == "__main__":
    how = "pytest -n 3 --dist loadscope --junitxml=run.xml; python -m testkit.workers run.xml"
    DURATIONS.write_text(json.dumps({"how": how, "seconds": measure(sys.argv[1])}, indent=1) + "\n")
    print(f"wrote {DURATIONS}")
