"""Shared pytest fixtures and the suite's split into workers (testkit.workers). Each fixture family
lives in its own module of the test kit and is imported here, one line each, so pytest sees it
everywhere."""

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401
from testkit.workers import pytest_xdist_make_scheduler  # noqa: F401
