"""The test kit's Ctrl-C (testkit.nest_console_fixtures.interrupt), which the CLI tests end their
`nest` processes with: it must be able to fail, and say where a process that ignores it is stuck."""

import subprocess
import sys

import pytest

from testkit.nest_console_fixtures import NEST_ENV, interrupt


def test_a_process_that_ignores_ctrl_c_is_named_with_where_it_was_stuck():
    # a process that does not end fails the test with its stacks (faulthandler on SIGABRT); one
    # that does is let go
    stuck = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
             "print('up', flush=True)\ntime.sleep(30)\n")
    for code, ends in ((stuck, False), (stuck.replace("SIG_IGN", "SIG_DFL"), True)):
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=NEST_ENV)
        assert proc.stdout.readline() == "up\n"
        if ends:
            interrupt(proc, 5)
            assert proc.returncode == -2
            continue
        where = r"still running 1 s after Ctrl-C; where it was(.|\n)*File \"<string>\", line 4"
        with pytest.raises(AssertionError, match=where):
            interrupt(proc, 1)
        assert proc.poll() is not None


def test_a_process_a_test_starts_hears_ctrl_c_even_when_the_suite_was_started_in_the_background():
    # tests/conftest.py: `cmd &` in a script starts the suite with SIGINT ignored; its children
    # would inherit that (bit 2 of SigIgn in /proc/PID/status) and no Ctrl-C test could pass.
    code = "print(open('/proc/self/status').read().split('SigIgn:')[1].split()[0])"
    ignored = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout, 16)
    assert not ignored & (1 << (2 - 1)), f"SIGINT ignored in a child: SigIgn {ignored:#x}"
