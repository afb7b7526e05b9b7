"""Shared pytest fixtures. Each fixture family lives in its own module beside this file and is
imported here, one line each, so pytest sees it everywhere under tests/."""

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401
