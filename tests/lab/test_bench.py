"""`make bench` cannot rot: the runner in quick mode (1-2 trials per figure) writes a document whose
tables have every expected figure, each with a value and the command that measured it."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.board


def _rows(text, header):
    """The rows (lists of cells) of the table under `## header`."""
    section = text.split(f"## {header}\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("| ")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines[1:]]


@pytest.mark.timeout(600)
def test_the_runner_writes_every_figure_with_its_command(tmp_path):
    out, plot = tmp_path / "benchmarks.md", tmp_path / "plot.png"
    proc = subprocess.run([sys.executable, "-m", "lab.bench", "--quick", "--out", str(out),
                           "--plot", str(plot)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = out.read_text()
    assert plot.stat().st_size > 10_000 and f"]({plot.name})" in text

    weigher = _rows(text, "Egg weigher")
    firmware = _rows(text, "Firmware on the virtual board")
    # weigher: the matrix (6 models x 2 HX711 settings, the worst cell at each), its per-sample
    # cost at rest and over takes, and the sampler's path's at 0 and 13 days
    for rows, n in ((weigher, 20), (firmware, 10)):
        assert len(rows) == n, rows
        for figure, value, baseline, _ratio, command, date in rows:
            assert value and "not measured" not in value, (figure, value)
            assert baseline not in ("", "-") and command.startswith("`.venv/bin/python -m lab."), figure
            assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC$", date)
    cells = [r for r in weigher if re.match(r"\w+ \((tried on|blind)\) at (80|10) SPS: \d+ sessions", r[0])]
    assert len(cells) == 12 and sum("(blind)" in r[0] for r in cells) == 8, cells
    assert all(re.match(r"weigher: \d+\.\d\d % of \d+ right, \d+\.\d false / 500 attempts, p95 \d+ ms "
                        r"\(from the hand's last contact even with an egg rolling out later: \d+\); "
                        r"the game acts p95 \d+ ms$", r[1]) for r in cells)
    assert sum(r[0].startswith("WORST cell at ") for r in weigher) == 2
    fw = {r[0].split(" (")[0]: r[1] for r in firmware}
    assert re.match(r"median \d+ ms, p95 \d+, max \d+ \(n=2\)",
                    fw["pole leaves its seat -> alarm siren on the buzzer"])
    assert re.match(r"\d+\.\d KB", fw["heap in use after boot"])
    cost = [r for r in weigher if r[0].startswith("per-sample cost")]
    assert len(cost) == 2 and re.match(r"\d+\.\d\d µs \(0 bytes allocated", cost[0][1])   # at rest
    assert all(re.match(r"\d\.\d\dx$", r[3]) for r in cost)

    # Deploy: figures when lab/bench_deploy.py is there, else a row that says it was not measured.
    deploy = _rows(text, "Deploy")
    assert deploy and all(r[4] != "" for r in deploy)
    if not (ROOT / "lab" / "bench_deploy.py").exists():
        assert "not measured: nest deploy not available" in deploy[0][1]

    budgets = _rows(text, "Firmware budgets (issue 4)")
    what = [r[0] for r in budgets]
    for name in ("pole -> alarm sound", "pole -> alarm LEDs", "HX711 unplugged -> fault shown",
                 "heap in use after boot", "heap in use during a game", "boot -> ready",
                 "weigher per-sample cost, rest", "weigher per-sample cost, takes"):
        assert any(w.startswith(name) for w in what), (name, what)
    assert all(r[3] in ("yes", "**NO**", "(no limit)") and r[4].startswith("`") for r in budgets)


def test_a_run_of_some_sections_keeps_the_budget_rows_of_the_others():
    # `--only firmware` must not drop the weigher's budget rows, nor `--only weigher` the firmware's
    from lab.bench import splice

    budget = "## Firmware budgets (issue 4)\n\n| budget | limit |\n|---|---|\n"
    old = (budget + "| heap after boot (KB) | 1 |\n| weigher per-sample cost, rest | 0.7 |\n\n"
           "## Firmware\n\nold firmware\n")
    new = budget + "| heap after boot (KB) | 2 |\n\n## Firmware\n\nnew firmware\n"
    both = splice(old, new, ["Firmware"])
    assert "| weigher per-sample cost, rest | 0.7 |" in both
    assert "| heap after boot (KB) | 2 |" in both and "| heap after boot (KB) | 1 |" not in both
    assert "new firmware" in both and "old firmware" not in both
