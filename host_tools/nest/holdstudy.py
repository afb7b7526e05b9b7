"""Still hands on a real nest: a guided recording (`nest diag --holds N --record FILE.csv`) and what
it says about the calm the weigher waits for (`nest weigh --holds FILE.csv`).

Why (docs/weigher.md, "The still-hand limit"): the weigher names a level only after 0.5 s of
calm at it, because on the nest models a child's hand holding a heavier egg half-lifted and
still looks like no hand at all: its tremor is lost in the HX711's noise. That wait is what keeps
the old latency targets out of reach, and the models disagree on the hands (their tremor
at vanishing force is an assumption from forearm studies, Sutton & Sykes 1967). Only real hands
on a real nest can settle it, so this lets a maker record some and measure them the way
`lab.stilllimit` measures the models: the residual variance about a straight line over the last
250 ms of each hold, and over 100-350 ms after the egg came clear, both over the nest's own noise.

The drill: the nest alone for REST_MS (its noise), then per trial four Enter presses: holding
still, letting go (the lift follows at once), hand away, egg back. Each press is stamped with the
board time of the newest sample streamed (within a sample or two: the stream is live). The marks
are written beside the trace as FILE.holds.json.
"""

import json
import os
from bisect import bisect_left
from statistics import median

from nest.errors import NestError

# Plain Python, no numpy: this runs in the `nest` tool, whose runtime needs (pyproject.toml) do not
# include the dev tools' numpy. lab.stilllimit (a dev tool, on the models) takes its stretches,
# statistic and overlap from here, so the drill and the models are measured alike.
HOLD_MS = 250          # the stretch of a hold (or of a calm after the hand left) that is judged
AFTER_MS = (100, 350)  # the calm after the hand left: from the end of the lift's brush + 100 ms

REST_MS = 3000   # the nest alone before the first trial: its noise, over 250 ms stretches
STEPS = (
    ("still", "lift an egg half out of the nest and hold it there as still as you can, "
              "then press Enter"),
    ("let_go", "keep holding it still, about a second (250 ms at least are judged); then press "
               "Enter and at once lift it clear and take your hand away"),
    ("away", "your hand is away from the nest: count to one, then press Enter"),
    ("back", "put the egg back into the nest, take your hand away, press Enter"),
)
NEAR_G = 0.3     # the lift has ended once the weight is this close to the level after it
                 # (the weigher's _NEAR, 30 cg)
# A choice: at most this share of the holds as calm as the calmer half of the gone hands, and
# the two are told apart well enough to try a shorter wait (the models: 57-72 %; their control
# with 0.5 g of tremor: 0 %, tests/test_weigh_stilllimit.py).
SEPARABLE = 0.1


def marks_path(trace):
    return str(trace) + ".holds.json"


def write_marks(trace, marks):
    """The marks beside the trace, written whole or not at all (a temporary file, then a rename)."""
    path = marks_path(trace)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(marks, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def read_marks(trace):
    """The marks of a recorded drill; NestError naming the file and the field that is wrong."""
    path = marks_path(trace)
    try:
        with open(path, encoding="utf-8") as f:
            marks = json.load(f)
    except OSError as e:
        raise NestError(f"{path}: cannot read: {e.strerror} (recorded with `nest diag --holds N "
                        f"--record {trace}`?)", status=2) from None
    except ValueError as e:
        raise NestError(f"{path}: not JSON: {e}", status=2) from None
    check_marks(marks, path)
    return marks


def check_marks(marks, where):
    rest = marks.get("rest") if isinstance(marks, dict) else None
    if not (isinstance(rest, list) and len(rest) == 2 and all(isinstance(t, int) for t in rest)
            and rest[0] < rest[1]):
        raise NestError(f"{where}: rest: expected [start_ms, end_ms], got {rest!r}", status=2)
    trials = marks.get("trials")
    if not isinstance(trials, list) or not trials:
        raise NestError(f"{where}: trials: expected a list of trials, got {trials!r}", status=2)
    last = rest[1]
    for i, trial in enumerate(trials, start=1):
        for key, _ in STEPS:
            t = trial.get(key) if isinstance(trial, dict) else None
            if not isinstance(t, int):
                raise NestError(f"{where}: trial {i}: {key}: expected a time in ms, got {t!r}", status=2)
            if t < last:
                raise NestError(f"{where}: trial {i}: {key} ({t} ms) comes before the mark before it "
                                f"({last} ms)", status=2)
            last = t


def line_var(ts, gs, a, b):
    """Residual variance about a least-squares straight line over the samples in [a, b) (ts sorted;
    None with fewer than 3): the level and a slow drift taken out, what is left is the noise plus
    whatever moves (a hand's tremor, a bowl's ring)."""
    i, j = bisect_left(ts, a), bisect_left(ts, b)
    n = j - i
    if n < 3:
        return None
    t = [x - a for x in ts[i:j]]
    g = gs[i:j]
    mt, mg = sum(t) / n, sum(g) / n
    stt = sum((x - mt) ** 2 for x in t)
    slope = sum((x - mt) * (y - mg) for x, y in zip(t, g)) / stt if stt else 0.0
    return sum((y - mg - slope * (x - mt)) ** 2 for x, y in zip(t, g)) / (n - 2)


def overlap(held, gone):
    """The share of still holds that look as calm as the calmer half of the gone hands (a
    threshold that lets half the verdicts through quickly lets these through too)."""
    if not len(held) or not len(gone):
        return 0.0
    m = median(gone)
    return sum(1 for h in held if h <= m) / len(held)


def _span(ts, gs, a, b):
    return gs[bisect_left(ts, a):bisect_left(ts, b)]


def analyse(samples, marks):
    """-> {"noise_g", "trials": [{..., "held", "gone", "skip"}], "held", "gone", "overlap",
    "separable"}; `samples` as nest.weigh.read_trace gives them (t_ms increasing)."""
    ts = [s[0] for s in samples]
    gs = [float(s[1]) for s in samples]
    a, b = marks["rest"]
    rest = [line_var(ts, gs, t, t + HOLD_MS) for t in range(a, b - HOLD_MS + 1, HOLD_MS)]
    rest = [v for v in rest if v is not None]
    if not rest:
        raise NestError(f"no samples in the rest ({a}-{b} ms): the trace and its marks do not match",
                        status=2)
    noise2 = median(rest)
    if noise2 <= 0:
        raise NestError("the rest has no noise at all: not an HX711's trace", status=2)
    rows = []
    prev = b   # the nest at rest with every egg in: just before the rest's end, then each "back"
    for trial in marks["trials"]:
        row = dict(trial, hold_ms=trial["let_go"] - trial["still"], held=None, gone=None, skip=None)
        rows.append(row)
        before = _span(ts, gs, prev - HOLD_MS, prev)
        prev = trial["back"]
        if row["hold_ms"] < HOLD_MS:
            row["skip"] = f"held {row['hold_ms']} ms, under {HOLD_MS}"
            continue
        v = line_var(ts, gs, trial["let_go"] - HOLD_MS, trial["let_go"])
        if v is None:
            row["skip"] = "no samples in the hold"
            continue
        row["held"] = v / noise2
        held_part = _span(ts, gs, trial["let_go"] - HOLD_MS, trial["let_go"])
        # the level once the egg is out: just before "away" (the egg may go back right after it)
        after = _span(ts, gs, trial["away"] - HOLD_MS, trial["away"])
        if len(after) < 3:
            row["skip"] = "no samples after the hand left"
            continue
        level = median(after)
        if before:
            row["held_g"] = median(before) - sum(held_part) / len(held_part)
            row["egg_g"] = median(before) - level
        # the lift's end: the first sample after letting go within NEAR_G of the level after it
        i = bisect_left(ts, trial["let_go"] + 1)
        while i < len(ts) and abs(gs[i] - level) > NEAR_G:
            i += 1
        if i == len(ts):
            row["skip"] = "the weight never came to the level after the lift"
            continue
        gone_at = ts[i]
        if gone_at + AFTER_MS[1] > trial["away"]:
            row["skip"] = (f"\"away\" pressed {int(trial['away'] - gone_at)} ms after the lift, under "
                           f"{AFTER_MS[1]}: the calm after it is not all in the trace")
            continue
        row["gone_at"] = gone_at
        v = line_var(ts, gs, gone_at + AFTER_MS[0], gone_at + AFTER_MS[1])
        row["gone"] = None if v is None else v / noise2
    both = [r for r in rows if r["held"] is not None and r["gone"] is not None]
    held = [r["held"] for r in both]
    gone = [r["gone"] for r in both]
    if not held:
        raise NestError("no trial could be measured: " + "; ".join(
            f"trial {i}: {r['skip']}" for i, r in enumerate(rows, start=1)), status=2)
    share = overlap(held, gone)
    return {"noise_g": noise2 ** 0.5, "trials": rows, "held": held, "gone": gone,
            "overlap": share, "separable": share <= SEPARABLE}


def pool(results):
    """Several recordings' analyses as one (several people, several sessions): each trial is
    already measured against its own recording's noise, so the held and gone statistics pool as
    they are; the overlap and the verdict are taken on all of them."""
    held = [v for r in results for v in r["held"]]
    gone = [v for r in results for v in r["gone"]]
    share = overlap(held, gone)
    return {"noise_g": None, "trials": [t for r in results for t in r["trials"]], "held": held,
            "gone": gone, "overlap": share, "separable": share <= SEPARABLE, "recordings": len(results)}


def report(res):
    """The analysis as lines for a person (pooled ones: the verdict only)."""
    if res.get("recordings"):
        return verdict(res)
    out = [f"the nest alone: noise {res['noise_g']:.3f} g rms",
           "| trial | held ms | held g | egg g | held / noise | gone / noise | |",
           "|---|---|---|---|---|---|---|"]

    def f(v, spec):
        return "-" if v is None else format(v, spec)
    for i, r in enumerate(res["trials"], start=1):
        out.append(f"| {i} | {r['hold_ms']} | {f(r.get('held_g'), '.2f')} | {f(r.get('egg_g'), '.2f')} "
                   f"| {f(r['held'], '.2f')} | {f(r['gone'], '.2f')} | {r['skip'] or ''} |")
    return out + verdict(res)


def verdict(res):
    """What the trials say: the overlap of held and gone, and whether the wait could be shorter."""
    out = []
    n = len(res["held"])
    if res.get("recordings"):
        out.append(f"{res['recordings']} recordings pooled: {n} trials measured")
    calm = int(round(res["overlap"] * n))
    out.append(f"median held {median(res['held']):.2f}, gone {median(res['gone']):.2f} (1 is the "
               f"noise alone); holds as calm as the calmer half of the gone hands: {calm} of {n} "
               f"({100 * res['overlap']:.0f} %)")
    if res["separable"]:
        out.append("these still hands are told apart from a gone hand: a shorter calm could be "
                   "tried on them (docs/weigher.md, \"The still-hand limit\"); please share the trace and "
                   "its .holds.json")
    else:
        out.append("as on the nest models, a still hand looks like no hand on this nest: the weigher's "
                   "0.5 s calm stays (docs/weigher.md, \"The still-hand limit\")")
    if n < 10:
        out.append(f"({n} trials: too few to go by; 10 or more, with several people, say more)")
    return out


def plot(samples, res, out):
    """A picture of the drill: each trial's weight over time, the stretch of the hold that was
    judged and the calm after the lift shaded, with their statistics. Needs matplotlib (not among
    the nest tool's runtime needs: NestError saying so)."""
    try:
        import matplotlib
    except ImportError:
        raise NestError("--plot needs matplotlib (pip install matplotlib)", status=2) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trials = res["trials"]
    cols = min(4, len(trials))
    rows = (len(trials) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for ax in axes.flat[len(trials):]:
        ax.axis("off")
    for n, (ax, r) in enumerate(zip(axes.flat, trials), start=1):
        a, b = r["still"] - 1000, r["away"] + 300
        span = [(t, g) for t, g, *_ in samples if a <= t <= b]
        ax.plot([(t - r["let_go"]) / 1000 for t, _ in span], [g for _, g in span], lw=0.8, color="k")
        ax.axvspan(-HOLD_MS / 1000, 0, color="tab:orange", alpha=0.3, label="hold judged")
        if r.get("gone_at") is not None:
            g0 = (r["gone_at"] - r["let_go"]) / 1000
            ax.axvspan(g0 + AFTER_MS[0] / 1000, g0 + AFTER_MS[1] / 1000, color="tab:blue", alpha=0.3,
                       label="calm after the lift")
        held = "-" if r["held"] is None else f"{r['held']:.1f}"
        gone = "-" if r["gone"] is None else f"{r['gone']:.1f}"
        ax.set_title(f"trial {n}: held {held}, gone {gone} x noise" if not r["skip"] else
                     f"trial {n}: {r['skip'][:40]}", fontsize=8)
        ax.set_xlabel("s from letting go", fontsize=8)
        ax.tick_params(labelsize=7)
    axes.flat[0].set_ylabel("grams")
    axes.flat[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"still-hand drill: holds as calm as the calmer half of the gone hands "
                 f"{100 * res['overlap']:.0f} % (noise {res['noise_g']:.3f} g rms)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
