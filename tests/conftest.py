"""Shared pytest fixtures. Each fixture family lives in its own module beside this file and is
imported here, one line each, so pytest sees it everywhere under tests/."""

from nest_console_fixtures import nest_board  # noqa: F401
from vboard_fixtures import vboard, vboard_factory  # noqa: F401

from micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
