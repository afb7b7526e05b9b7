"""`nest test` as an API: the firmware's own tests (firmware/tests/test_*.py, plain functions with
bare asserts, the very ones pytest runs on the host) run ON THE BOARD.

    report = run_tests(port, tests_dir, pattern=None, timeout=30.0, say=print)

The tests, their helpers and the firmware (compiled to .mpy, as deployed) are synced into
/nest_test with the deploy's machinery (only what changed; its own record, so the firmware's
deploy is not disturbed). Each test runs in its own raw-REPL exec and reports one framed line:
MARKER + JSON. Anything else the test prints is kept as its output, never read as a result. A test
that does not finish within `timeout` seconds is interrupted, the board is soft-reset (a clean
heap) and the run goes on. At the end /nest_test, /scratch and the run's record are removed (unless
keep=True) and the board is soft-reset so that main.py runs again.
"""

import ast
import contextlib
import json
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import serial

from gulo.hx711 import DEFAULT_COUNTS_PER_G
from gulo.nestfault import NOISY_CG
from nest.boardlink import DEFAULT_BAUD, BoardLink
from nest.boardtrust import TEST_RESULT, checked_as, plain
from nest.deploy import FIRMWARE, _onboard, build, mpy_cross_version, sync
from nest.errors import NestError
from nest.weigh import rate_advice
from nest.words import plural

MARKER = "\x1enest-test\x1e"   # ASCII record separators: no test prints these by accident
TREE = "nest_test"

RUNNER = f"""
import sys, time, json, io
if '/{TREE}' not in sys.path:
    sys.path.insert(0, '/{TREE}')
def _nt(m, f):
    t = time.ticks_ms()
    r = {{'test': m + '::' + f, 'ok': True}}
    try:
        getattr(__import__(m), f)()
    except Exception as e:
        s = io.StringIO()
        sys.print_exception(e, s)
        r['ok'] = False
        r['error'] = s.getvalue()
    r['ms'] = time.ticks_diff(time.ticks_ms(), t)
    print({MARKER!r} + json.dumps(r))
"""


@dataclass
class Result:
    test: str
    ok: bool
    ms: int = 0
    error: str = ""
    output: str = ""
    skipped: bool = False   # a question nobody was there to answer (no terminal)

    @property
    def failure(self):
        """An assertion that did not hold (JUnit `failure`); any other exception, a timeout or a
        lost answer is an `error`, as pytest reports them."""
        lines = self.error.strip().splitlines()
        return bool(lines) and lines[-1].startswith("AssertionError")


@dataclass
class TestReport:
    results: list = field(default_factory=list)

    @property
    def passed(self):
        return sum(r.ok for r in self.results)

    @property
    def skipped(self):
        return sum(r.skipped for r in self.results)

    @property
    def failed(self):
        return len(self.results) - self.passed - self.skipped

    def line(self):
        return f"{self.passed} passed, {self.failed} failed" + (f", {self.skipped} skipped" if self.skipped
                                                                else "")


def collect(tests_dir, pattern=None, exclude=()):
    """`module::function` of every plain test function (found without importing): those whose id
    contains `pattern` (-k), none whose id contains one of `exclude` (--exclude)."""
    ids = []
    for path in sorted(Path(tests_dir).glob("test_*.py")):
        try:
            tree = ast.parse(path.read_text(), filename=str(path))
        except SyntaxError as e:
            raise NestError(f"{path}:{e.lineno}: {e.msg}", status=2) from None
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                test_id = f"{path.stem}::{node.name}"
                if (not pattern or pattern in test_id) and not any(x in test_id for x in exclude):
                    ids.append(test_id)
    return ids


# -- what the last run left: the failures (for --rerun-failed) and the board's test files --------
def lastfailed_path(tests_dir):
    """Where the failures of the last run of this test folder are kept (as pytest's cache keeps
    `lastfailed`): the user's cache, one file per test folder."""
    import hashlib

    import platformdirs

    key = hashlib.sha256(str(Path(tests_dir).resolve()).encode()).hexdigest()[:12]
    return Path(platformdirs.user_cache_dir("gulo-nest")) / "nest-test" / f"lastfailed-{key}.json"


def load_lastfailed(tests_dir):
    try:
        return json.loads(lastfailed_path(tests_dir).read_text())
    except (OSError, ValueError):
        return []


def save_lastfailed(tests_dir, report):
    path = lastfailed_path(tests_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([r.test for r in report.results if not r.ok]))


# What a run leaves on the board: the synced tests and firmware, their deploy record, and the
# folders scratch.py hands out. Removed after a run unless --keep.
LEFT_BEHIND = (f"/{TREE}", "/scratch", f"/.nest/{TREE}.json")
CLEANUP = f"""
import os
def _rm(p):
    try:
        st = os.stat(p)[0]
    except OSError:
        return
    if st & 0x4000:
        for e in os.ilistdir(p):
            _rm(p + '/' + e[0])
        os.rmdir(p)
    else:
        os.remove(p)
for _p in {LEFT_BEHIND!r}:
    _rm(_p)
"""


def test_files(tests_dir, firmware_dir):
    """{board path: bytes}: the firmware package(s) and every .py of tests_dir, all as .mpy."""
    files = {}
    for path, data in build(firmware_dir).items():
        if "/" in path:  # packages only: main.py and boot.py are not needed to test
            files[f"{TREE}/{path}"] = data
    for path, data in build_plain(tests_dir).items():
        files[f"{TREE}/{path}"] = data
    for path, data in simulated_world().items():
        files[f"{TREE}/{path}"] = data
    return files


def simulated_world():
    """{path: .mpy}: the simulated nest (nest.world) that the firmware's tests play on, as a package
    of its own so the tests import it as they do on the host."""
    from nest import world
    from nest.deploy import _compile, mpy_cross_path

    exe = mpy_cross_path()
    src = Path(world.__file__)
    return {"nest/__init__.mpy": _compile(src.with_name("__init__.py"), "nest/__init__.py", exe),
            "nest/world.mpy": _compile(src, "nest/world.py", exe)}


def build_plain(folder):
    """Every .py of one folder compiled to .mpy (no main.py needed, no boot prologue)."""
    from nest.deploy import _compile, mpy_cross_path

    exe = mpy_cross_path()
    return {src.with_suffix(".mpy").name: _compile(src, src.name, exe)
            for src in sorted(Path(folder).glob("*.py"))}


def _run_one(link, test_id, timeout):
    """(ok, ms, error, output) of one test; None when it timed out."""
    module, function = test_id.split("::")
    t = link.t
    t.exec_raw_no_follow(f"_nt({module!r}, {function!r})")
    data = t.read_until(1, b"\x04", timeout=None, timeout_overall=timeout)
    if not data.endswith(b"\x04"):
        return None
    err = t.read_until(1, b"\x04", timeout=5, timeout_overall=10)
    out = data[:-1].decode(errors="replace").replace("\r\n", "\n")
    found, stray = None, []
    for line in out.split("\n"):
        if line.startswith(MARKER):
            found = result_line(line[len(MARKER):])
        elif line:
            stray.append(line)
    if isinstance(found, str):
        return Result(test_id, False, 0, found, "\n".join(stray))
    if found is None:
        error = err[:-1].decode(errors="replace") or "no result line from the board"
        return Result(test_id, False, 0, error, "\n".join(stray))
    return Result(test_id, found["ok"], found.get("ms", 0), found.get("error", ""), "\n".join(stray))


def result_line(text):
    """The runner's result for one test (nest.boardtrust.TEST_RESULT), or what is wrong with the
    line (a str): the board printed it, and a broken or lying line is a failed test, not a crash."""
    try:
        return checked_as(TEST_RESULT, json.loads(text), "test result")
    except ValueError:
        return f"the board's result line is not JSON: {plain(repr(text[:200]))}"
    except NestError as e:
        return str(e)


@contextlib.contextmanager
def _main_again_on_ctrl_c(link, clean, say):
    """Ctrl-C on the host: the test on the board stopped, what the run put there removed (unless
    --keep) and the board soft-reset so main.py runs the game again; then the interrupt goes on."""
    try:
        yield
    except KeyboardInterrupt:
        say("interrupted: putting the board back")
        try:
            link.enter_raw()
            link.soft_reset_raw()
            if clean:  # a journal of this run's sync is finished first, so no boot brings it back
                link.exec(_onboard("commit.py") + "finish()\n" + CLEANUP, timeout=30)
                say(f"removed {', '.join(LEFT_BEHIND[:2])} from the board")
            link.soft_reset_to_main()
            say(f"the board is {link.watch_boot()}")
        except NestError as e:
            say(f"could not put the board back ({e}): run `nest reset`")
        raise


def _recover(link):
    """After a timeout: interrupt, soft-reset (clean heap), set the runner up again."""
    link.enter_raw()
    link.soft_reset_raw()
    link.exec(RUNNER)


def run_tests(port=None, tests_dir=FIRMWARE / "tests", *, firmware_dir=FIRMWARE,
              pattern=None, timeout=30.0, say=print, baud=DEFAULT_BAUD, reset=True, exclude=(),
              rerun_failed=False, keep=False):
    """Run the tests on the board. rerun_failed: only those that failed last time (all when none
    did); keep: leave /nest_test and /scratch on the board (the next run then sends only what
    changed)."""
    ids = collect(tests_dir, pattern, exclude)
    if rerun_failed:
        failed = set(load_lastfailed(tests_dir))
        if failed:
            ids = [i for i in ids if i in failed]
            say(f"rerunning the {plural(len(ids), 'test')} that failed last time")
        else:
            say("no failures recorded from the last run: running all")
    if not ids:
        raise NestError(f"no tests in {tests_dir}" + (f" match -k {pattern!r}" if pattern else "")
                        + (f" outside --exclude {' '.join(exclude)}" if exclude else ""), status=2)
    files = test_files(tests_dir, firmware_dir)
    want = mpy_cross_version()
    report = TestReport()
    with BoardLink.open(port, baud=baud) as link, _main_again_on_ctrl_c(link, not keep, say):
        link.enter_raw()
        link.soft_reset_raw()  # the game app's modules and heap out of the way
        sync(link, files, want, time.monotonic(), reset=False, tree=TREE)
        link.exec(RUNNER)
        for test_id in ids:
            try:
                result = _run_one(link, test_id, timeout)
            except (OSError, serial.SerialException) as e:
                raise NestError(f"lost the connection to the board on {link.port}: {e}") from None
            if result is None:
                result = Result(test_id, False, int(timeout * 1000),
                                f"timed out after {timeout:g} s: the board was reset")
                _recover(link)
            report.results.append(result)
            say(f"{'PASS' if result.ok else 'FAIL'} {test_id} ({result.ms} ms)")
            if not result.ok:  # the board's text: control characters shown, never obeyed
                say("    " + plain(result.error.strip(), newlines=True).replace("\n", "\n    "))
        if not keep:
            link.exec(CLEANUP, timeout=30)
            say(f"removed {', '.join(LEFT_BEHIND[:2])} from the board (--keep keeps them)")
        if reset:
            link.soft_reset_to_main()
    save_lastfailed(tests_dir, report)
    say(report.line())
    return report


def write_junit(report, path):
    bad = [r for r in report.results if not r.ok and not r.skipped]
    suite = ET.Element("testsuite", name="nest test (on the board)", tests=str(len(report.results)),
                       failures=str(sum(r.failure for r in bad)), errors=str(sum(not r.failure for r in bad)),
                       skipped=str(report.skipped), time=f"{sum(r.ms for r in report.results) / 1000:.3f}")
    for r in report.results:
        module, function = r.test.split("::")
        case = ET.SubElement(suite, "testcase", classname=module, name=function, time=f"{r.ms / 1000:.3f}")
        lines = r.error.strip().splitlines()
        if r.skipped:
            ET.SubElement(case, "skipped", message=lines[-1] if lines else "skipped")
        elif not r.ok:
            ET.SubElement(case, "failure" if r.failure else "error",
                          message=lines[-1] if lines else "failed").text = r.error
        if r.output:
            ET.SubElement(case, "system-out").text = r.output
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


# -- nest test --hardware ----------------------------------------------------------------------
# rms at rest above this: a loose wire, a noisy supply, a cell touching. The firmware's own noise
# fault (gulo.nestfault), so a nest that passes here does not show it in play; an uncalibrated
# scale reads within the cell's 15 % (firmware/HARDWARE.md).
QUIET_G = NOISY_CG / 100
COUNTS_PER_G = DEFAULT_COUNTS_PER_G  # the uncalibrated scale; only the noise figure depends on it

HW_SETUP = """
import time, json
from gulo.peripherals import Peripherals
_hw = Peripherals(time, time.ticks_ms())
"""
# The noise as the weigher learns it (gulo.weigher: the median |dx| between successive samples,
# 0.954 sigma for gaussian noise), so a read glitch or a slow drift does not count, and the figure
# is the one gulo.nestfault compares with its limit.
HX_CHECK = """
from gulo.hx711 import HX711Fault
try:
    _hw.hx.power_up()
    _s = [_hw.hx.read()]
    _t0 = time.ticks_ms()
    _s += [_hw.hx.read() for _ in range(40)]
    _dt = time.ticks_diff(time.ticks_ms(), _t0)
    _m = sum(_s) / len(_s)
    _d = sorted([abs(_s[i + 1] - _s[i]) for i in range(len(_s) - 1)])
    print(json.dumps({'ok': True, 'mean': _m, 'rms': _d[len(_d) // 2] / 0.954,
                      'sps': 40000 / _dt if _dt > 0 else 0}))
except HX711Fault as e:
    print(json.dumps({'ok': False, 'error': str(e)}))
"""
REED_WAIT = """
_t = time.ticks_ms()
while _hw.reed_pin.value() == {level} and time.ticks_diff(time.ticks_ms(), _t) < {ms}:
    time.sleep_ms(10)
print(json.dumps(_hw.reed_pin.value()))
"""


# The bring-up's stages (enclosure/ASSEMBLY.md, "Hardware bring-up, in stages"): what is wired at
# each, in order; `nest test --hardware --stage N` checks stages 1 to N only, so a part not wired
# yet is neither failed nor asked about. Stage 1 is the carrier and the DevKitC alone: the board
# answers and the app's drivers start.
STAGES = ("the carrier and the DevKitC", "the HX711 and the load cell", "the reed switch and the pole",
          "the level shifter and the LEDs", "the buzzer")


def hardware_check(port=None, *, ask=input, say=print, wait_s=30.0, baud=DEFAULT_BAUD, stage=None):
    """Self-test of the real peripherals; a TestReport (one result per check). Needs the firmware
    deployed (it drives them with gulo.peripherals, the app's own drivers). stage: check only what
    is wired at that bring-up stage (1 to len(STAGES); None: everything)."""
    stage = len(STAGES) if stage is None else stage
    if not 1 <= stage <= len(STAGES):
        raise NestError(f"--stage {stage}: the bring-up has stages 1 to {len(STAGES)}", status=2)
    report = TestReport()

    def record(name, ok, error=""):
        """ok None: the question had no answer (no terminal): skipped, not failed."""
        report.results.append(Result(f"hardware::{name}", bool(ok), 0, error, skipped=ok is None))
        word = "SKIP" if ok is None else "PASS" if ok else "FAIL"
        say(plain(f"{word} {name}" + (f": {error}" if error else "")))

    def yes(question):
        """True/False as answered, a typo asked again; None when nobody answers (stdin closed: no
        terminal, a script that did not plan the question)."""
        while True:
            answer = ask(f"{question} [y/n] ")
            if not answer:
                return None
            answer = answer.strip().lower()
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            say(f"  {answer!r}: answer y or n")

    checks = (_check_drivers, _check_hx711, _check_reed, _check_leds, _check_buzzer)[:stage]
    say(f"stage {stage}: checking {', '.join(STAGES[:stage])}"
        + (f" (not yet: {', '.join(STAGES[stage:])})" if stage < len(STAGES) else ""))
    with BoardLink.open(port, baud=baud) as link, _main_again_on_ctrl_c(link, False, say):
        link.enter_raw()
        link.soft_reset_raw()
        for check in checks:
            check(link, record, yes, say, wait_s)
        link.exec("_hw.deinit()")
        link.soft_reset_to_main()
    say(report.line())
    return report


def _check_drivers(link, record, yes, say, wait_s):
    link.exec(HW_SETUP)   # a BoardError (a driver raising) ends the check with its message
    record("drivers start", True)


def _check_hx711(link, record, yes, say, wait_s):
    hx = link.eval_json(HX_CHECK, timeout=20)
    if not hx["ok"]:
        record("hx711 answers", False, hx["error"])
        return
    record("hx711 answers", True)
    say(rate_advice(hx.get("sps")))   # measured: 86-94/s at "80 SPS", 10-12/s at "10 SPS"
    rms_g = hx["rms"] / COUNTS_PER_G
    record("hx711 quiet at rest", rms_g <= QUIET_G,
           "" if rms_g <= QUIET_G else f"{rms_g:.2f} g rms at rest (limit {QUIET_G} g)")


def _check_reed(link, record, yes, say, wait_s):
    seated = link.eval_json("print(json.dumps(_hw.reed_pin.value()))")
    if seated != 0:
        record("reed switch", False,
               "the reed reads open with the pole seated: seat the pole, check the wiring")
        return
    say(f"Lift the pole out of the nest (waiting {wait_s:g} s)...")
    lifted = link.eval_json(REED_WAIT.format(level=0, ms=int(wait_s * 1000)), timeout=wait_s + 10)
    if lifted != 1:
        record("reed switch", False, f"no change within {wait_s:g} s of lifting the pole")
        return
    say("Put the pole back...")
    back = link.eval_json(REED_WAIT.format(level=1, ms=int(wait_s * 1000)), timeout=wait_s + 10)
    record("reed switch", back == 0, "" if back == 0 else "the reed did not close again")


def _check_leds(link, record, yes, say, wait_s):
    link.exec("_hw.strip.fill((40, 40, 40))\n_hw.strip.write()")
    lit = yes("Are all LEDs lit white?")
    link.exec("_hw.strip.fill((0, 0, 0))\n_hw.strip.write()")
    record("leds", lit, "no answer (no terminal): look at them and run it again" if lit is None else "")


def _check_buzzer(link, record, yes, say, wait_s):
    link.exec("_hw.buzzer.freq(2000)\n_hw.buzzer.duty_u16(20000)")
    heard = yes("Do you hear the buzzer?")
    link.exec("_hw.buzzer.duty_u16(0)")
    record("buzzer", heard, "no answer (no terminal): listen and run it again" if heard is None else "")
