"""Shared pytest fixtures and the suite's split into workers. Each fixture family lives in its own
module of the test kit and is imported here, one line each, so pytest sees it everywhere."""

import pytest

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401

# Heavy on the host and sensitive to it: the page tests (Chromium and a virtual board in step with
# it) and the CAD (ray tracing on every core). They share one worker, in turn, so neither runs
# beside the other.
ONE_WORKER = ("tests/web/", "tests/enclosure/")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """`make test` runs in workers (pytest-xdist, --dist loadgroup): a file's tests stay together
    on one worker, so the boards a module shares boot once; the firmware's tests inside the
    MicroPython VM go by firmware test module (each worker has its own VM); ONE_WORKER's files
    share one worker.

    A test on a virtual board or in a browser runs again once if it fails (pytest-rerunfailures;
    the summary counts each rerun): their boards live on the host's wall clock, so a host that
    stops them longer than a turn's timing can fail a test that passes alone. A real fault fails
    both runs."""
    for item in items:
        group = item.nodeid.split("::")[0]
        if group.startswith(ONE_WORKER):
            group = "web+cad"
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "test_id" in callspec.params and item.get_closest_marker("micropython"):
            group += ":" + callspec.params["test_id"].split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
        if item.get_closest_marker("board") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.flaky(reruns=1))
