"""Count read glitches in recordings of an HX711 at rest: each CSV holds one column per static
load (its header a label), one raw reading per row. A glitch is a sample more than --sd robust
standard deviations (1.4826 x the median absolute deviation) from its column's median; glitches
on consecutive rows are one glitch of several samples.

    .venv/bin/python -m lab.count_glitches readings.csv CalibrationReadings.csv

This is how lab.realglitches's figures were measured, on Cerda-CruzStanlie/LoadCellProject's
readings.csv (commit b3c75902cf2f5d960bb0ea5a476b82c66d4ba1ad) and CalibrationReadings.csv
(ad2f8f8546a88bed11da1c90a7511989a2657d15), downloaded from GitHub (no licence is stated there, so
they are not in this repository). It prints each column's figures, every glitch's run of samples
in counts off the median, and the share of samples a glitch starts on."""

import argparse
import csv
import statistics
import sys


def glitches(values, sd=8.0):
    """(robust sd, [run of deviations, ...]) of one column's readings."""
    med = statistics.median(values)
    spread = 1.4826 * statistics.median(abs(v - med) for v in values)
    runs, run = [], []
    for v in values:
        if abs(v - med) > sd * spread:
            run.append(round(v - med))
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return spread, runs


def columns(path):
    """{label: [readings]} of one CSV file (empty cells skipped); ValueError naming the file, row
    and column of a cell that is not a number."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path}: empty")
    out = {h: [] for h in rows[0]}
    for n, row in enumerate(rows[1:], start=2):
        for h, cell in zip(rows[0], row):
            if cell.strip():
                try:
                    out[h].append(float(cell))
                except ValueError:
                    raise ValueError(f"{path}:{n}: column {h!r}: {cell!r} is not a number") from None
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", nargs="+", help="CSV files: one column per static load, raw readings")
    p.add_argument("--sd", type=float, default=8.0, help="robust sds from the median that make a glitch (8)")
    a = p.parse_args(argv)
    total = 0
    found = []
    for path in a.csv:
        try:
            cols = columns(path)
        except (OSError, ValueError) as e:
            p.error(str(e))
        for label, values in cols.items():
            if len(values) < 10:
                print(f"{path} [{label}]: {len(values)} readings, too few to tell a glitch: left out")
                continue
            spread, runs = glitches(values, a.sd)
            total += len(values)
            found += runs
            print(f"{path} [{label}]: {len(values)} samples, robust sd {spread:.1f}, glitches {runs}")
    starts = len(found)
    print(f"{total} samples; {starts} glitches ({sum(len(r) for r in found)} samples, "
          f"{sum(len(r) > 1 for r in found)} of more than one); "
          f"a glitch starts on {starts}/{total} = {100 * starts / max(total, 1):.2f} % of samples")
    print("runs, in counts off the median:", sorted(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
