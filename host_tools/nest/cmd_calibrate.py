"""`nest calibrate`: a guided wizard that calibrates the scale and the egg classes on the board.

It drives the firmware's calibration steps over the console (gulo.calibration): start (the game's
verdicts pause), tare, calibrate with a known weight, each colour's eggs weighed, the separability
check, the per-egg check, done (saved atomically on the board and applied live).

Each colour's eggs go onto the bowl one at a time and the scale is read after each: the board's
`egg` step with count=k gives the mean of the k eggs on the bowl, so egg k weighs
k * mean_k - (k - 1) * mean_(k-1), and the last reading (all of them) is the colour's class mass.
An egg further than egg_tolerance_g() from its colour's median egg is named (the median, so that
the odd egg does not drag its own yardstick), and nothing is saved until it is fixed
(re-ballasted, enclosure/ASSEMBLY.md) and its colour weighed again. The eggs are checked before
the classes' separability (an odd egg is the likelier cause of classes too close), but only when
the colours' medians are at least the board's floor gap apart: if even they are too close, the
yardstick (half their narrowest gap) means nothing and the classes are what is wrong
(odd_eggs_to_name).
A bring-up builds the scale before the eggs: `--scale` tares and takes the known weight only and
saves them (the egg masses stay as they were), `--eggs` tares and weighs the eggs only (the scale
factor saved before stays). An answer that is not one (`abc` for grams, `x` for a colour) and a
measurement the board refuses (a hand on the bowl, no weight seen) are said and asked again, so a
typo never costs the tare. Anything else that goes wrong on the way (Ctrl-C, end of input, the
connection) cancels the session, so the board keeps its old values.
"""

from statistics import median

from gulo.calibration import check_masses
from gulo.weigher import Weigher
from nest.boardconsole import open_console
from nest.errors import NestError

COLOURS = (("G", "green", 5), ("P", "purple", 2), ("Y", "yellow", 5), ("R", "red", 5), ("B", "blue", 5))
NAMES = {c: n for c, n, _ in COLOURS}
MEASURE_S = 12.0  # the board gives up after 6 s of an unsteady scale; this only catches silence
# A reference above the cell's rated load could bend it past its safe overload (120 % of the rated
# 1 kg, TAL220 data sheet; enclosure/params.py CELL_CAPACITY_G).
MAX_REFERENCE_G = 1000.0


def add_parser(sub):
    p = sub.add_parser("calibrate", help="guided calibration: tare, known weight, egg masses",
                       description="Calibrate the nest on the board step by step: tare the empty "
                                   "bowl, a known weight, then each colour's eggs; the classes must "
                                   "be separable before anything is saved.")
    p.add_argument("--port", help="serial port (default: the single board found)")
    part = p.add_mutually_exclusive_group()
    part.add_argument("--scale", action="store_true",
                      help="only tare and the known weight, and save them; the egg masses stay as "
                           "they are (bring-up, before the eggs are made)")
    part.add_argument("--eggs", action="store_true",
                      help="only tare and the eggs; the scale factor saved before stays")
    return p


def egg_tolerance_g(masses):
    """How far one egg may lie from its colour's mean: half the weigher's class tolerance
    (gulo.weigher.Weigher.tolerance_g: half the narrowest gap between the classes, at most
    1.5 g; 1.0 g for the default masses). The other half is left to the scale's noise, creep and
    the bowl's ringing, which the weigher must also absorb."""
    return Weigher(masses).tolerance_g() / 2


def odd_eggs(eggs, masses):
    """[(colour, number, grams, median)] of the eggs out of tolerance; eggs: {colour: [grams...]},
    masses: the classes' means (they set the tolerance)."""
    tol = egg_tolerance_g(masses)
    out = []
    for c, each in eggs.items():
        mid = median(each)
        out += [(c, i + 1, g, mid) for i, g in enumerate(each) if abs(g - mid) > tol]
    return out


def odd_eggs_to_name(eggs):
    """(odd eggs as odd_eggs gives them, the yardstick's masses): the eggs judged against their
    colours' medians, if those are at least the board's floor gap apart
    (gulo.calibration.check_masses at zero noise: MIN_GAP_G); else no egg is named and the
    board's own check, at its measured noise, speaks. Without that gate colours only a few
    hundredths of a gram apart gave a yardstick of almost nothing, and whether the eggs or the
    classes got the blame hung on the scale's noise. The gate leaves the noise out so that the
    eggs' verdict does not hang on it either."""
    yard = {c: median(each) for c, each in eggs.items()}
    if not check_masses(yard, 0.0)["ok"]:
        return [], yard
    return odd_eggs(eggs, yard), yard


class Retry(ValueError):
    """An answer that cannot be used: said, and the question asked again."""


class Wizard:
    def __init__(self, con, ask=input, say=print):
        self.con = con
        self.ask = ask
        self.say = say

    def prompt(self, text, default=None, parse=None):
        """The answer (the default for an empty one); with `parse`, its value: an answer `parse`
        rejects (ValueError) is said and the question asked again."""
        while True:
            try:
                answer = self.ask(text + (f" [{default}]" if default is not None else "") + ": ").strip()
            except EOFError:
                raise NestError("calibration abandoned: input ended (nothing saved)") from None
            answer = answer or ("" if default is None else str(default))
            if parse is None:
                return answer
            try:
                return parse(answer)
            except ValueError as e:
                self.say(f"  {e}: try again")

    def measure(self, cmd, **fields):
        """The board's answer to one measurement; a refusal (the scale did not settle, no weight
        seen) is said and, on Enter, measured again."""
        while True:
            self.say("  measuring: keep hands off the bowl ...")
            answer = self.con.request(cmd, timeout=MEASURE_S, check=False, **fields)
            if answer.get("ok"):
                return answer
            self.say(f"  the board refused: {answer.get('error')}")
            if self.prompt("  Put it right and press Enter to measure again, or q to give up").lower() == "q":
                raise NestError(f"calibration abandoned: {answer.get('error')} (nothing saved)")

    def run(self, scale=True, eggs=True):
        """The whole calibration, or its scale part (tare, known weight) or its eggs part (tare,
        eggs); saves what was measured, the rest stays as the board had it."""
        con = self.con
        steps = 2 + scale + eggs
        step = iter(range(1, steps + 1))
        con.request("calibration", step="start")
        self.say("Calibration started: the game is paused, weight changes are not egg events.")
        self.say(f"[{next(step)}/{steps}] Tare")
        self.prompt("  Take every egg out of the bowl (the pole may stay), then press Enter")
        tare = self.measure("tare")
        self.say(f"  zero at {tare['offset']} counts, noise {tare['noise_g']:.3f} g")
        remove = ""
        if scale:
            self.say(f"[{next(step)}/{steps}] Known weight")
            grams = self.prompt("  Weight of your reference mass in grams", 200, reference_grams)
            self.prompt(f"  Put the {grams:g} g weight on the bowl, then press Enter")
            cal = self.measure("calibrate", grams=grams)
            self.say(f"  {cal['counts_per_g']:.3f} counts per gram")
            remove = "  Take the weight off"
        if eggs:
            self.say(f"[{next(step)}/{steps}] Eggs by colour, one egg at a time")
            remove = self._all_eggs(remove or "  The bowl is empty")
            back = remove.strip() + "; put every egg back into the nest and seat the pole"
        else:
            self.say("  The egg masses stay as the board has them: weigh the eggs later with "
                     "`nest calibrate --eggs`.")
            back = remove.strip() or "Leave the bowl empty"
        self.say(f"[{next(step)}/{steps}] Save")
        self.prompt(back + ", then press Enter")
        done = con.request("calibration", step="done")
        saved = done["saved"]
        self.say(f"Saved on the board: zero {saved['offset']}, {saved['counts_per_g']:.3f} counts/g, masses "
                 + ", ".join(f"{c} {saved['masses'][c]:.2f} g" for c, _, _ in COLOURS))
        return saved

    def _all_eggs(self, remove):
        """Every colour's eggs weighed, again as asked until each egg is within tolerance and the
        classes are separable; what to take off the bowl then."""
        con = self.con
        todo = [c for c, _, _ in COLOURS]
        eggs = {}
        while True:
            for c in todo:
                remove, eggs[c] = self._eggs(c, remove)
            odd, yard = odd_eggs_to_name(eggs)
            if odd:
                tol = egg_tolerance_g(yard)
                for c, n, g, mid in odd:
                    self.say(f"  {NAMES[c]} egg {n} weighs {g:.2f} g, {g - mid:+.2f} g off the "
                             f"{NAMES[c]} eggs' median {mid:.2f} g (tolerance {tol:.2f} g): re-ballast it")
                why = "an egg is out of tolerance: " + ", ".join(f"{NAMES[c]} egg {n}" for c, n, _, _ in odd)
                default = "".join(dict.fromkeys(c for c, _, _, _ in odd))
            else:
                check = con.request("calibration", step="check")["check"]
                self._show(check)
                if check["ok"]:
                    self.say(f"  every egg within {egg_tolerance_g(yard):.2f} g of its colour's median")
                    return remove
                self.say(f"  not separable: {check['reason']}")
                why, default = "the egg classes are not separable", "q"
            again = self.prompt("  Weigh which colours again (e.g. GB), or q to give up", default,
                                colours_again)
            if again == "Q":
                raise NestError(f"calibration abandoned: {why} (nothing saved)")
            todo = list(again)

    def _eggs(self, c, remove):
        """Weigh a colour's eggs one at a time; returns (what to take off next, each egg's grams)."""
        name = NAMES[c]
        full = dict((k, n) for k, _, n in COLOURS)[c]
        n = self.prompt(f"{remove}; how many {name} eggs will you weigh, one at a time", full, egg_count)
        each, total = [], 0.0
        for k in range(1, n + 1):
            self.prompt(f"  Put {name} egg {k} of {n} on the bowl (leave the others on), then press Enter")
            ans = self.measure("egg", colour=c, count=k)
            now = ans["grams"] * k
            each.append(now - total)
            total = now
            self.say(f"  {name} egg {k}: {each[-1]:.2f} g")
        self.say(f"  {name} ({c}): {total / n:.2f} g per egg")
        return f"  Take the {name} eggs off", each

    def _show(self, check):
        self.say(f"  order {check.get('order')}: narrowest gap {check.get('narrowest_g')} g, "
                 f"needed {check.get('need_g')} g -> {'separable' if check['ok'] else 'NOT separable'}")


def reference_grams(text):
    """The reference mass from an answer: a number of grams, more than 0, at most the cell's rating."""
    try:
        grams = float(text)
    except ValueError:
        raise Retry(f"{text!r} is not a number of grams") from None
    if not 0 < grams <= MAX_REFERENCE_G:  # also NaN
        raise Retry(f"{text!r}: the reference must be more than 0 and at most {MAX_REFERENCE_G:g} g "
                    "(the load cell's rated load)")
    return grams


def egg_count(text):
    """A number of eggs from an answer: a whole number from 1 to 10."""
    try:
        n = int(text)
    except ValueError:
        raise Retry(f"{text!r} is not a whole number of eggs") from None
    if not 1 <= n <= 10:
        raise Retry(f"{text!r} is not a number of eggs from 1 to 10")
    return n


def colours_again(text):
    """"Q", or the colour letters of an answer (GPYRB, any case, each once); anything else is asked again."""
    text = text.upper().replace(" ", "").replace(",", "")
    if text == "Q":
        return text
    wrong = [c for c in text if c not in NAMES]
    if wrong or not text:
        raise Retry(f"{text!r} is not q nor colour letters from {''.join(NAMES)}")
    return "".join(dict.fromkeys(text))


def run(args):
    with open_console(args) as con:
        wizard = Wizard(con)
        try:
            wizard.run(scale=not args.eggs, eggs=not args.scale)
        except BaseException:
            # Ctrl-C, end of input, a refusal: the board keeps its old calibration.
            try:
                con.request("calibration", step="cancel", timeout=2.0, check=False)
            except NestError:
                pass
            raise
    return 0
