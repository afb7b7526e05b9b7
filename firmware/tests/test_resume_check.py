# The resume check (issue 19): after a boot the turn flow weighs the bowl against the game's nest
# and asks for exactly what differs; without a calibration's tare it says it cannot. Clean steps
# on the load cell, like test_turnflow (the virtual board's end-to-end test,
# tests/test_resume_check_e2e.py, plays it with the full nest model). CPython and MicroPython.

from gulo.calibration import WINDOW, Calibration
from gulo.hx711 import Scale
from gulo.nestcheck import nest_grams
from gulo.rules import NEST_FULL
from gulo.turnflow import AFTER_HAND_MS, ATTEMPT, EGGS_BACK, PICK, SETTLE, TurnFlow
from gulo.weigher import DEFAULT_MASSES, POLE_G

from gamekit import POUR_CONFIRM, game_with, play

MS = 12  # about 80 samples a second
M = DEFAULT_MASSES


def game_out(*colours):
    """A game in which each of `colours` was revealed in turn and taken cleanly (they are in the
    players' bags): the path starts G R Y B."""
    game = game_with("GRYB" + "GRYB")
    for c in colours:
        play(game, "reveal")
        if game.demand != c:
            raise AssertionError("the deal does not demand %s: %s" % (c, game.demand))
        play(game, "take %s" % c)
    return game


class Table:
    """The bowl after a calibration that tared it empty with the pole on the table (tare_pole
    False): the cell reads the eggs in it, and the pole while seated."""

    def __init__(self, game, bowl, tare_pole=False, pole=True, flow_class=TurnFlow):
        self.bowl = dict(bowl)
        self.pole = pole
        self.tare_pole = tare_pole
        self.flow = flow_class(game, None, tare_pole, pole)
        self.t = 0
        self.notes = []
        self.zero_g = 0.0   # how far the cell's zero has wandered since the tare

    def grams(self):
        g = nest_grams(self.bowl, M) + self.zero_g
        if self.pole and not self.tare_pole:
            g += POLE_G
        if self.tare_pole and not self.pole:
            g -= POLE_G
        return g

    def run(self, ms):
        end = self.t + ms
        while self.t < end:
            wobble = 0.03 if (self.t // MS) % 2 else -0.03
            self.notes += self.flow.sample(self.t, self.grams() + wobble)
            self.t += MS

    def prompts(self):
        return [n for n in self.notes if "prompt" in n]

    def move(self, colour, n):
        """n eggs of `colour` into the bowl (negative: out of it), then time to settle."""
        self.bowl[colour] += n
        self.run(4000)   # weight added that is no full nest is accepted after up to 3 s of calm


def bowl_of(game, **change):
    bowl = dict(game.nest)
    for c in change:
        bowl[c] += change[c]
    return bowl


def test_the_bowl_as_the_game_left_it_goes_on_without_a_prompt():
    game = game_out("G", "R")
    t = Table(game, game.nest)
    t.run(1500)
    assert t.flow.phase == PICK and t.prompts() == [], t.notes


def test_an_egg_put_back_while_off_is_asked_out_again_and_the_game_goes_on():
    game = game_out("G", "R")
    t = Table(game, bowl_of(game, R=1))
    t.run(1500)
    assert t.flow.phase == SETTLE
    assert t.prompts() == [{"prompt": EGGS_BACK, "out": {"R": 1}}], t.notes
    assert t.flow.need == {"out": {"R": 1}}
    t.move("R", -1)
    assert t.flow.phase == PICK, t.notes
    # the nest as the weigher now knows it is the game's: the next egg is judged rightly
    t.flow.button("reveal", t.t)
    demand = t.flow.game.demand
    t.bowl[demand] -= 1
    t.run(800 + AFTER_HAND_MS + 500)
    outcomes = [n["outcome"]["event"] for n in t.notes if "outcome" in n]
    assert outcomes[-1] == "success", t.notes


def test_an_egg_taken_while_off_is_asked_back():
    game = game_out("G")
    t = Table(game, bowl_of(game, Y=-1))
    t.run(1500)
    assert t.prompts() == [{"prompt": EGGS_BACK, "back": {"Y": 1}}], t.notes
    t.move("Y", 1)
    assert t.flow.phase == PICK, t.notes


def test_a_full_bowl_when_the_world_was_not_kept_names_every_egg_and_follows_each_one():
    game = game_out("G", "R", "Y")
    t = Table(game, NEST_FULL)
    t.run(1500)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1, "R": 1, "Y": 1}}, t.notes
    t.move("R", -1)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1, "Y": 1}}, t.notes
    t.move("G", -1)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"Y": 1}}, t.notes
    assert t.flow.phase == SETTLE
    t.move("Y", -1)
    assert t.flow.phase == PICK, t.notes


def test_a_weight_two_changes_explain_asks_to_pour_back_and_take_out_the_game_s_eggs():
    game = game_out("G", "R", "Y")
    # a green and a yellow gone (24 g), or the two purples: the weight cannot tell
    t = Table(game, bowl_of(game, P=-2))
    t.run(1500)
    need = {"pour": True, "out": {"G": 1, "R": 1, "Y": 1}}
    assert t.prompts() == [dict(prompt=EGGS_BACK, **need)], t.notes
    t.bowl = dict(NEST_FULL)   # poured back: every egg in the bowl...
    t.run(4000)
    assert t.flow.phase == SETTLE, t.notes
    for c in "GRY":            # ...then the game's eggs out
        t.move(c, -1)
    assert t.flow.phase == PICK, t.notes


def test_the_pole_mass_is_accounted_whichever_way_it_was_at_the_tare():
    for tare_pole in (False, True):
        game = game_out("G")
        t = Table(game, game.nest, tare_pole=tare_pole)
        t.run(1500)
        assert t.flow.phase == PICK and t.prompts() == [], (tare_pole, t.notes)


def test_a_pole_left_on_the_table_is_asked_for_first_then_the_eggs():
    game = game_out("G")
    t = Table(game, bowl_of(game, G=1), pole=False)
    t.run(1500)
    assert t.prompts() == [{"prompt": "put the pole back"}], t.notes
    t.pole = True
    t.notes += t.flow.pole(True, t.t)
    t.run(1500)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1}}, t.notes


def test_without_a_calibration_a_game_not_under_way_is_taken_as_it_is_and_a_note_says_so():
    game = game_with("GRYB" + "GRYB")   # dealt, no tile face up: its nest must be full anyway
    t = Table(game, NEST_FULL, tare_pole=None)
    t.run(1500)
    assert [n for n in t.notes if "unchecked" in n], t.notes
    assert t.flow.phase == PICK and t.prompts() == []


# ---- an uncalibrated nest resuming a game under way (docs/play-page.md "Resuming on an
# uncalibrated nest"): the family's word on a full nest, then the game's eggs out by name.

def uncalibrated(game, bowl, zero_g=137.0):
    """The bowl on a nest never calibrated: its zero is wherever the cell's offset puts it."""
    t = Table(game, bowl, tare_pole=None)
    t.zero_g = zero_g
    t.run(1500)
    return t


def alarm_then_every_egg_back(t):
    """A verdict after the resume: the pick, an alarm called, every egg poured back."""
    t.notes += t.flow.button("reveal", t.t)
    t.notes += t.flow.call(t.t)
    t.bowl = dict(NEST_FULL)
    t.run(4000)


def test_uncalibrated_every_egg_back_while_off_is_asked_to_confirm_then_the_game_s_eggs_out():
    game = game_out("G", "R")
    t = uncalibrated(game, NEST_FULL)
    assert t.prompts() == [{"prompt": POUR_CONFIRM, "pour": True}], t.notes
    t.run(5000)   # never taken as it is, however long it waits
    assert t.flow.phase == SETTLE and t.flow.need == {"pour": True}
    t.notes += t.flow.button("reveal", t.t)
    t.run(1500)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1, "R": 1}}, t.notes
    t.move("R", -1)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1}}, t.notes
    t.move("G", -1)
    assert t.flow.phase == PICK, t.notes
    # the weigher's full nest is the real one: every egg back after an alarm is ready again
    alarm_then_every_egg_back(t)
    assert t.flow.phase == PICK and t.flow.game.nest == NEST_FULL, t.notes


def test_uncalibrated_an_egg_taken_while_off_is_found_once_every_egg_is_back():
    game = game_out("G")
    t = uncalibrated(game, bowl_of(game, Y=-1))   # a yellow egg on the table too
    assert t.prompts() == [{"prompt": POUR_CONFIRM, "pour": True}], t.notes
    t.bowl = dict(NEST_FULL)   # poured back: the yellow one too
    t.run(4000)
    t.notes += t.flow.button("reveal", t.t)
    t.run(1500)
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "out": {"G": 1}}, t.notes
    t.move("G", -1)
    assert t.flow.phase == PICK, t.notes
    alarm_then_every_egg_back(t)
    assert t.flow.phase == PICK, t.notes


def test_uncalibrated_the_wrong_egg_taken_out_is_named():
    game = game_out("G", "R")
    t = uncalibrated(game, NEST_FULL)
    t.notes += t.flow.button("reveal", t.t)
    t.run(1500)
    t.move("B", -1)   # a blue egg instead of the red one
    assert t.prompts()[-1] == {"prompt": EGGS_BACK, "back": {"B": 1}, "out": {"G": 1, "R": 1}}, t.notes
    assert t.flow.phase == SETTLE


def test_uncalibrated_reveal_with_the_pole_out_is_refused_and_the_pole_asked_for():
    game = game_out("G")
    t = Table(game, NEST_FULL, tare_pole=None, pole=False)
    t.run(1500)
    notes = t.flow.button("reveal", t.t)
    assert notes and "refused" in notes[0] and t.flow.word is False, notes
    assert t.flow.prompt == "put the pole back"


def test_uncalibrated_a_new_game_from_the_menu_still_needs_the_full_nest_confirmed():
    game = game_out("G")
    t = uncalibrated(game, NEST_FULL)
    t.notes += t.flow.new_game(game_with("GRYB" + "GRYB"), t.t)
    t.run(1500)
    assert t.flow.phase == SETTLE and t.prompts()[-1]["prompt"] == POUR_CONFIRM, t.notes
    t.notes += t.flow.button("reveal", t.t)
    t.run(1500)
    assert t.flow.phase == PICK, t.notes


class Unconfirmed(TurnFlow):
    """Planted fault: the uncalibrated resume of before, which learns the bowl as the game's."""

    def relearn(self, keep_noise=True):
        TurnFlow.relearn(self, keep_noise)
        self.word = None


def test_planted_fault_an_uncalibrated_resume_that_trusts_the_bowl_stalls_after_the_next_alarm():
    game = game_out("G", "R")
    t = Table(game, NEST_FULL, tare_pole=None, flow_class=Unconfirmed)
    t.zero_g = 137.0
    t.run(1500)
    # the check above fails: no word about the eggs, straight to the pick ...
    assert t.prompts() == [] and t.flow.phase == PICK, t.notes
    # ... and the bug itself: every egg back after an alarm is never the nest it learned
    alarm_then_every_egg_back(t)
    t.run(10000)
    assert t.flow.phase == SETTLE and t.flow.prompt == EGGS_BACK, t.notes


class Trusting(TurnFlow):
    """Planted fault: the relearn of before the check, which takes the bowl for the game's nest."""

    def relearn(self, keep_noise=True):
        self.weigher.reset(self.bag_grams(), keep_noise)


def test_planted_fault_a_relearn_that_trusts_the_nest_goes_on_with_the_wrong_nest():
    game = game_out("G", "R")
    t = Table(game, bowl_of(game, R=1), flow_class=Trusting)
    t.run(1500)
    # what the checks above demand does not hold: it goes on, asking for nothing
    assert t.flow.phase == PICK and t.prompts() == []


def test_a_tare_records_whether_the_pole_was_in_the_bowl():
    for seated in (True, False):
        values = {"offset": 0, "counts_per_g": 420.0, "masses": dict(M)}
        cal = Calibration(values, Scale(420.0, 0), lambda s: None, lambda: 0, lambda: seated)
        cal.start()
        cal.measure("tare", 1)
        for i in range(WINDOW + 2):
            cal.grams(30000 + (i % 2))
        assert cal.pending["tare_pole"] is seated
        cal.finish()
        assert values["tare_pole"] is seated


def test_a_tare_without_a_reed_to_ask_leaves_the_zero_untrusted():
    values = {"offset": 0, "counts_per_g": 420.0, "masses": dict(M), "tare_pole": True}
    cal = Calibration(values, Scale(420.0, 0), lambda s: None, lambda: 0)
    cal.start()
    cal.measure("tare", 1)
    for i in range(WINDOW + 2):
        cal.grams(30000 + (i % 2))
    cal.finish()
    assert values["tare_pole"] is None


def test_an_egg_taken_before_its_verdict_when_the_power_went_is_asked_back_and_the_attempt_goes_on():
    # The game demands a red egg; the power went while the child's red egg was out, before the
    # verdict: the game has it in the nest, the bowl does not. It is asked back, then the attempt.
    game = game_out("G")
    play(game, "reveal")
    demand = game.demand
    t = Table(game, bowl_of(game, **{demand: -1}))
    t.run(1500)
    assert t.prompts() == [{"prompt": EGGS_BACK, "back": {demand: 1}}], t.notes
    t.move(demand, 1)
    assert t.flow.phase == ATTEMPT and t.flow.game.demand == demand, t.notes


def test_where_it_breaks_a_zero_off_by_the_tolerance_makes_the_right_nest_look_wrong():
    # The check trusts the tare's zero: within the weigher's tolerance (1.0 g here) of it the
    # bowl as the game left it goes on; beyond it, the same bowl is asked to change: here +1.3 g
    # reads as a red egg back and a yellow one gone (2 g apart: the neighbouring classes), a swap
    # that never happened (docs/play-page.md "Where it breaks"). Both sides of the edge, both signs.
    game = game_out("G", "R")
    for zero, fine in ((0.6, True), (-0.6, True), (1.3, False), (-1.3, False)):
        t = Table(game, game.nest)
        t.zero_g = zero
        t.run(1500)
        if fine:
            assert t.flow.phase == PICK and t.prompts() == [], (zero, t.notes)
        else:
            assert t.flow.phase == SETTLE and t.prompts(), (zero, t.notes)
    t = Table(game, game.nest)
    t.zero_g = 1.3
    t.run(1500)
    assert t.prompts() == [{"prompt": EGGS_BACK, "back": {"Y": 1}, "out": {"R": 1}}], t.notes


def test_the_status_led_blinks_the_egg_asked_for_and_amber_for_a_pour_back():
    from gulo import board
    from gulo.ledview import AMBER, BLINK_MS, BRIGHTNESS_CAP, COLOURS, LedView

    def status(flow):
        view = LedView()
        view.render(flow, BLINK_MS)  # the lit half of the blink
        j = 3 * board.LED_STATUS
        return (view.buf[j], view.buf[j + 1], view.buf[j + 2])

    def scaled(rgb):
        return tuple([c * 255 * BRIGHTNESS_CAP // 65025 for c in rgb])

    game = game_out("G")
    t = Table(game, bowl_of(game, G=1))
    t.run(1500)
    assert t.flow.need == {"out": {"G": 1}} and status(t.flow) == scaled(COLOURS["G"])
    # one green egg out, but the weight fits two changes: every egg back first, so no one colour
    t = Table(game, bowl_of(game, P=-2))
    t.run(1500)
    assert t.flow.need == {"pour": True, "out": {"G": 1}}, t.notes
    assert status(t.flow) == scaled(AMBER)
