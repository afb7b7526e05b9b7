"""`nest diag [--record FILE.csv] [--seconds N]`: a live view of the nest's sensors.

The board streams every load-cell sample (`{"cmd":"stream","on":true}` -> `{"ev":"sample",...}`
lines, about 40 bytes x 80 SPS = 28 % of a 115200 line) and answers `sensors` twice a second
(at rest, noise, pole, HX711 state); verdicts, button actions and the phase come from its events.
Five times a second it answers `io`: the six buttons' debounced states and the LED strip as the
board last wrote it (RGB hex, brightness-capped), shown as coloured blocks (docs/console-tools.md
has the line budget of it all).

On a terminal the view is redrawn in place with rich.live (already installed with the host
tools): it repaints only what changed without flicker and copes with resizes, which a hand-made
ANSI loop would have to reimplement. Off a terminal (a pipe, a test) one status line and one LED
line per second; the LED line gives each LED as a colour letter (see `LETTERS`) and as the exact
hex the board holds.
`--record` writes every sample as CSV `t_ms,grams,pole,demand` (what the board's weigher was told
with it: the trace replays as the board weighed it), the format `nest weigh --replay` reads; a
board whose samples do not say it gives `t_ms,grams`.
`--holds N` (with `--record`) guides N still-hand trials instead of the view, marks each step with
the board time of the newest sample when Enter is pressed, and measures them (nest.holdstudy).
"""

import collections
import os
import sys
import time

from gulo import ledview
from gulo.clock import WRAP
from gulo.vocab import (
    BUTTONS,  # the console's names, in the panel's order
    EGG_COLOURS,
)
from nest.boardconsole import open_console
from nest.boardtrust import plain
from nest.cmd_monitor import describe
from nest.errors import NestError
from nest.weigh import rate_advice

SPARK = "▁▂▃▄▅▆▇█"
SPARK_S = 4.0      # seconds of weight in the sparkline
PERIOD_MS = WRAP + 1   # the board's clock wraps here
SENSORS_S = 0.5    # how often the at-rest / noise / pole figures are asked for
IO_S = 0.2         # how often the buttons and the LEDs are asked for (`io`, ~300 bytes an answer)
# Colour letters of the plain LED line, at full scale, from the firmware's own LED view: the game's
# eggs and tiles, white (Gulo 1's colour, near the actor's blink), amber (waiting for the pole or
# the eggs), cyan (Gulo 3's status colour).
LETTERS = {**{c: ledview.COLOURS[c] for c in EGG_COLOURS},
           "W": ledview.GULOS[0], "A": ledview.AMBER, "C": ledview.GULOS[2]}
DIM = 40           # below this full-scale level an LED is a glow ("-") or off (".")
SILENT_S = 5.0     # the drill's stream silent this long: the board stopped sending (at 10 SPS a
                   # sample comes every 100 ms; a board's reset and boot take longer than this)


def add_parser(sub):
    p = sub.add_parser("diag", help="live view of weight, stability, verdicts, pole, buttons, LEDs",
                       description="A live view of the running nest: weight with a sparkline of the "
                                   "last seconds, stability (at rest, noise), the weigher's verdicts, "
                                   "the pole, the phase, the buttons (pressed ones highlighted) and the "
                                   "LED strip as the board drives it. Ctrl-C ends it.")
    p.add_argument("--port", help="serial port (default: the single board found)")
    p.add_argument("--record", metavar="FILE.csv",
                   help="write every sample as CSV t_ms,grams (what `nest weigh --replay` reads)")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--holds", type=int, metavar="N",
                   help="instead of the view: guide N trials of an egg held half-lifted and still, "
                        "Enter at each step, then measure whether a still hand is told from a gone one "
                        "(needs --record; the marks go to FILE.csv.holds.json)")
    return p


def leds_rgb(io):
    """The `io` answer's LEDs as [(r, g, b), ...] as the board drives them (0..cap)."""
    raw = bytes.fromhex(io["leds"])
    return [tuple(raw[i:i + 3]) for i in range(0, len(raw) - 2, 3)]


def full_scale(rgb, cap):
    """A brightness-capped colour scaled back to 0..255 (what the colour means, not its power)."""
    return tuple(min(255, c * 255 // cap) for c in rgb) if cap else tuple(rgb)


def letter(rgb, cap):
    """One character for an LED: "." off, "-" a faint glow, else the nearest LETTERS colour."""
    full = full_scale(rgb, cap)
    if max(full) < DIM:
        return "-" if max(rgb) else "."
    norm = _norm(full)  # compare hues, not levels: a breathing LED is still G
    return min(LETTERS, key=lambda k: sum((a - b) ** 2 for a, b in zip(norm, _norm(LETTERS[k]))))


def _norm(rgb):
    top = max(rgb)
    return [c * 255 / top for c in rgb]


def leds_plain(io):
    """The plain LED line: a colour letter per LED, then every LED's hex as the board holds it."""
    if not io.get("leds"):
        return "leds     ?"
    px = leds_rgb(io)
    letters = "".join(letter(p, io.get("cap", 255)) for p in px)
    return f"leds     {letters}  {' '.join(io['leds'][i:i + 6] for i in range(0, len(io['leds']), 6))}"


def buttons_plain(io):
    """The buttons in the panel's order, pressed ones in [brackets]."""
    states = io.get("buttons")
    if not states:
        return "buttons  ?"
    return "buttons  " + " ".join(f"[{b}]" if states.get(b) else b for b in BUTTONS)


def sparkline(values, width=60):
    """The values (oldest first) as a row of block characters scaled to their own range."""
    if not values:
        return ""
    step = max(1, len(values) // width)
    pts = [sum(values[i:i + step]) / len(values[i:i + step]) for i in range(0, len(values), step)][-width:]
    lo, hi = min(pts), max(pts)
    span = hi - lo if hi - lo > 0.05 else 0.05  # a quiet scale stays a flat line, not amplified noise
    return "".join(SPARK[min(len(SPARK) - 1, int((v - lo) / span * (len(SPARK) - 1) + 0.5))] for v in pts)


class View:
    """What the diag screen shows, updated from the board's lines."""

    def __init__(self):
        self.samples = collections.deque()  # (t_ms, grams) of the last SPARK_S seconds
        self.count = 0
        self.sensors = {}
        self.phase = None
        self.verdicts = collections.deque(maxlen=5)
        self.buttons = collections.deque(maxlen=3)
        self.last_event = ""
        self.io = {}     # the last `io` answer: buttons and LEDs ({} before the first)
        self._last_t = None
        self._wraps = 0

    def board_ms(self, t_ms):
        """A sample's time (the board's clock, which wraps at 2**30 ms: gulo.clock) as a count that
        never wraps, so a view or a recording that spans the wrap (12.4 days after boot) goes on
        in order."""
        if self._last_t is not None and t_ms < self._last_t - PERIOD_MS // 2:
            self._wraps += 1
        self._last_t = t_ms
        return t_ms + self._wraps * PERIOD_MS

    def sample(self, t_ms, g):
        self.count += 1
        self.samples.append((t_ms, g))
        while self.samples and self.samples[0][0] < t_ms - SPARK_S * 1000:
            self.samples.popleft()

    def event(self, ev):
        note = ev.get("note") or {}
        text = plain(describe(ev)[0])  # the board's words: control characters shown, never obeyed
        stamp = time.strftime("%H:%M:%S")
        if "nest" in note:
            self.verdicts.append(f"{stamp} {text}")
        elif "phase" in note:
            self.phase = note["phase"]
        elif ev.get("ev") == "action" or "refused" in note or "menu" in note:
            self.buttons.append(f"{stamp} {text}")
        if ev.get("ev") != "state":
            self.last_event = f"{stamp} {text}"

    def lines(self):
        s = self.sensors
        g = self.samples[-1][1] if self.samples else None
        vals = [v for _, v in self.samples]
        spread = (max(vals) - min(vals)) if vals else 0.0
        rest = "at rest" if s.get("at_rest") else "moving"
        noise = s.get("noise_g")
        pole = {True: "seated", False: "OUT", None: "?"}[s.get("pole_seated")]
        return [
            f"weight   {g:9.2f} g   ({spread:.2f} g span over {SPARK_S:g} s, {self.count} samples)"
            if g is not None else "weight   (no sample yet)",
            f"         {sparkline(vals)}",
            f"stable   {rest}, noise {'?' if noise is None else f'{noise:.3f}'} g, "
            f"HX711 {s.get('hx711', '?')}, nest {s.get('nest', '?')}; {rate_advice(s.get('sps'))}",
            f"pole     {pole}      phase {self.phase or '?'} (what the LEDs show)",
            "verdicts " + (" | ".join(self.verdicts) or "-"),
            buttons_plain(self.io),
            leds_plain(self.io),
            "actions  " + (" | ".join(self.buttons) or "-"),  # what the presses did
            "last     " + (self.last_event or "-"),
        ]

    def rich(self):
        """The view for a terminal: the plain lines with the pressed buttons highlighted and the
        LED strip as blocks in their colours (scaled back from the cap, or they would look dark)."""
        from rich.text import Text

        out = Text()
        for line in self.lines():
            if line.startswith("buttons  ") and self.io.get("buttons"):
                out.append("buttons  ")
                for b in BUTTONS:
                    if self.io["buttons"].get(b):
                        out.append(f" {b} ", style="bold black on bright_yellow")
                    else:
                        out.append(f" {b} ", style="dim")
                    out.append(" ")
            elif line.startswith("leds     ") and self.io.get("leds"):
                out.append("leds     ")
                cap = self.io.get("cap", 255)
                for i, p in enumerate(leds_rgb(self.io)):
                    r, g, b = full_scale(p, cap)
                    out.append("██" if max(p) else "··", style=f"rgb({r},{g},{b})" if max(p) else "dim")
                    if i == len(self.io["leds"]) // 6 - 3:  # path | deck | status
                        out.append(" ")
                    elif i == len(self.io["leds"]) // 6 - 2:
                        out.append(" ")
            else:
                out.append(line)
            out.append("\n")
        out.rstrip()
        return out


def run(args):
    if args.holds is not None:
        if not 1 <= args.holds <= 50:
            raise NestError(f"--holds {args.holds}: give 1 to 50 trials", status=2)
        if not args.record:
            raise NestError("--holds needs --record FILE.csv: the trials are kept there", status=2)
    record = None
    if args.record:
        try:
            record = Recording(open(args.record + ".tmp", "w", encoding="utf-8"))
        except OSError as e:
            raise NestError(f"{args.record}: cannot write: {e.strerror}", status=2) from None
    view = View()
    tty = sys.stdout.isatty() and args.holds is None   # the drill prints its prompts plainly
    live = None
    marks = {"rest": None, "trials": []}   # the drill's, kept whatever ends it (Ctrl-C, stdin closed)
    try:
        with open_console(args) as con:
            st = con.request("status")
            view.phase = st.get("phase")
            told = con.request("stream", on=True).get("told") is True
            if record is not None:
                record.start(told)
            try:
                if tty:
                    from rich.live import Live
                    from rich.text import Text

                    live = Live(Text(""), refresh_per_second=8, transient=False)
                    live.start()
                if args.holds is not None:
                    _holds(con, args.holds, view, record, marks)
                else:
                    _loop(con, args, view, record, live)
            except KeyboardInterrupt:
                pass
            finally:
                try:
                    con.request("stream", on=False, check=False, timeout=2.0)
                except NestError:
                    pass   # the board is gone (reset, unplugged): no stream to switch off, and
                    #        the error that ended the view (or the drill) is the one to tell
    finally:
        if live is not None:
            live.stop()
        if record is not None:
            record.close()
            os.replace(args.record + ".tmp", args.record)
        if marks["trials"]:   # whatever ended the drill, the trials done are kept with the trace
            from nest.holdstudy import write_marks

            write_marks(args.record, marks)
    if args.record:
        print(f"recorded {view.count} samples to {args.record}")
    if marks["trials"]:
        from nest.holdstudy import analyse, report
        from nest.weigh import read_trace

        print(f"marks written to {args.record}.holds.json")
        for line in report(analyse(read_trace(args.record), marks)):
            print(line)
    return 0


def _sample(ev, view, record):
    """A streamed sample: into the view, and into the trace being recorded (if any), its time
    unwrapped (the drill's marks read it from `ev` too)."""
    ev["t_ms"] = view.board_ms(ev["t_ms"])
    view.sample(ev["t_ms"], ev["g"])
    if record is not None:
        record.write(ev)


class Recording:
    """The trace `--record` writes. A board that says what its weigher was told with each sample
    (the stream's answer has "told") gives the columns pole and demand too: `nest weigh --replay`
    tells its weigher the same, so the replay's events are the board's."""

    def __init__(self, file):
        self.file = file
        self.told = None

    def start(self, told):
        self.told = told
        self.file.write("t_ms,grams,pole,demand\n" if told else "t_ms,grams\n")

    def write(self, ev):
        if self.told is None:
            return   # no header yet: the stream was not switched on
        row = f"{ev['t_ms']},{ev['g']:.2f}"
        if self.told:
            row += f",{0 if ev.get('pole') == 0 else 1},{ev.get('demand') or ''}"
        self.file.write(row + "\n")

    def close(self):
        self.file.close()


def _holds(con, n, view, record, marks):
    """The still-hand drill (nest.holdstudy): the nest alone for REST_MS, then n trials of its
    STEPS, each step ended by a line on stdin and stamped with the newest sample's board time.
    Fills `marks` with each trial as it is done (a trial cut short is left out)."""
    import queue
    import threading

    from nest.holdstudy import REST_MS, STEPS

    lines = queue.Queue()

    def read_stdin():
        for line in sys.stdin:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read_stdin, daemon=True).start()
    newest = [None, None, time.monotonic()]   # the first and the newest sample's t_ms; when it came

    def pump():
        for ev in con.events(0.02):
            if ev.get("ev") == "sample":
                _sample(ev, view, record)
                newest[0] = ev["t_ms"] if newest[0] is None else newest[0]
                newest[1], newest[2] = ev["t_ms"], time.monotonic()
        if time.monotonic() - newest[2] > SILENT_S:
            raise NestError(f"no sample from the board for {SILENT_S:g} s: the stream stopped "
                            f"(a reset, a cable?); {len(marks['trials'])} trials kept")

    print(f"leave the nest alone for {REST_MS / 1000:g} s: its noise is measured", flush=True)
    while newest[0] is None or newest[1] - newest[0] < REST_MS:
        pump()
    while not lines.empty():   # Enter pressed ahead of time counts for nothing
        lines.get()
    marks["rest"] = [newest[0], newest[1]]
    for i in range(1, n + 1):
        trial = {}
        for key, text in STEPS:
            print(f"trial {i}/{n}: {text}", flush=True)
            while lines.empty():
                pump()
            if lines.get() is None:
                print(f"stdin closed in trial {i}: the {i - 1} trials before it are kept", flush=True)
                return
            pump()   # the newest sample at the press
            trial[key] = newest[1]
        marks["trials"].append(trial)


def _loop(con, args, view, record, live):
    end = None if args.seconds is None else time.monotonic() + args.seconds
    next_sensors = 0.0
    next_io = 0.0
    has_io = True
    next_print = time.monotonic() + 1.0
    while end is None or time.monotonic() < end:
        now = time.monotonic()
        if now >= next_sensors:
            view.sensors = con.request("sensors")
            next_sensors = now + SENSORS_S
        if has_io and now >= next_io:
            io = con.request("io", check=False)
            if io.get("ok"):
                view.io = io
            else:  # firmware older than the io command: the rest of the view still works
                has_io = False
                view.last_event = f"no buttons/LEDs: the board says {io.get('error')} (nest deploy)"
            next_io = now + IO_S
        for ev in con.events(0.05):
            if ev.get("ev") == "sample":
                _sample(ev, view, record)
            elif "re" not in ev:
                view.event(ev)
        if live is not None:
            live.update(view.rich())
        elif time.monotonic() >= next_print:
            lines = view.lines()
            print(" | ".join(" ".join(lines[i].split()) for i in (0, 2, 3, 5)), flush=True)
            print(lines[6], flush=True)
            next_print += 1.0
