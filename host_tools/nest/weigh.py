"""Load-cell traces on the host: read and check a trace file, run the device's weigher over it.

A trace is CSV with the header `t_ms,grams` (or `t_ms,grams,pole`, or `t_ms,grams,pole,demand`),
one HX711 sample per row, starting with the full nest at rest: `t_ms` an integer that never goes
back, `grams` a finite number, `pole` 1 (seated) or 0 when the reed switch was recorded too,
`demand` the colour the game demanded with the sample (empty: none), as `nest diag --record`
writes what the board's weigher was told.
"""

import math

from gulo.turnflow import AFTER_HAND_MS, MOVING_MAX_MS, egg_back
from gulo.weigher import DEFAULT_MASSES, POLE_G, Weigher
from nest.errors import NestError


def parse_masses(text):
    """`G=10,P=12,...` -> masses dict (the defaults for colours not given)."""
    masses = dict(DEFAULT_MASSES)
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        colour, sep, value = part.partition("=")
        colour = colour.strip().upper()
        if not sep or colour not in DEFAULT_MASSES:
            raise NestError(f"--masses: {part!r} is not COLOUR=GRAMS with COLOUR one of "
                            f"{' '.join(DEFAULT_MASSES)}", status=2)
        try:
            g = float(value)
        except ValueError:
            raise NestError(f"--masses: {part!r}: {value.strip()!r} is not a number", status=2) from None
        if not (math.isfinite(g) and 0 < g < 1000):
            raise NestError(f"--masses: {part!r}: a mass must be between 0 and 1000 g", status=2)
        masses[colour] = g
    return masses


HEADERS = (["t_ms", "grams"], ["t_ms", "grams", "pole"], ["t_ms", "grams", "pole", "demand"])


def read_trace(path):
    """Read a trace file -> [(t_ms, grams, pole or None), ...]; NestError naming FILE:LINE."""
    return read_recording(path)[0]


def read_recording(path):
    """Read a trace file -> (samples as read_trace gives them, the demand with each sample or
    None when the trace has no demand column)."""
    try:
        f = open(path, encoding="utf-8", newline="")
    except OSError as e:
        raise NestError(f"{path}: cannot read: {e.strerror}", status=2) from None
    samples = []
    with f:
        try:
            lines = f.read().splitlines()
        except UnicodeDecodeError:
            raise NestError(f"{path}: not a text file (UTF-8 CSV expected)", status=2) from None
    if not lines:
        raise NestError(f"{path}:1: empty file, expected the header t_ms,grams", status=2)
    header = [h.strip() for h in lines[0].lstrip("\ufeff").split(",")]
    if header not in HEADERS:
        raise NestError(f"{path}:1: header must be t_ms,grams (or t_ms,grams,pole or "
                        f"t_ms,grams,pole,demand), got {lines[0]!r}", status=2)
    ncol = len(header)
    demands = [] if ncol == 4 else None
    last_t = None
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        where = f"{path}:{n}"
        if len(cells) != ncol:
            raise NestError(f"{where}: expected {ncol} values ({','.join(header)}), got {len(cells)}",
                            status=2)
        try:
            t = int(cells[0])
        except ValueError:
            raise NestError(f"{where}: t_ms {cells[0]!r} is not an integer", status=2) from None
        try:
            g = float(cells[1])
        except ValueError:
            raise NestError(f"{where}: grams {cells[1]!r} is not a number", status=2) from None
        if not math.isfinite(g) or abs(g) > 1e6:
            raise NestError(f"{where}: grams {cells[1]!r} is not a plausible reading", status=2)
        if last_t is not None and t < last_t:
            raise NestError(f"{where}: t_ms {t} goes back in time (previous {last_t})", status=2)
        pole = None
        if ncol >= 3:
            if cells[2] not in ("0", "1"):
                raise NestError(f"{where}: pole must be 1 (seated) or 0, got {cells[2]!r}", status=2)
            pole = cells[2] == "1"
        if demands is not None:
            if cells[3] and cells[3] not in DEFAULT_MASSES:
                raise NestError(f"{where}: demand must be a colour ({' '.join(DEFAULT_MASSES)}) or empty, "
                                f"got {cells[3]!r}", status=2)
            demands.append(cells[3] or None)
        last_t = t
        samples.append((t, g, pole))
    if not samples:
        raise NestError(f"{path}:2: no samples after the header", status=2)
    return samples, demands


# The two settings' real rates (docs/weigher.md, sample rate: measured chips, internal oscillator):
# "10 SPS" gives 10-12 samples/s, "80 SPS" 86-94/s. A rate well between them is neither: conversions
# are being missed (a busy board, a host under load for the virtual one), and no setting is to blame.
SLOW_SPS = 14   # at most this: the "10 SPS" setting
FAST_SPS = 70   # at least this: the "80 SPS" setting
RATE_DOC = 'firmware/HARDWARE.md, section "HX711 rate: 10 or 80 samples per second"'


def rate_advice(sps):
    """What the measured HX711 rate means for the game: one line (two at 10 SPS)."""
    if not sps:
        return "HX711 rate not measured yet"
    line = f"HX711 rate {sps:.0f} samples/s"
    if sps >= FAST_SPS:
        return line + " (the 80 SPS setting)"
    if sps > SLOW_SPS:
        return (line + ": neither setting's rate (10-12 or 86-94/s), so conversions are being missed "
                "(the board busy for a while); it is measured again as it runs")
    return (line + " (the 10 SPS setting): the game is right but slower, each egg is decided about "
            "0.05-0.15 s later (docs/weigher.md); to switch the board to 80 SPS see " + RATE_DOC)


def load_weigher(path):
    """The Weigher class of another copy of gulo/weigher.py (e.g. `git show REV:...`), to compare."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("weigher_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Weigher


def weigher_at(rev):
    """The Weigher class of firmware/gulo/weigher.py at git revision `rev` of this repository (to
    compare a change with what came before it)."""
    import subprocess
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    src = subprocess.run(["git", "show", f"{rev}:firmware/gulo/weigher.py"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "weigher_old.py"
        path.write_text(src)
        return load_weigher(path)


def make_weigher(masses=None, pole_g=POLE_G):
    try:
        return Weigher(masses=masses, pole_g=pole_g)
    except ValueError as e:
        raise NestError(f"--masses: {e}", status=2) from None


class Judging:
    """The game's judging of one egg the weigher said out (gulo.turnflow's CONFIRM), followed
    from the weigher alone: until the attempt ends (AFTER_HAND_MS after the calm that decided it
    began, as the weigher sees it `lag_ms` later, and on while the nest moves, at most
    MOVING_MAX_MS more), the egg back alone takes the verdict back (gulo.turnflow.egg_back).
    feed() after each sample: True once taken back, False once the game has acted, None while it
    still judges; `follow` carries one along a replay."""

    def __init__(self, weigher, event):
        self.w = weigher
        self.event = event
        self.out = weigher.out
        self.end = weigher.t_calm + AFTER_HAND_MS + weigher.lag_ms()

    def feed(self, t_ms, pole_seated=True):
        w = self.w
        if not pole_seated:
            return False            # the pole's alarm: the game has acted
        if egg_back(w, self.event["colour"], self.out):
            return True
        if t_ms >= self.end and (w.at_rest or t_ms >= self.end + MOVING_MAX_MS):
            return False
        return None


def follow(judging, weigher, ev, t_ms, pole_seated=True):
    """After each sample (`ev` its event or None): the egg the game is judging now (a Judging, or
    None), with what it took back marked "put_back": true (and a `full` said as it came back)."""
    if ev is not None and "out" in ev:
        return Judging(weigher, ev) if ev["out"] == 1 else None
    if judging is None:
        return None
    back = judging.feed(t_ms, pole_seated)
    if back:
        judging.event["put_back"] = True
        if ev is not None:
            ev["put_back"] = True    # the full nest again, as that egg came back
    return judging if back is None else None


def replay(samples, masses=None, pole_g=POLE_G, demands=None):
    """Run the weigher over samples, told the pole and (`demands`: one per sample) the demanded
    colour as the board told it; returns its events (dicts, as the device prints them), an egg
    the game took back (put back before its attempt ended: `Judging`) marked "put_back": true,
    and so is a `full` said as it came back."""
    w = make_weigher(masses, pole_g)
    events = []
    told = None
    judging = None
    for i, (t, g, pole) in enumerate(samples):
        if pole is not None:
            w.set_pole(pole)
        if demands is not None and demands[i] != told:   # on a change only, as gulo.turnflow tells it
            told = demands[i]
            w.set_demand(told)
        ev = w.feed(t, g)
        if ev is not None:
            events.append(ev)
        judging = follow(judging, w, ev, t, pole is not False)
    return events


# ---- a recording scored against its truth ------------------------------------------------------
# The truth of a recording, written by hand (docs/weigher.md, "Recording a real trace"): JSON
# {"steps": [...]}, what happened at the nest in order, each step one string:
#   "Y"       one egg (its colour letter) left in an attempt
#   "G+R"     two or more eggs left in one attempt (their colours; the game calls the alarm)
#   "touch"   a hand touched the nest (or the pole was knocked) and nothing left
#   "back"    every egg was put back
# A step may end in "@T_MS": the recording's t_ms at which the hand had left (for the verdict's
# time). The weigher's events are matched to the steps in order (the fewest misses), so no times
# are needed to score.
STEP_KINDS = ("touch", "back")


def read_truth(path, masses=None):
    """A truth file -> [(kind, colours, t_ms or None)]: kind "out", "touch" or "back"."""
    import json

    colours = set(masses or DEFAULT_MASSES)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise NestError(f"{path}: cannot read: {e.strerror}", status=2) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise NestError(f"{path}: not JSON: {e}", status=2) from None
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list) or not steps:
        raise NestError(f'{path}: expected {{"steps": ["Y", "G+R", "touch", "back", ...]}}', status=2)
    out = []
    for n, step in enumerate(steps, start=1):
        where = f"{path}: step {n}"
        if not isinstance(step, str):
            raise NestError(f"{where}: {step!r} is not a string", status=2)
        what, _, at = step.strip().partition("@")
        t = None
        if at:
            try:
                t = int(at)
            except ValueError:
                raise NestError(f"{where}: {step!r}: the time after @ must be whole ms", status=2) from None
        if what in STEP_KINDS:
            out.append((what, (), t))
            continue
        eggs = tuple(c.strip().upper() for c in what.split("+"))
        bad = [c for c in eggs if c not in colours]
        if bad:
            raise NestError(f"{where}: {step!r}: {bad[0]!r} is not a colour ({' '.join(sorted(colours))}) "
                            f"nor one of {', '.join(STEP_KINDS)}", status=2)
        out.append(("out", eggs, t))
    return out


def _fits(step, evs):
    """Are `evs` (consecutive events) exactly what `step` asks for?"""
    kind, eggs, _ = step
    if kind == "touch":
        return not evs
    if kind == "back":
        return len(evs) == 1 and evs[0].get("full") is True
    if len(eggs) == 1:
        return len(evs) == 1 and evs[0].get("out") == 1 and evs[0].get("colour") == eggs[0]
    if not evs:
        return False
    left = list(eggs)
    for e in evs:
        if e.get("out") == 1:
            if e.get("colour") not in left:
                return False
            left.remove(e["colour"])
        elif e.get("out") != 2:
            return False
    return not left or any(e.get("out") == 2 for e in evs)


def score_truth(events, steps):
    """The events matched to the truth's steps in order with the fewest misses (a step not as
    asked costs one, an event no step owns costs one); an egg the game took back ("put_back") is
    no event. Returns {"steps", "right", "wrong": [(step number, step, its events)], "false":
    [events], "latency": [ms after the step's @time], "put_back": how many were taken back}."""
    taken_back = sum(1 for e in events if e.get("put_back") and "out" in e)
    events = [e for e in events if not e.get("put_back")]
    n, m = len(steps), len(events)
    most = 1 + max((len(s[1]) for s in steps), default=1)
    inf = n + m + 1
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    how = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0
    for i in range(n + 1):
        for j in range(m + 1):
            c = cost[i][j]
            if c == inf:
                continue
            if j < m and c + 1 < cost[i][j + 1]:          # event j is false
                cost[i][j + 1], how[i][j + 1] = c + 1, (i, j, None)
            if i < n:
                for k in range(0, min(most, m - j) + 1):   # step i owns events j..j+k-1
                    d = c + (0 if _fits(steps[i], events[j:j + k]) else 1)
                    if d < cost[i + 1][j + k]:
                        cost[i + 1][j + k], how[i + 1][j + k] = d, (i, j, k)
    res = {"steps": n, "right": 0, "wrong": [], "false": [], "latency": [], "put_back": taken_back}
    i, j = n, m
    while (i, j) != (0, 0):
        pi, pj, k = how[i][j]
        if k is None:
            res["false"].append(events[pj])
        else:
            evs = events[pj:pj + k]
            if _fits(steps[pi], evs):
                res["right"] += 1
                if evs and steps[pi][2] is not None:
                    res["latency"].append(evs[0]["t_ms"] - steps[pi][2])
            else:
                res["wrong"].append((pi + 1, steps[pi], evs))
        i, j = pi, pj
    res["wrong"].reverse()
    res["false"].reverse()
    return res


def truth_steps(world_events, merge_ms=1000):
    """A model's ground truth (nest.world's events) as the steps a truth file holds: eggs leaving
    within merge_ms of each other are one attempt (as the game judges), their step timed at the
    last one."""
    steps = []
    last = None
    for e in sorted(world_events, key=lambda e: e["t_ms"]):
        if e["what"] == "out":
            if last is not None and e["t_ms"] - last[1] <= merge_ms:
                last[0].append(e["colour"])
                last[1] = e["t_ms"]
                continue
            last = [[e["colour"]], e["t_ms"]]
            steps.append(last)
        elif e["what"] == "back" and e.get("eggs"):
            last = None
            steps.append(f"back@{e['t_ms']}")
    return [s if isinstance(s, str) else f"{'+'.join(s[0])}@{s[1]}" for s in steps]
