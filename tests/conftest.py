"""Shared pytest fixtures and the suite's split into workers (testkit.workers). Each fixture family
lives in its own module of the test kit and is imported here, one line each, so pytest sees it
everywhere."""

import signal

from testkit.micropython_vm import mpvm, pytest_terminal_summary  # noqa: F401
from testkit.nest_console_fixtures import nest_board  # noqa: F401
from testkit.vboard_fixtures import vboard, vboard_factory  # noqa: F401
from testkit.workers import pytest_xdist_make_scheduler  # noqa: F401

# A suite started in the background (`bash .ci/run &` from a script) inherits SIGINT ignored
# (POSIX: a non-interactive shell's asynchronous commands), and so would every `nest` a test
# starts, so the tests of Ctrl-C would hang: an ignored signal stays ignored across exec, a handled
# one is the default again (tests/cli/test_interrupt_helper.py).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
