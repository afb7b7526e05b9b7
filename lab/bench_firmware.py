"""The firmware's budgets of issue 4, measured on the virtual board, each against its baseline.

    .venv/bin/python -m lab.bench --only firmware [--trials N]

One board (unthrottled line, so the figures are the firmware's and not the UART's) goes through:
1. bare, no main.py: hard reset to REPL prompt (k times) and its idle CPU share;
2. the firmware deployed as .mpy (mpy-cross 1.29, as `nest deploy` ships it), heap after boot (6.);
3. main.py deployed: hard reset to the firmware's `{"ev": "ready"}` (k times), its idle CPU share;
4. `trials` pole alarms during an attempt (the weigher sampling all along): the reed opening (world
   ground truth) to the firmware's write of the alarm siren to the buzzer PWM (the board logs each
   write with its world time) and to the first read-back of the red path flash on the LEDs;
5. `trials` HX711 unplugs: the fault switched on to the console's `{"ev": "fault"}` line and to the
   "nope" tone on the buzzer;
6. heap in use, measured as the heap test (tests/test_firmware_watchdog.py) and
   lab/heap_report.py do: the app built and every task started from the raw REPL, the VM's
   shims taken off; after boot on a fresh flash (step 2), then with the game of 4. resumed.

LED read-back times are upper bounds: the strip is polled on its own control connection (~1-3 ms
a round trip here) and the time taken is when the answer that shows it came back.

`run(trials)` returns the rows for lab/bench.py (rows with a "budget" also go to the issue-4
section).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import serial

from gulo import sounds
from gulo.board import LED_PATH_COUNT
from nest.appboard import install_main
from nest.vboard import VirtualBoard
from nest.vboard.control import ControlClient

ROOT = Path(__file__).resolve().parent.parent

from testkit.vboard_fixtures import HEAP_BOOT, compile_gulo, heap  # noqa: E402

MPREMOTE = Path(sys.executable).with_name("mpremote")
CMD = ".venv/bin/python -m lab.bench --only firmware"

ALARM_BUDGET_MS = 50
FAULT_BUDGET_MS = 1000
HEAP_BUDGET = 55_968  # the ESP32_GENERIC's first GC area (docs/firmware-budgets.md)
def cpu_s(pid):
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_share(board, seconds):
    c0, t0 = cpu_s(board.proc.pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_s(board.proc.pid) - c0) / (time.monotonic() - t0)


def mpremote(board, *args):
    try:
        proc = subprocess.run([str(MPREMOTE), "connect", board.port, *args], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired as e:
        with serial.Serial(board.port, 115200, timeout=0.5) as port:  # where is it stuck?
            port.write(b"\x03")
            time.sleep(1.0)
            seen = port.read(4000)
        raise RuntimeError(f"mpremote {' '.join(args)[:60]!r}...: no answer in 120 s (got {e.stdout!r}); "
                           f"after Ctrl-C: {seen[-1500:]!r}; board alive: {board.alive()}; its log: "
                           f"{board._log_tail()[-1800:]}") from e
    if proc.returncode != 0:
        raise RuntimeError(f"mpremote {' '.join(args)}: {proc.stdout}{proc.stderr}")
    return proc.stdout


class Lines:
    """The firmware's JSON lines with the host time (ms, the world's clock) each one arrived."""

    def __init__(self, port, board):
        self.port = port
        self.board = board
        self.buf = b""
        self.pending = []
        self.log = []  # every line, in order

    def wait(self, until, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while self.pending:
                t, ev = self.pending.pop(0)
                if until(ev):
                    return t, ev
            data = self.port.read(self.port.in_waiting or 1)
            now = self.board.world_ms()
            self.buf += data
            *lines, self.buf = self.buf.split(b"\n")
            for line in lines:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue  # the ROM boot lines, the banner
                if isinstance(ev, dict):
                    self.pending.append((now, ev))
                    self.log.append(ev)
        raise RuntimeError(f"firmware line not seen within {timeout} s")

    def send(self, **cmd):
        self.port.write((json.dumps(cmd) + "\n").encode())


class Watch:
    """Polls one read-back on its own control connection until `seen(answer)`; keeps the world
    time of the first answer that shows it (an upper bound of when the firmware wrote it)."""

    def __init__(self, board, op, seen):
        self.board, self.op, self.seen = board, op, seen
        self.t = None
        self.stop = threading.Event()
        self.client = ControlClient(board.control_address)
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self):
        try:
            while not self.stop.is_set():
                answer = self.client.request(self.op)
                if self.seen(answer):
                    self.t = self.board.world_ms()
                    return
                time.sleep(0.0005)
        finally:
            self.client.close()

    def result(self, timeout):
        self.thread.join(timeout)
        self.stop.set()
        self.thread.join()
        return self.t


def sounded(board, freq, since_ms, timeout):
    """World ms at which the firmware wrote `freq` Hz to the buzzer at `since_ms` or later, from
    the board's log of PWM writes (a poll can miss the 160 ms "nope" under load), or None."""
    end = time.monotonic() + timeout
    while True:
        t = board.control.sounded(freq, since_ms)
        if t is not None or time.monotonic() > end:
            return t
        time.sleep(0.02)


def _red_path(answer):
    # The alarm flash: every path LED pure red (face-down tiles are otherwise a warm glow).
    path = answer["leds"][:LED_PATH_COUNT - 4]
    return all(r > 0 and g == 0 and b == 0 for r, g, b in path)


def dist(values, unit="ms"):
    v = sorted(values)
    if not v:
        return "no value"
    p95 = v[max(0, -(-95 * len(v) // 100) - 1)]
    return (f"median {statistics.median(v):.0f} {unit}, p95 {p95:.0f}, max {v[-1]:.0f} (n={len(v)})",
            p95)


def row(figure, value, baseline, ratio, budget=None):
    r = {"section": "Firmware on the virtual board", "figure": figure, "value": value, "baseline": baseline,
         "ratio": ratio, "command": CMD}
    if budget:
        r["budget"] = budget
    return r


def latency_row(figure, values, what, budget_ms=ALARM_BUDGET_MS):
    """A latency distribution against its budget, its p95 in the budgets table."""
    text, p95 = dist(values)
    return row(figure, text, f"budget {budget_ms} ms", f"p95 {p95 / budget_ms:.2f}x",
               {"limit": f"<= {budget_ms} ms", "measured": p95, "max": budget_ms, "what": what})


def _reset_to(board, port, marker, timeout=20.0):
    """Hard reset (EN) to `marker` on the serial line; seconds."""
    port.reset_input_buffer()
    t0 = time.monotonic()
    board.control.reset()
    seen = b""
    end = t0 + timeout
    while marker not in seen.partition(b"rst:")[2]:  # after the ROM's boot lines: this boot's
        if time.monotonic() > end:
            raise RuntimeError(f"{marker!r} not seen after reset: {seen[-300:]!r}")
        seen += port.read(port.in_waiting or 1)
    return time.monotonic() - t0


def _pick(lines):
    return lines.wait(lambda ev: ev.get("ev") == "note" and ev["note"].get("phase") == "pick")


def esp32_clock(board):
    """The board's ESP32 clock counters ({"op": "timing"}), or {} with --timing host."""
    return board.control.request("timing").get("clock") or {}


def alarm_trials(board, lines, trials):
    """Pole knocked during an attempt: ms from the reed opening to the siren and the red flash,
    and the flash work the board's ESP32 clock was charged for each (the game log's rewrite)."""
    buzz, leds, flash = [], [], []
    lines.send(cmd="new", players=2, variant="standard", seed=11, id=1)
    _pick(lines)
    for i in range(trials):
        if i and i % 8 == 0:  # alarms keep everyone at the start; a fresh deal before tiles run out
            lines.send(cmd="new", players=2, variant="standard", seed=11 + i, id=1)
            _pick(lines)
        lines.send(cmd="press", button="reveal", id=2)
        lines.wait(lambda ev: ev.get("ev") == "action" and ev["action"] == {"do": "reveal"})
        time.sleep(0.3)  # the reveal's click tone is over
        wl = Watch(board, "leds", _red_path)
        c0 = esp32_clock(board)
        knock = board.control.knock_pole(in_ms=150)
        lines.wait(lambda ev: ev.get("ev") == "action" and ev["action"].get("do") == "alarm")
        t_buzz, t_leds = sounded(board, sounds.ALARM[0][0], knock["t_ms"], 3.0), wl.result(3.0)
        # The game log's line is appended by the writer task once the siren and the LEDs show the
        # alarm (at most gulo.app's _WRITE_WAIT_MS = 100 ms later, then the append: 45 ms typ. for
        # its block erase): wait for it, so the flash work is the alarm's write, not a window that
        # closed before it (the siren now comes before the console line: the window closed first).
        time.sleep(0.4)
        c1 = esp32_clock(board)
        if c0:
            f0, f1 = c0["flash"], c1["flash"]
            flash.append((f1["sectors"] - f0["sectors"], f1["pages"] - f0["pages"],
                          (c1["io_us"] - c0["io_us"]) / 1000))
        truth = [e for e in board.control.world()["truth"]
                 if e["what"] == "pole_out" and e["t_in"] == knock["t_ms"]]
        if t_buzz is None or t_leds is None or not truth:
            raise RuntimeError(f"alarm trial {i}: siren {t_buzz}, flash {t_leds}, truth {truth}")
        buzz.append(t_buzz - truth[0]["t_ms"])
        leds.append(t_leds - truth[0]["t_ms"])
        board.control.seat_pole()
        _pick(lines)
    return buzz, leds, flash


def _deck_changed(before):
    return lambda answer: answer["leds"] != before


def button_trials(board, lines, trials):
    """The reveal button pressed (its pin, through the firmware's IRQ and 20 ms debounce) at the
    start of a turn: ms from the press to the LEDs showing the revealed tile."""
    ms = []
    for i in range(trials):
        lines.send(cmd="new", players=2, variant="standard", seed=40 + i, id=1)
        _pick(lines)
        time.sleep(0.3)
        before = board.control.request("leds")["leds"]
        w = Watch(board, "leds", _deck_changed(before))
        t0 = board.world_ms()
        board.control.press("REVEAL")
        t = w.result(3.0)
        board.control.release("REVEAL")
        if t is None:
            raise RuntimeError(f"button trial {i}: the LEDs did not change")
        ms.append(t - t0)
        lines.wait(lambda ev: ev.get("ev") == "action" and ev["action"] == {"do": "reveal"})
    return ms


def fault_trials(board, lines, trials):
    """HX711 unplugged: ms to the console's fault line and to the fault tone."""
    line_ms, tone_ms = [], []
    first = len(lines.log)
    for i in range(trials):
        time.sleep(0.3)
        t0 = board.world_ms()
        board.control.fault("hx711_unplugged", True)
        t_line, _ = lines.wait(lambda ev: ev.get("ev") == "fault" and ev.get("what") == "hx711")
        t_tone = sounded(board, sounds.NOPE[0][0], t0, 3.0)
        if t_tone is None:
            raise RuntimeError(f"fault trial {i}: no fault tone")
        line_ms.append(t_line - t0)
        tone_ms.append(t_tone - t0)
        board.control.fault("hx711_unplugged", False)
        lines.wait(lambda ev: ev.get("ev") == "fault_cleared")
    # No verdict may come of it (an alarm would be an "action" line), and the fault is gone.
    lines.send(cmd="status", id=9)
    _, status = lines.wait(lambda ev: ev.get("re") == "status")
    actions = sum(1 for ev in lines.log[first:] if ev.get("ev") == "action")
    return line_ms, tone_ms, (status.get("fault"), actions)


def run(trials=20, boots=5, idle_s=10.0, timing="esp32"):
    rows = []
    with tempfile.TemporaryDirectory() as tmp, VirtualBoard(baud=0, timing=timing) as board:
        mpy = compile_gulo(tmp)  # as the heap test builds it
        with serial.Serial(board.port, 115200, timeout=0.05) as port:
            bare_boot = [_reset_to(board, port, b">>> ") for _ in range(boots)]
        time.sleep(0.5)
        bare_cpu = cpu_share(board, idle_s)

        mpremote(board, "fs", "cp", "-r", str(mpy), ":")
        # The heap test's measurement (tests/test_firmware_watchdog.py, lab/heap_report.py): the
        # app built and every task started, the VM's shims taken off. Fresh flash: a new game.
        shims = board.control.request("mem")["mem"]["shims"]
        heap_boot = heap(board, HEAP_BOOT) - shims
        install_main(board)  # as every board running the app gets it (nest.appboard)

        with serial.Serial(board.port, 115200, timeout=0.05) as port:
            fw_boot = [_reset_to(board, port, b'"ev": "ready"') for _ in range(boots)]
            lines = Lines(port, board)
            time.sleep(1.0)
            c0, t0 = esp32_clock(board), time.monotonic()
            fw_cpu = cpu_share(board, idle_s)
            c1, wall_us = esp32_clock(board), (time.monotonic() - t0) * 1e6
            busy = (sum(c1[k] - c0[k] for k in ("firmware_us", "shim_us", "io_us")) / wall_us) if c0 else None
            buzz, leds, flash = alarm_trials(board, lines, trials)
            button_ms = button_trials(board, lines, max(3, trials // 2))
            line_ms, tone_ms, left = fault_trials(board, lines, trials)
            # Ctrl-C stops the app; the game of the alarms stays on flash.
            port.write(b"\x03")
            lines.wait(lambda ev: ev.get("ev") == "stopped")
        # The same measurement with that game under way (resumed from flash, every task started):
        # taken from the REPL, since on this port a running app's mem_alloc() counts its garbage.
        heap_game = heap(board, HEAP_BOOT) - shims
    bb, fb = statistics.median(bare_boot) * 1000, statistics.median(fw_boot) * 1000
    rows.append(latency_row("pole leaves its seat -> alarm siren on the buzzer (PWM write, logged)", buzz,
                            "pole -> alarm sound (p95)"))
    rows.append(latency_row("pole leaves its seat -> red path flash (LED read-back)", leds,
                            "pole -> alarm LEDs (p95)"))
    if flash:
        sectors, pages, io_ms = (sorted(x) for x in zip(*flash))
        med = statistics.median
        times = "max" if timing == "esp32-worst" else "typ"
        rows.append(row("flash work of the game-log write on an alarm, on the ESP32 clock (littlefs "
                        f"pattern, W25Q32JV {times} times)", f"median {med(sectors):.0f} sectors erased, "
                        f"{med(pages):.0f} pages programmed = {med(io_ms):.0f} ms (max {io_ms[-1]:.0f} ms)",
                        # since issue 16 the writer appends after the siren and the LEDs: the write
                        # is reported beside the alarm's budget, not inside it
                        f"written after the siren and the LEDs (alarm budget {ALARM_BUDGET_MS} ms)",
                        f"{statistics.median(io_ms) / ALARM_BUDGET_MS:.2f}x the alarm budget",
                        {"limit": "reported (after the siren and the LEDs)", "max": None,
                         "measured": round(statistics.median(io_ms)),
                         "what": "game-log write on an alarm (ms of flash, median)"}))
    rows.append(latency_row("reveal button pressed -> LEDs show the tile (pin IRQ, 20 ms debounce; budget as "
                            "the pole's)", button_ms, "button -> LEDs (p95)"))
    text, p95 = dist(line_ms)
    rows.append(row("HX711 unplugged -> console fault line", text, f"budget {FAULT_BUDGET_MS} ms",
                    f"p95 {p95 / FAULT_BUDGET_MS:.2f}x",
                    {"limit": f"<= {FAULT_BUDGET_MS} ms", "measured": p95, "max": FAULT_BUDGET_MS,
                     "what": "HX711 unplugged -> fault shown (p95, console line)"}))
    text, p95 = dist(tone_ms)
    rows.append(row("HX711 unplugged -> fault tone on the buzzer", text, f"budget {FAULT_BUDGET_MS} ms",
                    f"p95 {p95 / FAULT_BUDGET_MS:.2f}x"))
    rows.append(row("HX711 unplugs: fault shown after the last replug; verdicts during the drill",
                    f"{left[0] or 'none'}; {left[1]} verdicts", "none; 0 verdicts",
                    "-" if left == (None, 0) else "FAILED"))
    rows.append(row("heap in use after boot (`gc.mem_alloc()` after `gc.collect()`, firmware as .mpy, "
                    "every task started, the VM's shims taken off)",
                    f"{heap_boot / 1024:.1f} KB", "budget 55,968 B", f"{heap_boot / HEAP_BUDGET:.2f}x",
                    {"limit": "<= 55,968 B (54.7 KB)", "measured": round(heap_boot / 1024, 1),
                     "max": HEAP_BUDGET / 1024, "what": "heap in use after boot (KB)"}))
    rows.append(row(f"heap in use during a game (the game of the {trials} alarms resumed, every task "
                    "started)", f"{heap_game / 1024:.1f} KB",
                    f"after boot, new game: {heap_boot / 1024:.1f} KB", f"{heap_game / heap_boot:.2f}x",
                    {"limit": "reported (issue 4 sets the limit after boot)",
                     "measured": round(heap_game / 1024, 1), "max": None,
                     "what": "heap in use during a game (KB)"}))
    rows.append(row("hard reset -> firmware ready", f"median {fb:.0f} ms (n={len(fw_boot)})",
                    f"bare VM reset -> REPL prompt: median {bb:.0f} ms", f"{fb / bb:.2f}x",
                    {"limit": "reported (no limit in issue 4)", "measured": round(fb), "max": None,
                     "what": "boot -> ready (ms, median)"}))
    rows.append(row("idle CPU of the firmware (node process, start of a game)",
                    f"{fw_cpu * 100:.1f} % of one core ({idle_s:.0f} s)",
                    f"bare VM at the REPL: {bare_cpu * 100:.1f} %",
                    f"{fw_cpu / bare_cpu:.0f}x" if bare_cpu > 0 else "bare VM at 0"))
    if busy is not None:
        rows.append(row("ESP32 CPU busy, firmware idle at the start of a game (weigher at 80 SPS), on the "
                        "board's ESP32 clock: bytecode x factor + machine calls + I/O, per second",
                        f"{busy * 100:.1f} % busy, {100 - busy * 100:.1f} % left idle ({idle_s:.0f} s)",
                        "-", "-", {"limit": "reported (CPU left idle at 80 SPS)", "max": None,
                                   "measured": round(100 - busy * 100, 1),
                                   "what": "ESP32 CPU left idle at 80 SPS (%)"}))
    return rows


if __name__ == "__main__":
    for r in run(trials=int(sys.argv[1]) if len(sys.argv) > 1 else 3, boots=2, idle_s=2.0):
        print(r)
