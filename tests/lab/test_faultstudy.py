"""gulo.nestfault on the nest models (lab.faultstudy): a healthy nest at play never shows the
nest's fault, a loose wire's noise does, and each check fails on its planted fault (limits set
where play reaches them)."""

import subprocess
import sys

import gulo.nestfault as nestfault
from lab import faultstudy


def faults(model, rate, seeds, extra=0.0):
    return [faultstudy.session(model, rate, s, extra)[3] for s in seeds]


def test_a_healthy_nest_at_play_never_shows_the_fault():
    # the fifth model's turns come 0.2-1.2 s apart: the densest play of the four models
    for model in ("phys", "table"):
        for rate in (80, 10):
            assert faults(model, rate, range(3001, 3005)) == [0] * 4, (model, rate)


def test_planted_fault_limits_that_play_reaches_show_the_fault(monkeypatch):
    monkeypatch.setattr(nestfault, "UNSETTLED_MS", 3000)   # CPython: the module's global is read
    assert sum(faults("table", 80, range(3001, 3005))) > 0
    monkeypatch.undo()
    monkeypatch.setattr(nestfault, "NOISY_CG", 3)
    monkeypatch.setattr(nestfault, "CLEAR_CG", 1)
    assert sum(faults("phys", 80, range(3001, 3003))) > 0


def test_a_ringing_bowl_is_not_a_noisy_cell(monkeypatch):
    # the fifth model's seed 9073 at 80 SPS: its bowl rings for seconds, and the weigher learns
    # the ring as up to 0.45 g of noise for 0.7 s of rest (docs/weigher.md)
    assert faults("table", 80, [9073]) == [0]
    monkeypatch.setattr(nestfault, "NOISY_MS", 0)   # planted: the noise judged at once
    assert faults("table", 80, [9073]) == [1]


def test_a_loose_wires_noise_shows_the_fault_in_every_session():
    # 0.8 g rms added to every sample: where the weigher misreads (docs/weigher.md)
    for rate in (80, 10):
        assert all(faults("phys", rate, range(3001, 3004), extra=0.8)), rate


def test_the_study_prints_its_tables():
    for study in ("play", "noise"):
        out = subprocess.run([sys.executable, "-m", "lab.faultstudy", study, "--models", "phys",
                              "--rates", "80", "--traces", "2", "--extra", "0.5"],
                             capture_output=True, text=True, check=True).stdout
        rows = [line for line in out.splitlines() if line.startswith("| phys | 80 SPS |")]
        assert len(rows) == 1, out
