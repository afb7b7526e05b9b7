"""Planted fault for firmware/tests/test_weigher_stall.py (a stalling board neither re-sizes the
weigher's window nor holds off the long calm): the shipped gulo/weigher.py with the rate
tracker's skip of one odd span taken out (as it was before) must fail the check the shipped one
passes. A constant cannot plant it."""

from test_weigh_sums import planted

from testkit.weigher_versions import firmware_tests

SHIPPED = "            if d > 2 * p or (span > 1 and (5 * d > 6 * p or 6 * d < 5 * p)):\n"


def test_the_stall_check_fails_when_a_steady_span_off_by_a_stall_is_followed(tmp_path):
    cases = firmware_tests("test_weigher_stall")
    assert cases.stall_failures() == []
    failing = cases.stall_failures(planted(tmp_path, SHIPPED, "            if d > 2 * p:\n"))
    # the 200 ms stalls at the 80 SPS setting: the window went to 7 samples and back (widths
    # [8, 7]); a 45 ms stall is under the 20 % a window is kept for, a 400 ms one over twice a
    # span (a gap), and at 10 SPS the window is at its least, 3 samples, either way
    assert failing and all(c[0][0] > 50 and c[0][1] == 200 for c in failing), failing
