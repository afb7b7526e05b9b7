# Calibration of the load cell and of the egg classes. Pure logic (no `machine`): the board's
# sampler hands every raw HX711 conversion to grams(raw) (this object stands in for
# gulo.hx711.Scale), so a measurement sees every sample and no task has to change for it.
#
# A session (the console's calibration steps, or `nest calibrate` driving them):
#   start            the game's verdicts pause (TurnFlow.pause_for_calibration: CALIBRATE)
#   tare             the bowl empty and still: the average of a steady window is the new offset;
#                    the reed's state then is kept with it (tare_pole: was the pole's mass in
#                    the zero?), so a weight is absolute eggs (gulo.turnflow's resume check)
#   calibrate G      a known weight of G grams on the bowl: counts_per_g
#   egg C [count N]  N eggs of colour C on the bowl (or `grams` given): C's mass = weight / N
#   check            the egg classes are separable (see check_masses)
#   done / cancel    done saves and applies everything, but only if the check passes; cancel
#                    (or a failed done) changes nothing
#
# A measurement takes a window of WINDOW samples (0.5 s at 80 SPS) whose spread is below STILL_G:
# a hand or a ring-down keeps the window sliding. Its answer comes when it is done, through
# `out` (one console line); a scale that never settles is refused after MAX_SAMPLES.
#
# The spread is kept in integer counts relative to the window's first sample, so the ESP32's
# single-precision floats never round a 24-bit reading.

from gulo import console
from gulo.weigher import centigrams

WINDOW = 40            # samples averaged for one reading: 0.5 s at 80 SPS
MAX_SAMPLES = 480      # 6 s without a steady window: the step is refused
STILL_G = 0.5          # window sd above this: something still moves (hand, ring-down)
GAP_NOISE = 10         # every gap between classes must be this many noise sigmas...
MIN_GAP_G = 1.0        # ...and at least this many grams
DEFAULT_NOISE_G = 0.2  # assumed sensor noise until a steady window has measured it
COLOURS = "GPYRB"


class CalibrationError(ValueError):
    pass


def check_masses(masses, noise_g):
    """Are the egg classes separable by one reading? {"ok", "reason", "narrowest_g", "need_g",
    "order"}: any two eggs must outweigh the heaviest single egg, and every gap (between two
    neighbouring colours, and between the heaviest egg and the lightest pair) must be at least
    max(MIN_GAP_G, GAP_NOISE x noise)."""
    need = GAP_NOISE * noise_g
    if need < MIN_GAP_G:
        need = MIN_GAP_G
    result = {"ok": False, "reason": None, "narrowest_g": None, "need_g": round(need, 2), "order": ""}
    for c in COLOURS:
        m = masses.get(c)
        if not isinstance(m, (int, float)) or isinstance(m, bool) or m <= 0:
            result["reason"] = "no mass for colour %s" % c
            return result
    cols = sorted([(masses[c], c) for c in COLOURS])
    result["order"] = "".join([c for _, c in cols])
    lo_m, lo_c = cols[0]
    hi_m, hi_c = cols[-1]
    narrowest = 2 * lo_m - hi_m
    where = "two %s eggs (%.2f g) against one %s egg (%.2f g)" % (lo_c, 2 * lo_m, hi_c, hi_m)
    if narrowest <= 0:
        result["narrowest_g"] = round(narrowest, 2)
        result["reason"] = "%s: two eggs must outweigh any single egg" % where
        return result
    for i in range(1, len(cols)):
        gap = cols[i][0] - cols[i - 1][0]
        if gap < narrowest:
            narrowest = gap
            where = "%s (%.2f g) and %s (%.2f g)" % (cols[i - 1][1], cols[i - 1][0], cols[i][1], cols[i][0])
    result["narrowest_g"] = round(narrowest, 2)
    if narrowest < need:
        result["reason"] = "%s are only %.2f g apart; need %.2f g (noise %.2f g)" % (
            where, narrowest, need, noise_g)
        return result
    result["ok"] = True
    return result


class Calibration:
    """Stands in for the Scale (grams(raw)) and carries out the calibration steps.

    values: the calibration dict (offset, counts_per_g, masses, tare_pole), as saved; scale: the
    live gulo.hx711.Scale; out(line): where console lines go; clock(): ms since boot (for
    samples); seated(): the reed's confirmed state (True: the pole in the bowl), read at a tare."""

    def __init__(self, values, scale, out, clock, seated=None, told=None):
        self.values = values
        self.scale = scale
        self.out = out
        self.clock = clock
        self.seated = seated
        # () -> (pole seated, demanded colour or None): what the weigher is told with the sample
        # being streamed, so a recording replays as the board weighed it
        self.told = told
        self.active = False
        self.pending = {}        # the session's values until done (empty: no session)
        self.noise_g = None      # spread of the steadiest window measured this session
        self.stream = False
        self._job = ()  # type: tuple  # (cmd, id, arg) being measured, () when idle
        self._buf = [0] * WINDOW
        self._n = 0              # samples seen by the current job
        self._best = None        # lowest spread seen by the current job (grams)

    # ---- the scale ------------------------------------------------------------------------------

    def grams(self, raw):
        p = self.pending
        if p:
            g = (raw - p["offset"]) / p["counts_per_g"]
        else:
            g = self.scale.grams(raw)
        if self._job:
            self._measure(raw)
        if self.stream:
            self.out(self._sample_line(g))
        return g

    def _sample_line(self, g):
        # "pole" and "demand" only when they are not the rest's (seated, none): the stream's
        # share of the serial line stays as it was at rest (docs/console-tools.md)
        line = '{"ev":"sample","t_ms":%d,"g":%.2f' % (self.clock(), g)
        if self.told is not None:
            seated, demand = self.told()
            if not seated:
                line += ',"pole":0'
            if demand is not None:
                line += ',"demand":"%s"' % demand
        return line + "}"

    def centigrams(self, raw):
        """As gulo.hx711.Scale.centigrams: through grams() while a session, a measurement or the
        stream needs every sample, else the scale's own integer path."""
        if self.pending or self._job or self.stream:
            return centigrams(self.grams(raw))
        return self.scale.centigrams(raw)

    def set_stream(self, on):
        """Every sample out as an {"ev": "sample"} line (`stream` on), or not. Its "pole": 0 and
        "demand": C say what the weigher was told with it (absent: seated, none)."""
        self.stream = on

    # ---- the session ----------------------------------------------------------------------------

    def start(self):
        if not self.active:
            self.active = True
            self.pending = {"offset": self.values["offset"], "counts_per_g": self.values["counts_per_g"],
                            "masses": dict(self.values["masses"]), "tare_pole": self.values.get("tare_pole")}
            self.noise_g = None
        return self.status()

    def status(self):
        out = {"active": self.active, "measuring": self._job[0] if self._job else None}  # type: dict
        if self.pending:
            out["pending"] = self.pending
        return out

    def _need_session(self, cmd):
        if not self.active:
            raise CalibrationError("%s: start a calibration first (calibration step start)" % cmd)
        if self._job:
            raise CalibrationError("%s: still measuring (%s)" % (cmd, self._job[0]))

    def measure(self, cmd, id, arg=None):
        """Start measuring for tare / calibrate (arg = grams) / egg (arg = (colour, count)). The
        answer line comes through `out` once a steady window is seen."""
        self._need_session(cmd)
        if cmd == "calibrate" and not arg > 0:
            raise CalibrationError("calibrate: grams must be positive")
        self._job = (cmd, id, arg)
        self._n = 0
        self._best = None

    def egg_grams(self, colour, grams):
        """Record a colour's mass without weighing it."""
        self._need_session("egg")
        self.pending["masses"][colour] = grams
        return {"colour": colour, "grams": grams}

    def check(self):
        if not self.pending:
            raise CalibrationError("check: start a calibration first")
        return check_masses(self.pending["masses"], self._noise())

    def _noise(self):
        return self.noise_g if self.noise_g is not None else DEFAULT_NOISE_G

    def finish(self):
        """The new values (the caller saves and applies them) if the check passes; else
        CalibrationError with the reason, and nothing changes (the session stays open)."""
        self._need_session("done")
        res = self.check()
        if not res["ok"]:
            raise CalibrationError("done: refused, nothing changed: " + res["reason"])
        new = self.pending
        self.values["offset"] = new["offset"]
        self.values["counts_per_g"] = new["counts_per_g"]
        self.values["masses"] = dict(new["masses"])
        self.values["tare_pole"] = new["tare_pole"]
        self.scale.set(new["counts_per_g"], new["offset"])
        self._close()
        return res

    def cancel(self):
        self._close()

    def _close(self):
        self.active = False
        self.pending = {}
        self._job = ()

    # ---- measuring ------------------------------------------------------------------------------

    def _measure(self, raw):
        buf = self._buf
        buf[self._n % WINDOW] = raw
        self._n += 1
        if self._n < WINDOW:
            return
        ref = buf[0]
        s1 = 0
        s2 = 0
        for v in buf:
            v -= ref
            s1 += v
            s2 += v * v
        var = (WINDOW * s2 - s1 * s1) / (WINDOW * WINDOW)
        cpg = self.pending["counts_per_g"]
        sd_g = (var ** 0.5) / abs(cpg)
        if self._best is None or sd_g < self._best:
            self._best = sd_g
        cmd, id, arg = self._job
        if sd_g > STILL_G:
            if self._n >= MAX_SAMPLES:
                self._job = ()
                why = "%s: the scale did not settle in %d s (spread %.2f g at best): keep hands off the bowl"
                self.out(console.refusal(cmd, id, why % (cmd, MAX_SAMPLES // 80, self._best)))
            return
        self._job = ()
        if self.noise_g is None or sd_g < self.noise_g:
            self.noise_g = sd_g
        mean = ref + s1 / WINDOW
        try:
            fields = self._apply(cmd, arg, mean, sd_g)
        except CalibrationError as e:
            self.out(console.refusal(cmd, id, str(e)))
            return
        self.out(console.answer(cmd, id, **fields))

    def _apply(self, cmd, arg, mean, sd_g):
        p = self.pending
        noise = round(sd_g, 3)
        if cmd == "tare":
            p["offset"] = int(mean + (0.5 if mean >= 0 else -0.5))
            # None (no reed to ask) leaves the zero untrusted for the resume check
            p["tare_pole"] = bool(self.seated()) if self.seated else None
            return {"offset": p["offset"], "noise_g": noise, "tare_pole": p["tare_pole"]}
        counts = mean - p["offset"]
        sd_counts = sd_g * abs(p["counts_per_g"])
        if cmd == "calibrate":
            if abs(counts) < 20 * sd_counts + 1:
                raise CalibrationError("calibrate: no weight seen on the scale (tare with the bowl empty "
                                       "first, then put the known weight on)")
            p["counts_per_g"] = counts / arg
            return {"counts_per_g": round(p["counts_per_g"], 3), "noise_g": noise}
        colour, count = arg
        grams = counts / p["counts_per_g"] / count
        if grams < 0.5:
            raise CalibrationError("egg: nothing on the scale (%.2f g): put the %s egg(s) on the empty, "
                                   "tared bowl" % (grams, colour))
        p["masses"][colour] = round(grams, 2)
        return {"colour": colour, "grams": round(grams, 2), "count": count, "noise_g": noise}
