"""lab.realglitches: the read glitches of a real HX711 recording, added to a model's samples, and
`lab.weighscore --glitches`. The figures are written here again from the measurement (the raw
counts off the median in Cerda-CruzStanlie/LoadCellProject's readings.csv and
CalibrationReadings.csv, docs/weigher.md "Read glitches from a real recording"), not read from
the module."""

import pytest

from lab import realglitches

# each glitch's run of samples, counts off its column's median, as measured
COUNTS = [(-633,), (545,), (570,), (578,), (711,), (789,), (860,), (936,), (983,), (1021,), (1042,),
          (1050,), (1163,), (1170,), (1199,), (1332,), (1346,), (1368,), (1551,), (1614,), (1635,),
          (1792,), (1912, 786), (2036,)]
COUNTS_PER_G = 200
SAMPLES = 3209


def test_the_glitches_are_the_measured_ones():
    assert sorted(realglitches.GLITCH_G) == sorted(tuple(c / COUNTS_PER_G for c in run) for run in COUNTS)
    assert realglitches.MEASURED_P == pytest.approx(len(COUNTS) / SAMPLES)


def test_glitches_land_at_their_rate_and_leave_time_and_reed_alone():
    rest = [(12 * i, 500.0, i % 7 != 0) for i in range(100_000)]
    out = realglitches.add(rest, seed=4)
    assert [(t, p) for t, _, p in out] == [(t, p) for t, _, p in rest]
    off = [g - 500.0 for _, g, _ in out]
    starts = sum(1 for i, d in enumerate(off) if d and (i == 0 or not off[i - 1]))
    # binomial: 100,000 x 0.75 % = 748 expected, sd 27; pairs make a few runs merge
    assert 650 <= starts <= 850, starts
    sizes = {round(abs(d), 2) for d in off if d}
    assert min(sizes) >= 2.7 and max(sizes) <= 10.2
    assert 3.93 in sizes          # the pair's second sample comes too
    assert realglitches.add(rest, seed=4) == out and realglitches.add(rest, seed=5) != out


def test_no_share_no_glitch_and_a_share_out_of_range_is_refused():
    rest = [(12 * i, 500.0, True) for i in range(1000)]
    assert realglitches.add(rest, p=0.0) == rest
    with pytest.raises(ValueError, match="glitch share"):
        realglitches.add(rest, p=0.5)


class _Recorder:
    """A detector that only keeps what it is fed (and never sees the nest move)."""
    at_rest = True

    def __init__(self, world, seen):
        self.seen = seen

    def set_pole(self, pole):
        pass

    def feed(self, t, g):
        self.seen.append(g)


def test_weighscore_feeds_the_glitches_to_the_detector_and_refuses_a_bad_share(capsys):
    from test_weigh_score import scores_once_and_refuses

    from lab.weighscore import evaluate

    plain, hit = [], []
    evaluate(lambda w: _Recorder(w, plain), [1001], model="phys", rate=80)
    evaluate(lambda w: _Recorder(w, hit), [1001], model="phys", rate=80, glitches=0.05)
    assert len(hit) == len(plain)
    off = [b - a for a, b in zip(plain, hit) if abs(b - a) > 1e-9]
    assert 0.03 * len(plain) < len(off) < 0.07 * len(plain)
    sizes = [c / COUNTS_PER_G for run in COUNTS for c in run]
    assert all(min(abs(d - g) for g in sizes) < 1e-6 for d in off)
    scores_once_and_refuses(capsys, ["--glitches", "0.0075"], ["--glitches", "0.5"],
                            "--glitches must be a share of samples from 0 to 0.2")
    scores_once_and_refuses(capsys, ["--glitches", "0"], ["--glitches", "0.01", "--tune-on", "phys"],
                            "--glitches: not with --tune-on")


def test_the_counting_tool_finds_planted_glitches_and_names_a_bad_cell(tmp_path):
    import random
    import subprocess
    import sys

    tool = ["-m", "lab.count_glitches"]
    rng = random.Random(2)
    cols = {"0.00": [1000 + rng.gauss(0, 80) for _ in range(300)],
            "500.00": [101000 + rng.gauss(0, 80) for _ in range(200)]}
    cols["0.00"][50] += 1500            # planted: one glitch, and one of two samples
    cols["500.00"][20] += 2000
    cols["500.00"][21] += 900
    path = tmp_path / "rest.csv"
    path.write_text("0.00,500.00\n" + "\n".join(
        f"{cols['0.00'][i]:.0f},{cols['500.00'][i]:.0f}" if i < 200 else f"{cols['0.00'][i]:.0f},"
        for i in range(300)) + "\n")
    r = subprocess.run([sys.executable, *tool, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "500 samples; 2 glitches (3 samples, 1 of more than one)" in r.stdout, r.stdout
    assert "= 0.40 % of samples" in r.stdout
    path.write_text("0.00\n1000\nheavy\n")
    r = subprocess.run([sys.executable, *tool, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and f"{path}:3: column '0.00': 'heavy' is not a number" in r.stderr
