"""Shared pytest fixtures and the suite's split into workers. Each fixture family lives in its own
module of the test kit and is imported here, one line each, so pytest sees it everywhere."""

import pytest

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """`make test` runs in workers (pytest-xdist, --dist loadgroup): a file's tests stay together
    on one worker, so the boards a module shares boot once, except the firmware's tests run inside
    the MicroPython VM, which go by firmware test module (each worker has its own VM)."""
    for item in items:
        group = item.nodeid.split("::")[0]
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "test_id" in callspec.params and item.get_closest_marker("micropython"):
            group += ":" + callspec.params["test_id"].split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
