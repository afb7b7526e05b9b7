"""`nest test` on the virtual board: the firmware's own tests run on the board, results framed so
stray prints are not results, a hanging test reset and the run going on, JUnit XML, exit status."""

import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nest.boardtest import collect, run_tests
from testkit.nest_console_fixtures import NEST_ENV, interrupt

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))
FIRMWARE_TESTS = Path(__file__).resolve().parents[2] / "firmware" / "tests"

FAKE_TESTS = '''
from gamekit import raises


def test_ok():
    assert 1 + 1 == 2


def test_fails():
    print("PASS test_fake::test_fails (0 ms)")
    assert [1, 2] == [1, 3], "lists differ"


def test_hangs():
    n = 0
    while True:
        n += 1


def test_after_the_hang():
    import gulo.rules  # noqa: F401  (the firmware is there again after the reset)
    assert raises(ZeroDivisionError, lambda: 1 // 0)
'''


def test_nest_test_runs_on_the_board(vboard, tmp_path):
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_fake.py").write_text(FAKE_TESTS)
    (folder / "gamekit.py").write_text((FIRMWARE_TESTS / "gamekit.py").read_text())
    junit = tmp_path / "out" / "junit.xml"
    r = subprocess.run([NEST, "test", "--port", vboard.port, "--tests", str(folder), "--timeout", "3",
                        "--junit", str(junit)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "2 passed, 2 failed"
    assert [x.split(" (")[0] for x in lines if x.startswith(("PASS", "FAIL"))] == [
        "PASS test_fake::test_ok", "FAIL test_fake::test_fails", "FAIL test_fake::test_hangs",
        "PASS test_fake::test_after_the_hang"]
    assert "AssertionError: lists differ" in r.stdout and "timed out after 3 s" in r.stdout

    suite = ET.parse(junit).getroot()
    # an assertion that did not hold is a failure; a timeout (or any other exception) an error
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["test_fails"].find("failure").get("message") == "AssertionError: lists differ"
    assert cases["test_hangs"].find("failure") is None
    assert cases["test_hangs"].find("error").get("message").startswith("timed out after 3 s")
    # The stray print that looks like a result line is kept as the test's output, nothing more.
    assert "PASS test_fake::test_fails" in cases["test_fails"].find("system-out").text
    assert cases["test_ok"].find("failure") is None

    # The firmware's real tests, selected with -k, on the same board; all must pass there too.
    said = []
    report = run_tests(vboard.port, FIRMWARE_TESTS, pattern="test_debounce", say=said.append)
    expected = collect(FIRMWARE_TESTS, "test_debounce")
    assert len(expected) >= 2 and [res.test for res in report.results] == expected
    assert report.failed == 0 and said[-1] == f"{len(expected)} passed, 0 failed"


def _hardware_check_answered_by_the_world(vboard, *options, typo="", terminal=True):
    """`nest test --hardware` on the virtual board, each prompt answered from what the board did
    (the buzzer answered "no" although it sounds; `typo` first, where given, to the LEDs'
    question); its output, its errors and its exit status."""
    from nest.deploy import deploy

    deploy(vboard.port, reset=False)  # the self-test drives the peripherals with the app's drivers
    proc = subprocess.Popen([NEST, "test", "--hardware", "--port", vboard.port, *options],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)
    out = []
    if not terminal:
        proc.stdin.close()  # nobody to answer the questions (run from a script, CI)
    try:
        for line in proc.stdout:
            out.append(line)
            if typo and line.startswith("Are all LEDs lit"):
                proc.stdin.write(typo + "\n")   # asked again: the real answer follows the repeat
                proc.stdin.flush()
                typo = ""
            elif line.startswith("Lift the pole"):
                vboard.control.knock_pole()
            elif line.startswith("Put the pole back"):
                vboard.control.seat_pole()
            elif not terminal:
                continue
            elif line.startswith("Are all LEDs lit"):
                lit = vboard.control.leds()  # what the firmware wrote to the strip
                proc.stdin.write("y\n" if lit and all(sum(c) > 0 for c in lit) else "n\n")
                proc.stdin.flush()
            elif line.startswith("Do you hear the buzzer"):
                heard = vboard.control.buzzer()["freq"] > 0 and vboard.control.buzzer()["duty_u16"] > 0
                # Answer "no" although it sounds: the "no" must come out as a failure.
                proc.stdin.write("n\n" if heard else "y\n")
                proc.stdin.flush()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    return "".join(out), proc.stderr.read(), proc.returncode


def test_nest_test_hardware_prompts_are_answered_by_the_world(vboard):
    text, err, rc = _hardware_check_answered_by_the_world(vboard, typo="t")
    assert "PASS drivers start" in text, text + err
    assert "PASS hx711 answers" in text and "PASS hx711 quiet at rest" in text, text + err
    assert "PASS reed switch" in text and "FAIL buzzer" in text
    # A typo is asked again, never taken for a "no".
    assert "'t': answer y or n" in text and "PASS leds" in text, text
    assert text.splitlines()[-1].endswith("5 passed, 1 failed") and rc == 1


def test_nest_test_hardware_stage_checks_only_what_is_wired(vboard):
    """Stage 2 of the bring-up: the HX711 and the cell wired, no reed, no LEDs, no buzzer. With the
    pole out of the nest (the reed open, as an unwired reed reads), stage 2 passes and asks
    nothing; stage 3 then fails the reed."""
    vboard.control.knock_pole()
    text, err, rc = _hardware_check_answered_by_the_world(vboard, "--stage", "2")
    assert rc == 0, text + err
    results = [ln for ln in text.splitlines() if ln.startswith(("PASS", "FAIL"))]
    assert results == ["PASS drivers start", "PASS hx711 answers", "PASS hx711 quiet at rest"], text
    assert "not yet: the reed switch and the pole" in text and "Are all LEDs" not in text
    text, err, rc = _hardware_check_answered_by_the_world(vboard, "--stage", "3")
    assert rc == 1 and "FAIL reed switch: the reed reads open" in text, text + err
    assert "Are all LEDs" not in text


def test_nest_test_stage_needs_hardware_and_a_stage_that_exists():
    # refused before any port is opened: no board needed
    r = subprocess.run([NEST, "test", "--stage", "2", "--port", "/nonexistent"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "nest: --stage N goes with --hardware" in r.stderr, r.stderr
    r = subprocess.run([NEST, "test", "--hardware", "--stage", "9", "--port", "/nonexistent"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invalid choice" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_nest_test_hardware_with_nobody_to_answer_skips_the_questions(vboard, tmp_path):
    junit = tmp_path / "hw.xml"
    text, err, rc = _hardware_check_answered_by_the_world(vboard, "--junit", str(junit), terminal=False)
    assert "SKIP leds: no answer (no terminal)" in text and "SKIP buzzer: no answer" in text, text + err
    assert text.splitlines()[-1].endswith("4 passed, 0 failed, 2 skipped") and rc == 0, text
    suite = ET.parse(junit).getroot()
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "2")


def test_nest_test_hardware_fails_a_noisy_cell(vboard):
    # The planted fault for the quiet check: the world's noisy cell (2 g rms and 3 g of 50 Hz
    # pickup, nest.world) against the 0.3 g limit, gulo.nestfault's own. Measured as the weigher
    # measures noise (median |dx| / 0.954), white noise of 2 g rms reads about 2 g.
    vboard.control.fault("noisy", True)
    text, err, rc = _hardware_check_answered_by_the_world(vboard)
    assert "PASS hx711 answers" in text, text + err
    line = next((ln for ln in text.splitlines() if "hx711 quiet at rest" in ln), "")
    assert line.startswith("FAIL hx711 quiet at rest: ") and "(limit 0.3 g)" in line, text
    assert 1.5 <= float(line.split(": ")[1].split(" g rms")[0]) <= 6.0, line
    assert text.splitlines()[-1].endswith("4 passed, 2 failed") and rc == 1


def test_ctrl_c_in_nest_test_puts_the_board_back(vboard, tmp_path):
    from nest.boardlink import BoardLink
    from nest.deploy import deploy

    deploy(vboard.port)  # the game on the board, to come back after the interrupted run
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_fake.py").write_text(FAKE_TESTS)
    (folder / "gamekit.py").write_text((FIRMWARE_TESTS / "gamekit.py").read_text())
    proc = subprocess.Popen([NEST, "test", "--port", vboard.port, "--tests", str(folder), "--timeout", "60",
                             "--exclude", "test_fails", "--exclude", "after"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=NEST_ENV)
    try:
        first = proc.stdout.readline()
        assert first.startswith("PASS test_fake::test_ok"), first + proc.stderr.read()
        time.sleep(1)  # test_hangs is running on the board now
        out, err = interrupt(proc, 50)   # within the test's own 60 s timeout
    finally:
        proc.kill()
    assert proc.returncode == 130 and err.strip() == "nest: interrupted", (proc.returncode, err, out)
    assert "removed /nest_test, /scratch from the board" in out and "the board is ready" in out, out
    with BoardLink.open(vboard.port) as link:
        link.enter_raw()
        left = link.eval_json("import os, json\nprint(json.dumps([os.listdir('/'), os.listdir('/.nest')]))")
    assert "nest_test" not in left[0] and "nest_test.json" not in left[1], left
