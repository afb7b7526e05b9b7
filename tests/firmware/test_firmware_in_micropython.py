"""The firmware's own tests (firmware/tests), run again inside the real MicroPython VM against the
firmware compiled to .mpy, exactly as the board would load it. pytest runs the same functions on
CPython through normal collection; a failure here that passes there is a portability bug."""

import subprocess

import pytest

from testkit.micropython_vm import FIRMWARE, MPY_CROSS, firmware_test_ids


@pytest.mark.micropython
@pytest.mark.parametrize("test_id", firmware_test_ids(), ids=str)
def test_in_micropython(mpvm, test_id):
    module, function = test_id.split("::")
    mpvm.exec(f"import {module}\n{module}.{function}()")


@pytest.mark.parametrize("source", sorted(FIRMWARE.rglob("*.py")), ids=lambda p: str(p.relative_to(FIRMWARE)))
def test_compiles_with_mpy_cross(source, tmp_path):
    proc = subprocess.run([str(MPY_CROSS), "-o", str(tmp_path / "out.mpy"), str(source)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_vm_is_micropython_1_29(mpvm):
    out = mpvm.exec("import sys\nprint(sys.implementation.name, sys.implementation.version[:2])")
    assert out.strip() == "micropython (1, 29)"


def test_a_failure_inside_the_vm_is_reported(mpvm):
    # The harness must not swallow errors, or every test above could pass vacuously.
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        mpvm.exec("1 // 0")
