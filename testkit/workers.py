"""How `make test` splits the suite between its pytest-xdist workers (`--dist loadscope`, with the
scope chosen here): a test file's tests run together, in order, on one worker, so the boards and
pages a module shares are booted once and a test may start where the one before it left off.

The split is made on the controller from node ids alone. xdist's own `--dist loadgroup` marks each
test by rewriting its node id on the worker; pytest 9.2 keeps node ids elsewhere, so those marks
are silently dropped and a file's tests are spread over both workers (pytest-dev/pytest-xdist
issue 1386). tests/cli/test_workers.py runs a small suite both ways and shows the difference."""

import re

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


class BySubject(LoadScopeScheduling):
    """xdist's load-by-scope scheduler with `work_scope` as the scope; the largest scopes go first."""

    def _split_scope(self, nodeid):
        return work_scope(nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """The hook tests/conftest.py imports: `--dist loadscope` (make test) splits by `work_scope`."""
    if config.getvalue("dist") == "loadscope":
        return BySubject(config, log)
    return None
