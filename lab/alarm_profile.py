"""Where the alarm's time goes, on the virtual board's ESP32 clock (docs/firmware-budgets.md).

    PYTHONPATH=host_tools:firmware .venv/bin/python -m lab.alarm_profile [--trials 20] [--timing esp32]
        [--firmware DIR/firmware] [--raw FILE]

Boots the firmware (as .mpy, as lab/bench.py does) with lab/alarm_probe/alarm_probe.py wrapped
around it, runs lab/bench_firmware.py's pole alarms and reveal-button presses, then reads the
probe's events back over the raw REPL and prints, per stage, the median and p95 in ms of the board's
ESP32 clock (ticks_us):

  world edge -> IRQ     the reed's change in the world (its ground truth) to the IRQ handler (world ms)
  IRQ -> task wakes     the pole (buttons) task's first step after the IRQ
  ...-> confirmed       the debouncer's poll that confirms the change (its 20 ms of calm in it)
  ...-> flow done       TurnFlow.pole/button (the rules' work)
  ...-> siren PWM       the alarm tone's PWM write (pole alarms)
  ...-> LEDs written    the first LED write after the action
and the time other tasks ran, by task, between the IRQ and the last of those writes, the
collections (GC) in that span, and the console lines (emit) before the siren.
The probe's own bytecode is on the ESP32 clock too: figures are upper bounds (compare
lab/bench.py's, which has no probe).
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import serial

ROOT = Path(__file__).resolve().parent.parent

from lab import bench_firmware as bf  # noqa: E402
from nest.appboard import write_file  # noqa: E402
from nest.vboard import VirtualBoard  # noqa: E402
from testkit import vboard_fixtures  # noqa: E402

PROBE = ROOT / "lab" / "alarm_probe" / "alarm_probe.py"
MAIN = b"import alarm_probe\nalarm_probe.install()\nimport gulo.app\ngulo.app.run()\n"
TASKS = ("sampler", "pole", "buttons", "ticker", "lights", "sound", "console", "writer", "watchdog")
(IRQ_REED, IRQ_BUTTON, STEP_IN, STEP_OUT, POLL, HANDLE_IN, HANDLE_OUT, EMIT_IN, EMIT_OUT, PWM_FREQ,
 PWM_DUTY, SHOW_IN, SHOW_OUT, RENDER_IN, RENDER_OUT, FLOW_IN, FLOW_OUT, RECORD_IN, RECORD_OUT,
 GC_FREED, WORLD_MS) = range(1, 22)
ALARM_HZ = 1900  # gulo.sounds.ALARM's first note


def windows(events):
    """The events split at each IRQ: [(code, [events from it on])]."""
    out = []
    for e in events:
        if e[0] in (IRQ_REED, IRQ_BUTTON):
            out.append((e[0], [e]))
        elif out:
            out[-1][1].append(e)
    return out


def first(evs, pred, after):
    for e in evs:
        if e[2] >= after and pred(e):
            return e
    return None


def analyse(win, kind):
    """One IRQ's window -> {stage: ms} or None (not an alarm / a reveal)."""
    t0 = win[0][2]
    world = next((e[1] for e in win if e[0] == WORLD_MS), None)
    task = TASKS.index("pole" if kind == IRQ_REED else "buttons")
    wake = first(win, lambda e: e[0] == STEP_IN and e[1] == task, t0)
    which = 1 if kind == IRQ_REED else 2  # the probe's POLL arg: 10 x which + the result
    confirm = first(win, lambda e: e[0] == POLL and e[1] % 10 and e[1] // 10 == which, t0)
    if wake is None or confirm is None:
        return None
    flow_out = first(win, lambda e: e[0] == FLOW_OUT, confirm[2])
    handle_in = first(win, lambda e: e[0] == HANDLE_IN and e[1] > 0, confirm[2])
    if flow_out is None or handle_in is None:
        return None
    r = {"IRQ": 0.0, "task wakes": (wake[2] - t0) / 1000, "change confirmed": (confirm[2] - t0) / 1000,
         "flow done": (flow_out[2] - t0) / 1000, "handle called": (handle_in[2] - t0) / 1000}
    end = handle_in[2]
    handle_out = first(win, lambda e: e[0] == HANDLE_OUT, handle_in[2])
    if handle_out is not None:
        r["handle's own work (ms)"] = (handle_out[2] - handle_in[2]) / 1000
    if kind == IRQ_REED:
        pwm = first(win, lambda e: e[0] == PWM_FREQ and e[1] == ALARM_HZ, handle_in[2])
        if pwm is None:
            return None
        duty = first(win, lambda e: e[0] == PWM_DUTY and e[1] > 0, pwm[2])
        r["siren PWM"] = ((duty or pwm)[2] - t0) / 1000
        end = max(end, (duty or pwm)[2])
        w = next((e for e in win if e[0] == WORLD_MS and e[2] >= pwm[2]), None)
        if w is not None and world is not None:
            r["world: IRQ -> siren (world ms)"] = w[1] - world
        r["_world_irq"] = world
    show = first(win, lambda e: e[0] == SHOW_OUT, handle_in[2])
    if show is None:
        return None
    r["LEDs written"] = (show[2] - t0) / 1000
    end = max(end, show[2])
    # what else ran, IRQ -> the last output
    busy = {}
    start = {}
    for e in win:
        if e[2] > end:
            break
        if e[0] == STEP_IN:
            start[e[1]] = e[2]
        elif e[0] == STEP_OUT and e[1] in start:
            name = TASKS[e[1]] if e[1] < len(TASKS) else f"task{e[1]}"
            busy[name] = busy.get(name, 0) + (e[2] - start.pop(e[1])) / 1000
    for name, ms in busy.items():
        r[f"ran: {name}"] = ms
    r["GC runs"] = sum(1 for e in win if e[0] == GC_FREED and e[2] <= end)
    siren = r.get("siren PWM", 1e9) * 1000 + t0
    r["console lines before the siren" if kind == IRQ_REED else "console lines before the LEDs"] = sum(
        1 for e in win if e[0] == EMIT_IN and e[2] <= min(siren, show[2]))
    emits = [e for e in win if e[0] in (EMIT_IN, EMIT_OUT) and e[2] <= end]
    r["emit (JSON + UART) ms"] = sum((b[2] - a[2]) / 1000 for a, b in zip(emits[::2], emits[1::2]))
    recs = [e for e in win if e[0] in (RECORD_IN, RECORD_OUT) and e[2] <= end]
    r["store.record ms"] = sum((b[2] - a[2]) / 1000 for a, b in zip(recs[::2], recs[1::2]))
    renders = [e for e in win if e[0] in (RENDER_IN, RENDER_OUT) and e[2] <= end]
    r["render ms"] = sum((b[2] - a[2]) / 1000 for a, b in zip(renders[::2], renders[1::2]))
    shows = [e for e in win if e[0] in (SHOW_IN, SHOW_OUT) and e[2] <= end]
    r["show ms"] = sum((b[2] - a[2]) / 1000 for a, b in zip(shows[::2], shows[1::2]))
    return r


def p95(v):
    v = sorted(v)
    return v[max(0, -(-95 * len(v) // 100) - 1)]


def table(rows, title):
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys and not k.startswith("_")]
    print(f"\n{title} (n={len(rows)}), ms on the board's ESP32 clock from the IRQ unless said")
    print(f"{'stage':44} {'median':>8} {'p95':>8} {'max':>8}")
    for k in keys:
        v = [r.get(k, 0) for r in rows]
        print(f"{k:44} {statistics.median(v):8.1f} {p95(v):8.1f} {max(v):8.1f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--timing", default="esp32", choices=("esp32", "esp32-worst", "host"))
    ap.add_argument("--raw", help="also write the probe's events to this file")
    ap.add_argument("--firmware", type=Path, default=vboard_fixtures.FIRMWARE,
                    help="the firmware/ folder to profile (default: this checkout's)")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, VirtualBoard(baud=0, timing=a.timing) as board:
        vboard_fixtures.FIRMWARE = a.firmware  # compile_gulo compiles that folder's gulo/
        mpy = vboard_fixtures.compile_gulo(tmp)
        bf.mpremote(board, "fs", "cp", "-r", str(mpy), ":")
        bf.mpremote(board, "fs", "cp", str(PROBE), ":alarm_probe.py")
        write_file(board, "main.py", MAIN)
        with serial.Serial(board.port, 115200, timeout=0.05) as port:
            bf._reset_to(board, port, b'"ev": "ready"')
            lines = bf.Lines(port, board)
            time.sleep(1.0)
            print(f"{a.trials} pole alarms...", file=sys.stderr, flush=True)
            buzz, leds, _flash = bf.alarm_trials(board, lines, a.trials)
            print(f"{max(3, a.trials // 2)} reveal presses...", file=sys.stderr, flush=True)
            button_ms = bf.button_trials(board, lines, max(3, a.trials // 2))
            truth = [e["t_ms"] for e in board.control.world()["truth"] if e["what"] == "pole_out"]
            port.write(b"\x03")
            lines.wait(lambda ev: ev.get("ev") == "stopped")
        out = subprocess.run([str(bf.MPREMOTE), "connect", board.port, "resume", "exec",
                              "import alarm_probe; alarm_probe.dump()"], capture_output=True, text=True,
                             timeout=300, check=True).stdout
    if a.raw:
        Path(a.raw).write_text(out)
    events = [tuple(int(x) for x in ln.split()[1:]) for ln in out.splitlines() if ln.startswith("E ")]
    alarms, presses = [], []
    for kind, win in windows(events):
        r = analyse(win, kind)
        if r is None:
            continue
        if kind == IRQ_REED:
            w = r.get("_world_irq")
            edge = max((t for t in truth if w is not None and t <= w), default=None)
            if edge is not None:
                r["world: reed edge -> IRQ (world ms)"] = w - edge
            alarms.append(r)
        else:
            presses.append(r)
    med = statistics.median
    print(f"probe: {len(events)} events; bench read-back (world ms, probe on): pole -> siren median "
          f"{med(buzz):.0f} p95 {p95(buzz):.0f}; pole -> LEDs median {med(leds):.0f} p95 {p95(leds):.0f}; "
          f"reveal -> LEDs median {med(button_ms):.0f} p95 {p95(button_ms):.0f}")
    table(alarms, "pole alarms")
    table(presses, "reveal presses")


if __name__ == "__main__":
    main()
