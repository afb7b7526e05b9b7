"""Shared pytest fixtures and the suite's split into workers (testkit.workers). Each fixture family
lives in its own module of the test kit and is imported here, one line each, so pytest sees it
everywhere."""

import pytest

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401
from testkit.workers import BySubject


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadscope` (make test): a file's tests stay together on one worker, the page tests
    and the CAD share one, the VM's firmware tests go by firmware module (testkit.workers)."""
    if config.getvalue("dist") == "loadscope":
        return BySubject(config, log)
    return None

