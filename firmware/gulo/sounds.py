# The buzzer's tunes, as (frequency Hz, duration ms) steps; 0 Hz is a rest. A Tune says what the
# PWM should sound at any instant, so the buzzer task only has to follow it (pure: no PWM here).

from gulo.clock import diff, elapsed

ALARM = ((1900, 110), (0, 30), (1400, 110), (0, 30)) * 5   # the EGG ALARM siren, ~1.4 s
SUCCESS = ((1319, 70), (1760, 120))
LAST_EGG = ((1047, 70), (1319, 70), (1568, 70), (2093, 160))
WIN = ((1047, 120), (1319, 120), (1568, 120), (2093, 240), (0, 80), (1568, 100), (2093, 400))
NOPE = ((220, 160),)
PROMPT = ((880, 60), (0, 60), (880, 60))
CLICK = ((3000, 12),)
UNDO = ((1760, 70), (1319, 70), (1047, 160))   # the success tune run backwards: taken back

TUNES = {"alarm": ALARM, "success": SUCCESS, "last_egg": LAST_EGG, "win": WIN, "nope": NOPE,
         "prompt": PROMPT, "click": CLICK, "undo": UNDO}


def for_note(note):
    """The tune a turn-flow note calls for, or None."""
    outcome = note.get("outcome")
    if outcome is not None:
        event = outcome["event"]
        if outcome.get("winner") is not None:
            return "win"
        if event == "alarm":
            return "alarm"
        if event == "success":
            return "last_egg" if outcome.get("last_egg") else "success"
        if event == "undo":
            return "undo"
        return "click"
    if "refused" in note:
        return "nope"
    if "prompt" in note:
        return "prompt"
    return None


class Tune:
    def __init__(self):
        self.steps = ()  # type: tuple[tuple[int, int], ...]
        self.start = 0
        self.name = None

    def play(self, name, t_ms):
        """Start a tune (it replaces whatever was playing: the newest news wins)."""
        # Except a prompt over the siren or the undo: a pole alarm brings both at once ("put the
        # pole back"), an undo asks at once for an egg, and the siren or the undo sounds in full.
        if name == "prompt" and self.name in ("alarm", "undo") and \
                elapsed(t_ms, self.start) < sum([ms for _, ms in TUNES[self.name]]):
            return
        self.steps = TUNES[name]
        self.start = t_ms
        self.name = name

    def tone(self, freq, ms, t_ms):
        """One plain tone (the console's buzzer test)."""
        self.steps = ((freq, ms),)
        self.start = t_ms
        self.name = "tone"

    def freq_at(self, t_ms):
        """The frequency to sound now; 0 = silent (and the tune is over once past its end)."""
        dt = diff(t_ms, self.start)
        if dt < 0:
            return 0
        for freq, ms in self.steps:
            if dt < ms:
                return freq
            dt -= ms
        self.steps = ()
        self.name = None
        return 0
