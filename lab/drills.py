"""Fault drills on the virtual board (issue 8): `make drills`, or
    .venv/bin/python -m lab.drills [--cuts 200] [--lines 10000] [--deploys 50] [--aimed 40]
                                     [--fuzz 2000] [--seed 1] [--jobs 2] [--out docs/reliability.md]
                                     [--small] [--timing host|esp32|esp32-worst]
    .venv/bin/python -m lab.drills --only aimed [--aimed 40] [--seed 1]   (that drill's row alone)
Each drill runs the nest firmware on a fresh virtual board (testkit.boardkit, the same code as
the e2e tests) and the results are written to docs/reliability.md with counts, command and date.
The power cuts are split over `--jobs` boards run side by side (each its own process, seed and
game); the other drills share one more process. `--timing` is the speed of the boards that take the
power cuts and the console lines (default host: the VM's own speed; esp32: the ESP32's bytecode and
flash timing, docs/virtual-board.md, so a save takes as long as on the board and more cuts land in
one)."""

import argparse
import concurrent.futures
import datetime
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from testkit.boardkit import (
    booted_nest,
    cut_and_check,
    deploy_board,
    deploy_cut_and_check,
    fuzz_console,
    sensor_faults,
)

ROOT = Path(__file__).resolve().parent.parent

from testkit import hostile_board  # noqa: E402
from testkit.fuzz_kit import fuzz_replay, fuzz_web  # noqa: E402
from testkit.web_kit import slow_clients  # noqa: E402

FLASH_OPS = ("open", "write", "close", "rename")
# aimed in turn: the flash operations of three appends to the game log (open, write, close each;
# issue 16) and the next one's open, or of two whole-file saves (open, 2 writes, close, rename)
SAVE_OPS = 10


def drill_power_cuts(nest, n, seed, aimed=False):
    """`n` power cuts during play: at random instants, or (aimed) before the 1st, 2nd, ... 10th
    flash operation from then on, in turn, so every operation of a save is hit. Either way the
    resumed game goes on (never refilled, never restarted; the nest as it was, or set as the game
    says after a lost action: testkit.boardkit.nest_as_the_game_says); after an aimed cut it must
    reach its next verdict before the next cut is armed (finding 6 of docs/reliability.md: it once
    did not), else the drill fails."""
    rng = random.Random(seed)
    tot = {"reported": 0, "in_flight_kept": 0, "in_flight_lost": 0, "new_games": 0, "files": 0,
           "put_back": 0, "taken_out": 0, "resumed": 0, "recovered": 0, "cuts_in_write": 0, "torn": 0,
           "verdicts": 0}
    tot.update({f"at_{k}": 0 for k in FLASH_OPS})
    for i in range(n):
        r = cut_and_check(nest, rng, seed=seed * 10000 + i, at_op=1 + i % SAVE_OPS if aimed else None)
        # a .tmp left behind (a whole file's write) or a file open for writing torn back (an
        # append to the game log, issue 16): the cut hit a write
        r["cuts_in_write"] = int(r["recovered"] > 0 or r["torn"] > 0)
        if r["cut_op"]:
            r[f"at_{r['cut_op']}"] = 1
        for k in tot:
            tot[k] += int(r.get(k, 0))
        if aimed:
            # the resumed game's next verdict: a take or an alarm (or a fast game's Gulo junior)
            done = nest.play_to_verdict()
            if not any(a["do"] in ("take", "alarm") for a in done) and nest.game.winner is None:
                raise AssertionError(f"cut {i + 1}: the resumed game reached no verdict: {done}")
            tot["verdicts"] += 1
        if (i + 1) % 20 == 0:
            print(f"  seed {seed}: {i + 1} cuts", flush=True)
    return tot


def power_cuts_detail(parts):
    tot = {k: sum(p[k] for p in parts) for k in parts[0]}
    n = sum(p["n"] for p in parts)
    return (f"{n} cuts over {len(parts)} boards; COVERAGE: {tot['cuts_in_write']} cuts landed inside a "
            f"write (a .tmp left behind, or a file open for writing torn back), {tot['recovered']} "
            f"recovered at boot (.tmp files, torn log lines), "
            f"{tot['in_flight_kept']} actions in flight kept (logged, never reported), "
            f"{tot['in_flight_lost']} cuts lost the action in flight ({tot['put_back']} eggs put back by "
            f"hand, {tot['taken_out']} taken out again after a pour-back the lost verdict had asked "
            f"for); {tot['resumed']} resumed a game, which went on (never "
            f"refilled, never restarted); {tot['reported']} actions reported before the cuts, all found "
            f"in the resumed logs but the action in flight; {tot['new_games']} games started (the first "
            f"on each board, then "
            f"after wins); {tot['files']} file reads of /data (every file after every cut, firmware "
            "readers): 0 damaged, 0 storage faults (from the cut on, the boot's own lines included)")


def aimed_cuts_detail(tot, n):
    at = ", ".join(f"{tot['at_' + k]} before a {k}" for k in FLASH_OPS)
    return (f"{n} cuts aimed at the flash operations of the next writes in turn ({at}), the flash "
            f"keeping what littlefs keeps (files open for writing reverted to their content at open: "
            f"{tot['torn']} torn); COVERAGE: {tot['cuts_in_write']} cuts inside a write, "
            f"{tot['recovered']} recovered at boot (.tmp files, torn log lines), "
            f"{tot['in_flight_kept']} actions in flight kept, {tot['in_flight_lost']} cuts lost the "
            f"action in flight ({tot['put_back']} eggs put back by hand, {tot['taken_out']} taken out "
            f"again after a pour-back the lost verdict had asked for); {tot['reported']} actions "
            f"reported before the cuts, all in the resumed logs but the action in flight; "
            f"{tot['files']} file reads of /data: 0 damaged, 0 storage faults; {tot['resumed']} "
            f"resumed a game, which went on (never refilled, never restarted) and reached its next "
            f"verdict in {tot['verdicts']} of {n} (finding 6); "
            f"{tot['new_games']} games started (the first, then after wins)")


def drill_deploys(n, seed, folder):
    rng = random.Random(seed)
    seen = {"close": 0, "power": 0, "bytes": 0, "step": 0, "old": 0, "new": 0, "not_fired": 0, "last": 0}
    with deploy_board(folder) as (board, trees):
        held = "A"
        for i in range(n):
            target = "B" if held == "A" else "A"
            r = deploy_cut_and_check(board, trees, rng, target)
            held = target
            if not r["fired"]:   # the deploy ran to the end uncut: checked, but not a cut
                seen["not_fired"] += 1
                continue
            seen["last"] += int(r["where"].startswith("bytes:") and r["at_end"])
            seen[r["how"]] += 1
            seen[r["where"].split(":")[0]] += 1
            seen["new" if r["after_cut"] == target else "old"] += 1
            if (i + 1) % 10 == 0:
                print(f"  {i + 1} deploy cuts", flush=True)
    fired = n - seen["not_fired"]
    return (f"{n} deploys of the real firmware (two trees differing in every file), {fired} cut (a cut "
            f"that never fired is not counted: {seen['not_fired']}): "
            f"{seen['bytes']} at a random byte offset of the transfer ({seen['last']} at its last byte), "
            f"{seen['step']} at a random "
            f"on_step point; {seen['close']} by closing the port, {seen['power']} by a power cut; the "
            f"board booted to `ready` every time holding one tree whole ({seen['old']} old, "
            f"{seen['new']} new, 0 mixed: every deployed file hashed), and the next deploy completed "
            "every time (ready, the new tree whole)")


def drill_fuzz(nest, n, seed):
    nest.new(2, "standard", 4)
    nest.play_turn("roll")
    nest.pick("reveal")
    stats = fuzz_console(nest, random.Random(seed), n)
    nest.take(nest.game.demand, "roll")
    nest.check_log("current")
    return (f"{stats['sent']} lines, {stats['ok']} answered, {stats['refused']} refused, every one "
            "answered in order; state, phase and log unchanged; play went on")


def drill_not_utf8(nest):
    nest.port.write(b'{"cmd": "st\xbbatus"}\n')
    ans = nest.ask("status", timeout=5)
    return f"answered: {ans['ok']}"


def drill_sensors(nest):
    seen = sensor_faults(nest)
    return ("HX711 unplugged mid-attempt: fault shown, cleared when replugged; 3 s noisy cell: no "
            f"verdict; then the attempt judged normally ({seen['after']}); reed stuck open between "
            "turns: pole asked for, no penalty, play resumed")


def drill_fuzz_web(folder, n, seed):
    stats = fuzz_web(folder, random.Random(seed), n)
    return (f"{stats['sent']} fuzzed page messages to a fresh nest web on 127.0.0.1 (garbage text, "
            f"non-objects, deep nesting, bad buttons/colours/hands/chances, bad new-game fields, unknown "
            f"ops, oversized): {stats['refused']} refused with a reason, {stats['too_big']} over 4 KB closed "
            "with 1009 (message too big) and reconnected; the game log unchanged")


def drill_fuzz_replay(folder, n, seed):
    stats = fuzz_replay(folder, random.Random(seed), n)
    return (f"{stats['logs']} mangled game logs (deep nesting, random bytes, truncation, wrong types, "
            f"huge numbers, endless lines, swapped lines, CRLF, non-UTF-8): {stats['replayed']} replayed, "
            f"{stats['refused']} refused as FILE:LINE: reason, 0 other outcomes; {stats['cli']} of them "
            "also through `nest replay` (exit 0 or 2, no traceback)")


def drill_hostile(folder):
    n = hostile_board.drill(folder)
    return (f"{n['lies']} lies of a board (testkit.hostile_board: a /data listing naming paths out of it, "
            "event and answer shapes that are not their kind's, escape sequences in every string, a "
            "version record that is a string, broken test result lines) against nest flash's backup, "
            f"monitor, diag, ports and test: {n['refused']} refused with a clear error, {n['shown']} "
            f"shown (as malformed, or with their control characters escaped); {n['written_out']} files "
            f"written out of the backup folder, {n['control_chars']} control characters to the terminal, "
            "0 tracebacks")


def drill_slow_clients(folder):
    r = slow_clients(folder)
    if not (r["served"] and r["cut_after_s"] is not None and r["http_closed"] == r["control_closed"]
            == r["connections"]):
        raise AssertionError(f"a slow client was not bounded: {r}")
    return (f"nest web: a page that never reads ({r['sent']} requests sent, no answer read) cut after "
            f"{r['cut_after_s']:.1f} s, nest web's memory {r['rss_mb']:.0f} MB before, "
            f"{r['rss_after_mb']:.0f} MB after; {r['connections']} half-open HTTP connections: "
            f"{r['http_at_once']} cut at once (cap {r['http_cap']}), all closed within "
            f"{r['http_last_s']:.0f} s (header timeout {r['header_s']:.0f} s), the page served after; "
            f"the control channel: {r['connections']} idle connections without a token, "
            f"{r['control_at_once']} cut at once (cap {r['control_cap']}), all closed within "
            f"{r['control_last_s']:.0f} s (first-line timeout {r['first_line_s']:.0f} s)")


HOSTILE = "a board that lies, to the host tools"
SLOW = "slow and idle clients of nest web and the control channel"


def run(name, fn, *args):
    t = time.monotonic()
    print(f"{name} ...", flush=True)
    try:
        detail, ok = fn(*args), "pass"
    except Exception as e:  # noqa: BLE001  (a failed drill is a result to write down)
        traceback.print_exc()
        detail, ok = f"{type(e).__name__}: {str(e)[:300]}", "FAIL"
    secs = time.monotonic() - t
    print(f"{name}: {ok} ({secs:.0f} s) {detail}", flush=True)
    return {"name": name, "ok": ok, "detail": detail, "secs": secs}


def on_board(folder, fn, *args):
    # The timing travels in the environment: the jobs are processes of their own.
    timing = os.environ.get("NEST_DRILL_TIMING", "host")
    with booted_nest(folder / "flash", log_path=folder / "vboard.log", timing=timing) as nest:
        return fn(nest, *args)


def job_cuts(folder, n, seed):
    r = run(f"power cuts (seed {seed})", on_board, folder, drill_power_cuts, n, seed)
    if r["ok"] == "pass":
        r["detail"]["n"] = n
    return r


def job_aimed(folder, n, seed):
    r = run(f"power cuts aimed at each flash operation in turn, {n} times", on_board, folder,
            drill_power_cuts, n, seed, True)
    if r["ok"] == "pass":
        r["detail"] = aimed_cuts_detail(r["detail"], n)
    return r


def job_rest(folder, lines, deploys, seed, aimed, fuzz):
    return [
        job_aimed(folder / "aimed", aimed, seed),
        run(f"fuzzed WebSocket messages to the play page, {fuzz}", drill_fuzz_web, folder / "web", fuzz,
            seed),
        run(f"fuzzed game logs for nest replay, {fuzz}", drill_fuzz_replay, folder / "replay", fuzz, seed),
        run("random and malformed console lines (raw bytes, non-UTF-8 included)", on_board,
            folder / "fuzz", drill_fuzz, lines, seed),
        run("console bytes that are not UTF-8", on_board, folder / "utf8", drill_not_utf8),
        run("HX711 unplugged/replugged, noisy cell, reed stuck", on_board, folder / "sensors", drill_sensors),
        run(f"a deploy cut at random points, {deploys} times", drill_deploys, deploys, seed,
            folder / "deploy"),
        run(HOSTILE, drill_hostile, folder / "hostile"),
        run(SLOW, drill_slow_clients, folder / "slow"),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cuts", type=int, default=200)
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--deploys", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--aimed", type=int, default=40, help="power cuts aimed at flash operations")
    ap.add_argument("--fuzz", type=int, default=2000, help="fuzzed page messages, and game logs")
    ap.add_argument("--jobs", type=int, default=2, help="boards taking the power cuts side by side")
    ap.add_argument("--small", action="store_true",
                    help="a quick run for development: 10 cuts, 500 lines, 4 deploys, 10 aimed cuts, "
                         "200 fuzzed messages and logs")
    ap.add_argument("--out", default=str(ROOT / "docs" / "reliability.md"))
    ap.add_argument("--timing", choices=("host", "esp32", "esp32-worst"), default="host",
                    help="the boards' speed (docs/virtual-board.md); default host")
    ap.add_argument("--only", choices=("aimed", "hostile", "slow"),
                    help="run this drill alone (aimed: the aimed power cuts, --aimed of them; hostile: "
                         "a board that lies; slow: slow and idle clients) and rewrite only its row of "
                         "the table in --out")
    args = ap.parse_args()
    os.environ["NEST_DRILL_TIMING"] = args.timing
    if args.only == "aimed":
        return only_aimed(args)
    if args.only:
        return only_one(args)
    if args.small:
        args.cuts, args.lines, args.deploys, args.aimed, args.fuzz = 10, 500, 4, 10, 200
    sizes = (args.cuts, args.lines, args.deploys, args.aimed, args.fuzz, args.seed, args.jobs)
    default = sizes == (200, 10000, 50, 40, 2000, 1, 2) and args.timing == "host"
    cmd = "make drills" if default else ".venv/bin/python -m lab.drills --small" if args.small else (
        f".venv/bin/python -m lab.drills --cuts {args.cuts} --lines {args.lines} "
        f"--deploys {args.deploys} --aimed {args.aimed} --fuzz {args.fuzz} --seed {args.seed} "
        f"--jobs {args.jobs}")
    if args.timing != "host":
        cmd += f" --timing {args.timing}"
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="drills-") as tmp:
        tmp = Path(tmp)
        jobs = max(1, args.jobs)
        shares = [args.cuts // jobs + (1 if k < args.cuts % jobs else 0) for k in range(jobs)]
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs + 1) as pool:
            rest = pool.submit(job_rest, tmp / "rest", args.lines, args.deploys, args.seed, args.aimed,
                               args.fuzz)
            cuts = [pool.submit(job_cuts, tmp / f"cuts{k}", n, args.seed + k)
                    for k, n in enumerate(shares) if n]
            parts = [f.result() for f in cuts]
            others = rest.result()
    failed = [p for p in parts if p["ok"] != "pass"]
    name = f"power cuts at random instants during games, {args.cuts} times"
    secs = max(p["secs"] for p in parts)
    if failed:
        cut_row = {"name": name, "ok": "FAIL", "secs": secs,
                   "detail": "; ".join(f"{p['name']}: {p['detail']}" for p in failed)}
    else:
        cut_row = {"name": name, "ok": "pass", "secs": secs,
                   "detail": power_cuts_detail([p["detail"] for p in parts])}
    results = [cut_row, *others]
    write(Path(args.out), results, cmd, time.monotonic() - t0)
    return 0 if all(r["ok"] != "FAIL" for r in results) else 1


def only_aimed(args):
    """The aimed power cuts alone, on one board: their row of the table in `args.out` is rewritten
    (the others stay as the last full run left them), naming its own command and date."""
    cmd = f".venv/bin/python -m lab.drills --only aimed --aimed {args.aimed} --seed {args.seed}"
    if args.timing != "host":
        cmd += f" --timing {args.timing}"
    with tempfile.TemporaryDirectory(prefix="drills-") as tmp:
        r = job_aimed(Path(tmp) / "aimed", args.aimed, args.seed)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    r["detail"] += f" (this row alone: `{cmd}`, run {date})"
    replace_row(Path(args.out), r)
    return 0 if r["ok"] == "pass" else 1


def only_one(args):
    """A drill that needs no board of its own (hostile, slow) alone: its row rewritten (added if
    the table has none yet), naming its own command and date."""
    cmd = f".venv/bin/python -m lab.drills --only {args.only}"
    name, fn = {"hostile": (HOSTILE, drill_hostile), "slow": (SLOW, drill_slow_clients)}[args.only]
    with tempfile.TemporaryDirectory(prefix="drills-") as tmp:
        r = run(name, fn, Path(tmp))
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    r["detail"] += f" (this row alone: `{cmd}`, run {date})"
    replace_row(Path(args.out), r, add=True)
    return 0 if r["ok"] == "pass" else 1


def table_row(r):
    return f"| {r['name']} | {r['ok']} | {r['detail'].replace('|', '/')} | {r['secs']:.0f} s |"


def replace_row(path, r, add=False):
    """The row of drill `r` (found by the words before its count) in the table `write` made; `add`:
    a drill with no row yet gets one after the last."""
    text = path.read_text()
    head, marker, tail = text.partition("<!-- drills:begin -->")
    table, end, after = tail.partition("<!-- drills:end -->")
    key = "| " + (r["name"].rsplit(",", 1)[0] + "," if "," in r["name"] else r["name"] + " |")
    lines = table.split("\n")
    at = [i for i, line in enumerate(lines) if line.startswith(key)]
    if add and marker and end and not at:
        last = max(i for i, line in enumerate(lines) if line.startswith("| "))
        lines.insert(last + 1, table_row(r))
        path.write_text(head + marker + "\n".join(lines) + end + after)
        return
    if not marker or not end or len(at) != 1:
        raise SystemExit(f"{path}: no single row starting {key!r} between the drills markers")
    lines[at[0]] = table_row(r)
    path.write_text(head + marker + "\n".join(lines) + end + after)


def write(path, results, cmd, wall):
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = path.read_text() if path.exists() else ""
    head, marker, tail = text.partition("<!-- drills:begin -->")
    _, _, after = tail.partition("<!-- drills:end -->")
    rows = ["| drill | result | what was seen | time |", "|---|---|---|---|"]
    for r in results:
        rows.append(table_row(r))
    table = "\n".join([f"Command: `{cmd}`, run {date} on this 2-core shared machine (virtual board, "
                       f"MicroPython 1.29 wasm, unthrottled); {wall / 60:.1f} min wall clock, the "
                       "power cuts on boards side by side with the other drills.", "", *rows])
    if not marker:
        head, after = "# Reliability: fault drills\n\n", "\n"
    path.write_text(f"{head}<!-- drills:begin -->\n{table}\n<!-- drills:end -->{after}")


if __name__ == "__main__":
    sys.exit(main())
