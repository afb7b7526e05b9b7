"""`make bench`: run the benchmarks and rewrite docs/benchmarks.md.

    .venv/bin/python -m lab.bench                      # everything -> docs/benchmarks.md (a few minutes)
    .venv/bin/python -m lab.bench --only firmware      # one section, printed (or --out FILE)
    .venv/bin/python -m lab.bench --quick --out /tmp/b.md --plot /tmp/p.png   # 1-2 trials each

Each section is a module beside this file with `run(...) -> rows`; a row is a dict with figure,
value, baseline, ratio, command (and optionally "budget": {what, limit, measured, max|min}, which
also puts it in the "Firmware budgets (issue 4)" table). A module that is missing or cannot be
imported gives a row that says so instead of a figure; one that fails gives a row with its error
and the runner exits 1 (the document is still written, so the failure shows there too).
"""

import argparse
import datetime
import importlib
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COLUMNS = ("figure", "value", "baseline", "ratio", "command", "date")


def _weigher(mod, a):
    return mod.run(traces=a.traces, plot=a.plot, quick=a.quick)


def _firmware(mod, a):
    if a.quick:
        return mod.run(trials=a.trials, boots=1, idle_s=1.0, timing=a.timing)
    return mod.run(trials=a.trials, boots=5, idle_s=10.0, timing=a.timing)


def _deploy(mod, a):
    return mod.run(runs=1 if a.quick else 3, timing=a.timing)


# sections run on the virtual board, once per timing asked for (docs/virtual-board.md)
TIMED = ("firmware", "deploy")
TIMING_LABELS = {"esp32": "ESP32 timing", "esp32-worst": "ESP32 timing, worst-case flash",
                 "host": "--timing host"}


def _timings(key, a):
    if key not in TIMED:
        return (None,)
    return ("esp32", "host") if a.timing == "both" else (a.timing,)


def _tagged(rows, timing, tag):
    """Rows of one timing's run, named for it when the section runs under several."""
    if not tag:
        return rows
    label = TIMING_LABELS[timing]
    for r in rows:
        r["figure"] = f"{r['figure']} [{label}]"
        if r.get("budget"):
            r["budget"] = {**r["budget"], "what": f"{r['budget']['what']} [{label}]"}
    return rows


# key, title, module, how to call it, what is missing when the module is not there
SECTIONS = (
    ("weigher", "Egg weigher", "lab.bench_weighing", _weigher, "the weigher benchmark"),
    ("firmware", "Firmware on the virtual board", "lab.bench_firmware", _firmware, "the firmware benchmark"),
    ("deploy", "Deploy", "lab.bench_deploy", _deploy, "nest deploy"),
)


def _missing(title, what, err):
    return {"section": title, "figure": f"{title}: every figure",
            "value": f"not measured: {what} not available ({err})", "baseline": "-", "ratio": "-",
            "command": "-"}


def run_sections(args):
    """Rows of the chosen sections, in order; and whether one of them failed."""
    rows, failed = [], False
    for key, title, module, call, what in SECTIONS:
        if args.only and key not in args.only:
            continue
        print(f"bench: {title} ...", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            rows.append(_missing(title, what, f"{type(e).__name__}: {e}"))
            continue
        got = []
        timings = _timings(key, args)
        for timing in timings:
            try:
                rows_t = call(mod, argparse.Namespace(**{**vars(args), "timing": timing}))
            except Exception as e:  # noqa: BLE001  (one broken section must not hide the others)
                traceback.print_exc()
                failed = True
                rows_t = [{"figure": f"{title}: every figure",
                           "value": f"not measured: failed: {type(e).__name__}: {e}", "baseline": "-",
                           "ratio": "-", "command": f".venv/bin/python -m lab.bench --only {key}"}]
            got += _tagged(rows_t, timing, len(timings) > 1)
        for r in got:
            r.setdefault("section", title)
            r["section"] = title
        rows += got
        print(f"bench: {title}: {len(got)} rows in {time.monotonic() - t0:.0f} s", file=sys.stderr,
              flush=True)
    return rows, failed


def _cell(v):
    if v is None or v == "":
        return "-"
    return str(v).replace("|", "\\|").replace("\n", " ")


def _table(rows, date):
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [r.get("figure"), r.get("value"), r.get("baseline"), r.get("ratio"),
                 f"`{r['command']}`" if r.get("command") not in (None, "-") else "-", date]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return out


def verdict(budget):
    m = budget.get("measured")
    if budget.get("max") is not None:
        return "yes" if m <= budget["max"] else "**NO**"
    if budget.get("min") is not None:
        return "yes" if m >= budget["min"] else "**NO**"
    return "(no limit)"


def _budgets(rows, date):
    out = ["| budget | limit | measured | within | command | date |", "|---|---|---|---|---|---|"]
    for r in rows:
        b = r.get("budget")
        if b:
            out.append("| " + " | ".join(_cell(c) for c in (b["what"], b["limit"], b["measured"], verdict(b),
                                                             f"`{r['command']}`", date)) + " |")
    return out


def _machine():
    try:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except OSError:
        node = "?"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
    except OSError:
        rev = "?"
    try:
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "firmware",
                                 "host_tools", "lab"], cwd=ROOT, capture_output=True, text=True, timeout=10)
        dirty = [ln for ln in status.stdout.split("\n") if ln.strip()]
    except OSError:
        dirty = []
    if dirty:  # the team shares one tree: say when the run saw someone's uncommitted edits
        rev += f" plus {len(dirty)} uncommitted file(s) ({', '.join(ln[3:] for ln in dirty)})"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load} at the end, Node {node}, commit {rev}"


def render(rows, date, plot_rel=None, quick=False, plot_path=None):
    lines = ["# Benchmarks", "",
             "Written by `make bench` (`.venv/bin/python -m lab.bench`); do not edit by hand: "
             "run it again.",
             f"Run of {date} on {_machine()}." + (" **Quick mode: 1-2 trials per figure.**" if quick else ""),
             "", "Every figure is measured side by side with its baseline in the same run (same machine, "
             "same moment): a ratio or a distribution, not a lone time. The virtual board is the real "
             "MicroPython 1.29 VM (WebAssembly) with simulated hardware (docs/virtual-board.md). Its figures "
             "are given twice: with ESP32 timing (the board's clock at an ESP32's speed: bytecode, machine "
             "calls, flash and LEDs at the costs docs/virtual-board.md cites), and with `--timing host`, the "
             "VM's own speed. A budget missed under ESP32 timing is reported as missed.",
             ""]
    if any(r.get("budget") for r in rows):
        lines += ["## Firmware budgets (issue 4)", "",
                  "The limits of issue 4; \"measured\" is the 95th percentile where the figure is a "
                  "distribution (the full distributions are in the sections below).", ""]
        lines += _budgets(rows, date) + [""]
    seen = []
    for r in rows:
        if r["section"] not in seen:
            seen.append(r["section"])
    for title in seen:
        lines += [f"## {title}", ""]
        seed = next((r["plot_seed"] for r in rows if r.get("plot_seed")), None)
        if title == "Egg weigher" and plot_rel and seed:
            lines += [f"![a generated session with both detectors' decisions]({plot_rel})", "",
                      f"One generated session (seed {seed}: of seeds 1-30, where the max-min window errs "
                      "most in the first 45 s): green dashed = the truth (hand gone / egg gone), red = a "
                      "detector's event; top the weigher, bottom the max-min window. Redraw: "
                      f"`.venv/bin/python -m lab.weighplot --seed {seed} --out {plot_path or plot_rel}`.",
                      ""]
        both = any("[ESP32 timing]" in r["figure"] for r in rows if r["section"] == title)
        if both:
            lines += ["Each figure twice: [ESP32 timing] on the board's ESP32 clock (docs/virtual-board.md, "
                      "\"ESP32 timing\": bytecode at an ESP32's speed, machine calls, flash writes and LEDs "
                      "at their datasheet costs), and [--timing host] at the VM's own speed, as before.", ""]
        if title == "Deploy":
            lines += ["Baseline: `mpremote cp -r` of the same built files to a fresh board at the same baud; "
                      "ratio = baseline / `nest deploy` (above 1: `nest deploy` is faster). Details: "
                      "docs/deploy.md.", ""]
        lines += _table([r for r in rows if r["section"] == title], date) + [""]
    return "\n".join(lines)


def splice(old, new, titles):
    """`old` (a document this runner wrote) with the sections `titles` and their budget rows
    taken from `new` (a run of those sections only): `--only` into an existing document."""
    for title in titles:
        head = f"## {title}\n"
        if head not in new:
            continue
        part = head + new.split(head, 1)[1].split("\n## ", 1)[0]
        if head in old:
            before, rest = old.split(head, 1)
            after = rest.split("\n## ", 1)
            old = before + part + ("\n## " + after[1] if len(after) > 1 else "\n")
        else:
            old = old.rstrip("\n") + "\n\n" + part
    budget = "## Firmware budgets (issue 4)\n"
    if budget in old:
        new_lines = new.split(budget, 1)[1].split("\n## ", 1)[0].splitlines() if budget in new else []
        fresh = [ln for ln in new_lines if ln.startswith("| ") and not ln.startswith("| budget")]
        keys = {ln.split(" | ")[0].split(",")[0] for ln in fresh}
        before, rest = old.split(budget, 1)
        table, _, after = rest.partition("\n## ")
        lines = [ln for ln in table.splitlines() if ln.split(" | ")[0].split(",")[0] not in keys]
        last = max(i for i, ln in enumerate(lines) if ln.startswith("|"))
        lines[last + 1:last + 1] = fresh
        old = before + budget + "\n".join(lines) + "\n\n## " + after
    return old


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1-2 trials per figure (for the test)")
    ap.add_argument("--only", type=lambda s: s.split(","), default=None,
                    help="comma-separated sections: " + ", ".join(s[0] for s in SECTIONS))
    ap.add_argument("--out", default=None,
                    help="the document (default docs/benchmarks.md; with --only: stdout, '-'; with "
                         "--only and an existing document, only those sections of it are rewritten)")
    ap.add_argument("--plot", default=None, help="the weigher plot PNG (default docs/weigher-decisions.png "
                                                 "when writing docs/benchmarks.md, else none)")
    ap.add_argument("--traces", type=int, default=None, help="generated sessions for the weigher (300)")
    ap.add_argument("--trials", type=int, default=None, help="alarm and unplug trials on the board (20)")
    ap.add_argument("--timing", choices=("both", "esp32", "esp32-worst", "host"), default=None,
                    help="the virtual board's clock for the firmware and deploy sections: both = ESP32 "
                         "timing and --timing host side by side (default; host with --quick)")
    a = ap.parse_args(argv)
    known = {s[0] for s in SECTIONS}
    if a.only and not set(a.only) <= known:
        ap.error(f"--only: unknown section(s) {sorted(set(a.only) - known)}; one of {sorted(known)}")
    if a.out is None:
        a.out = "-" if a.only else str(ROOT / "docs" / "benchmarks.md")
    if a.plot is None and a.out == str(ROOT / "docs" / "benchmarks.md"):
        a.plot = str(ROOT / "docs" / "weigher-decisions.png")
    if a.traces is None:
        a.traces = 3 if a.quick else 300
    if a.trials is None:
        a.trials = 2 if a.quick else 20
    if a.timing is None:
        a.timing = "host" if a.quick else "both"
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows, failed = run_sections(a)
    plot_rel = None
    if a.plot and Path(a.plot).exists():
        base = Path(a.out).resolve().parent if a.out != "-" else Path.cwd()
        plot_rel = os.path.relpath(Path(a.plot).resolve(), base)
    text = render(rows, date, plot_rel, a.quick,
                  os.path.relpath(Path(a.plot).resolve(), ROOT) if plot_rel else None)
    if a.out == "-":
        print(text)
    else:
        if a.only and Path(a.out).exists():
            titles = [s[1] for s in SECTIONS if s[0] in a.only]
            for title in titles:   # the document's header tells of the last full run, not this one
                text = text.replace(f"## {title}\n\n", f"## {title}\n\nThis section: run of {date} on "
                                    f"{_machine()}.\n\n", 1)
            text = splice(Path(a.out).read_text(), text, titles)
        Path(a.out).write_text(text)
        print(f"bench: wrote {a.out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
