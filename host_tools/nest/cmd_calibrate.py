"""`nest calibrate`: a guided wizard that calibrates the scale and the egg classes on the board.

It drives the firmware's calibration steps over the console (gulo.calibration): start (the game's
verdicts pause), tare, calibrate with a known weight, each colour's eggs weighed, the separability
check, done (saved atomically on the board and applied live). Anything that goes wrong on the way
(Ctrl-C, end of input, the board refusing) cancels the session, so the board keeps its old values.
"""

from nest.boardconsole import open_console
from nest.errors import NestError

COLOURS = (("G", "green", 5), ("P", "purple", 2), ("Y", "yellow", 5), ("R", "red", 5), ("B", "blue", 5))
NAMES = {c: n for c, n, _ in COLOURS}
MEASURE_S = 12.0  # the board gives up after 6 s of an unsteady scale; this only catches silence


def add_parser(sub):
    p = sub.add_parser("calibrate", help="guided calibration: tare, known weight, egg masses",
                       description="Calibrate the nest on the board step by step: tare the empty "
                                   "bowl, a known weight, then each colour's eggs; the classes must "
                                   "be separable before anything is saved.")
    p.add_argument("--port", help="serial port (default: the single board found)")
    return p


class Wizard:
    def __init__(self, con, ask=input, say=print):
        self.con = con
        self.ask = ask
        self.say = say

    def prompt(self, text, default=None):
        try:
            answer = self.ask(text + (f" [{default}]" if default is not None else "") + ": ").strip()
        except EOFError:
            raise NestError("calibration abandoned: input ended (nothing saved)") from None
        return answer or ("" if default is None else str(default))

    def measure(self, cmd, **fields):
        self.say("  measuring: keep hands off the bowl ...")
        return self.con.request(cmd, timeout=MEASURE_S, **fields)

    def run(self):
        con = self.con
        con.request("calibration", step="start")
        self.say("Calibration started: the game is paused, weight changes are not egg events.")
        self.say("[1/4] Tare")
        self.prompt("  Take every egg out of the bowl (the pole may stay), then press Enter")
        tare = self.measure("tare")
        self.say(f"  zero at {tare['offset']} counts, noise {tare['noise_g']:.3f} g")

        self.say("[2/4] Known weight")
        grams = self._number(self.prompt("  Weight of your reference mass in grams", 200))
        self.prompt(f"  Put the {grams:g} g weight on the bowl, then press Enter")
        cal = self.measure("calibrate", grams=grams)
        self.say(f"  {cal['counts_per_g']:.3f} counts per gram")
        remove = "  Take the weight off"

        self.say("[3/4] Eggs by colour")
        todo = [c for c, _, _ in COLOURS]
        while True:
            for c in todo:
                remove = self._egg(c, remove)
            check = con.request("calibration", step="check")["check"]
            self._show(check)
            if check["ok"]:
                break
            self.say(f"  not separable: {check['reason']}")
            again = self.prompt("  Weigh which colours again (e.g. GB), or q to give up", "q").upper()
            if again == "Q":
                raise NestError("calibration abandoned: the egg classes are not separable (nothing saved)")
            todo = [c for c in again if c in NAMES]

        self.say("[4/4] Save")
        self.prompt(remove.strip() + "; put every egg back into the nest and seat the pole, then press Enter")
        done = con.request("calibration", step="done")
        saved = done["saved"]
        self.say(f"Saved on the board: zero {saved['offset']}, {saved['counts_per_g']:.3f} counts/g, masses "
                 + ", ".join(f"{c} {saved['masses'][c]:.2f} g" for c, _, _ in COLOURS))
        return saved

    def _egg(self, c, remove):
        name = NAMES[c]
        full = dict((k, n) for k, _, n in COLOURS)[c]
        count = self.prompt(f"{remove}; put {name} eggs on the empty bowl: how many (then Enter)", full)
        n = int(self._number(count))
        if not 1 <= n <= 10 or n != self._number(count):
            raise NestError(f"calibration: {count!r} is not a number of eggs from 1 to 10")
        ans = self.measure("egg", colour=c, count=n)
        self.say(f"  {name} ({c}): {ans['grams']:.2f} g per egg")
        return f"  Take the {name} eggs off"

    def _number(self, text):
        try:
            return float(text)
        except ValueError:
            raise NestError(f"calibration: {text!r} is not a number") from None

    def _show(self, check):
        self.say(f"  order {check.get('order')}: narrowest gap {check.get('narrowest_g')} g, "
                 f"needed {check.get('need_g')} g -> {'separable' if check['ok'] else 'NOT separable'}")


def run(args):
    with open_console(args) as con:
        wizard = Wizard(con)
        try:
            wizard.run()
        except BaseException:
            # Ctrl-C, end of input, a refusal: the board keeps its old calibration.
            try:
                con.request("calibration", step="cancel", timeout=2.0, check=False)
            except NestError:
                pass
            raise
    return 0
