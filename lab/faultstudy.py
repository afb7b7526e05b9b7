"""The figures behind gulo.nestfault's limits, from the nest models' sessions (lab.weighscore's)
fed to the firmware's weigher and watch (docs/weigher.md, "A nest that cannot weigh").

    .venv/bin/python -m lab.faultstudy play  [--models ...] [--rates 80 10] [--traces 40]
    .venv/bin/python -m lab.faultstudy noise [--models ...] [--rates 80 10] [--traces 40]
        [--extra 0 0.2 0.3 0.4 0.6]
    .venv/bin/python -m lab.faultstudy rub [--rates 80 10] [--traces 10]

play: a healthy nest at play. Per model and setting: the most motion the watch counted in a
session (UNSETTLED_MS is the fault) and its 90th percentile, the highest noise the weigher learned
at rest (NOISY_CG is the fault), and the faults shown (0 wanted).
noise: white noise of `extra` g rms added to every sample of the same sessions (a loose wire, a
poor supply): the weigher's accuracy (lab.weighscore's scoring) and the noise it learned, which
is what the watch compares with NOISY_CG.
rub: a bowl that rubs on the box for 60 s, as motion of `sd` g rms from sample to sample on a
quiet nest (0.04 g of noise), sd from a touch to a scrape: when the fault is shown (from the
rubbing's start), and the eggs the weigher said meanwhile (none wanted)."""

import argparse
import random

from gulo.nestfault import NestWatch
from gulo.weigher import Weigher
from lab import weighscore
from nest.tracegen import run

MODELS = ["phys", "table", "lift", "grip"]


class Watched:
    """The firmware's weigher with its watch, as the board's sampler runs them (a detector for
    nest.tracegen.run): after each sample, the watch's check and what the study reads from it."""

    def __init__(self, world=None):
        self.w = Weigher(masses=world.masses, pole_g=world.pole_g) if world else Weigher()
        self.watch = NestWatch()
        self.most = 0      # the most motion counted
        self.faults = 0    # faults shown
        self.first = None  # (t_ms, word) of the first fault shown
        self.noise = []    # the learned noise at rest, a sample at a time (cg)

    def __getattr__(self, name):
        # the rest (at_rest, set_demand, out, t_calm...) is the weigher's: lab.weighscore.run
        # plays the game's part with it
        return getattr(self.w, name)

    def set_pole(self, seated):
        self.w.set_pole(seated)

    def feed(self, t, g):
        w, watch = self.w, self.watch
        ev = w.feed(t, g)
        if watch.check(w, t) and watch.kind:
            self.faults += 1
            if self.first is None:
                self.first = (t, watch.word())
        self.most = max(self.most, watch.moved)
        if w.ready and w.at_rest:
            self.noise.append(w.noise_cg())
        return ev


def session(model, rate, seed, extra=0.0):
    """One session: (most motion counted ms, learned noise at rest: median and highest (cg),
    faults shown, the weigher's events, the model's truth, the weigher's rest per sample), the
    game's demands told as lab.weighscore.run tells them."""
    world, samples = weighscore.trace(model, seed, rate)
    if extra:
        rng = random.Random(seed)
        samples = [(t, g + rng.gauss(0, extra), p) for t, g, p in samples]
    det = Watched(world)
    rest = []
    events = weighscore.run(det, samples, world.truth, rest)
    noise = sorted(det.noise)
    return det.most, noise[len(noise) // 2], noise[-1], det.faults, events, world.truth, rest


def play(a):
    print("| model | setting | sessions | most motion counted | 90th pct | highest noise learned | faults |")
    print("|---|---|---|---|---|---|---|")
    for model in a.models:
        for rate in a.rates:
            rows = [session(model, rate, s) for s in range(a.seed, a.seed + a.traces)]
            most = sorted(r[0] for r in rows)
            print(f"| {model} | {rate} SPS | {len(rows)} | {most[-1] / 1000:.1f} s | "
                  f"{most[int(0.9 * len(most))] / 1000:.1f} s | {max(r[2] for r in rows) / 100:.2f} g | "
                  f"{sum(r[3] for r in rows)} |", flush=True)


def noise(a):
    print("| model | setting | added noise | right | false | early | noise learned (session medians) "
          "| sessions with a fault shown |")
    print("|---|---|---|---|---|---|---|---|")
    for model in a.models:
        for rate in a.rates:
            for extra in a.extra:
                tot = {"changes": 0, "right": 0, "false": 0, "early": 0}
                med = []
                faulted = 0
                for s in range(a.seed, a.seed + a.traces):
                    _most, m, _hi, faults, events, truth, rest = session(model, rate, s, extra)
                    r = weighscore.score(truth, events, weighscore.ATTEMPT_END_MS, rest)
                    for k in tot:
                        tot[k] += r[k]
                    med.append(m)
                    faulted += faults > 0
                print(f"| {model} | {rate} SPS | {extra:g} g | {100 * tot['right'] / tot['changes']:.2f} % "
                      f"of {tot['changes']} | {tot['false']} | {tot['early']} | "
                      f"{min(med) / 100:.2f}-{max(med) / 100:.2f} g | {faulted} of {a.traces} |", flush=True)


RUB_SD = (0.1, 0.3, 0.5, 1.0, 2.0, 4.0)


def rubbing(rate, sd, seed, start_ms=5000, rub_ms=60000):
    """(t_ms, grams) at the setting's real rate (90/s or 11/s, 1 ms of jitter): a quiet 500 g
    nest that rubs from start_ms for rub_ms."""
    rng = random.Random(seed)
    period = 1000.0 / (90 if rate == 80 else 11)
    out = []
    t = period
    while t < start_ms + rub_ms + 5000:
        g = 500.0 + rng.gauss(0, 0.04)
        if start_ms <= t < start_ms + rub_ms:
            g += rng.gauss(0, sd)
        out.append((int(t + rng.random()), g))
        t += period
    return out


def rub(a):
    print("| setting | motion sd | fault shown after (median, of sessions) | first fault "
          "| eggs said while rubbing |")
    print("|---|---|---|---|---|")
    for rate in a.rates:
        for sd in RUB_SD:
            shown = []
            kinds = {}
            said = 0
            for seed in range(a.seed, a.seed + a.traces):
                det = Watched()
                events = run(det, [(t, g, True) for t, g in rubbing(rate, sd, seed)])
                said += len([ev for ev in events if "out" in ev and 5000 <= ev["t_ms"] < 65000])
                if det.first is not None:
                    shown.append(det.first[0] - 5000)
                    kinds[det.first[1]] = kinds.get(det.first[1], 0) + 1
            shown.sort()
            when = f"{shown[len(shown) // 2] / 1000:.1f} s, {len(shown)} of {a.traces}" if shown else \
                f"never, 0 of {a.traces}"
            first_kinds = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-"
            print(f"| {rate} SPS | {sd:g} g | {when} | {first_kinds} | {said} |", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("study", choices=("play", "noise", "rub"))
    p.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    p.add_argument("--rates", nargs="+", type=int, default=[80, 10], choices=(80, 10))
    p.add_argument("--traces", type=int, default=40)
    p.add_argument("--seed", type=int, default=3001)
    p.add_argument("--extra", nargs="+", type=float, default=[0.0, 0.2, 0.3, 0.4, 0.6],
                   help="noise study: g rms added to every sample")
    a = p.parse_args(argv)
    {"play": play, "noise": noise, "rub": rub}[a.study](a)


if __name__ == "__main__":
    main()
