# The turn flow with a synthetic nest: clean steps on the load cell (the host tests use the full
# nest model, with hands, tremor and ring-down). Runs on CPython and inside MicroPython.

from gulo.turnflow import (
    AFTER_HAND_MS,
    ATTEMPT,
    CALIBRATE,
    CALL_AFTER_MS,
    CONFIRM,
    EGGS_BACK,
    PICK,
    SETTLE,
    WON,
    TurnFlow,
)

from fakes import IN_VM, heap_lock, heap_unlock
from gamekit import POUR_CONFIRM, game_with

FULL = 180.0 + 25.0 + 5 * (10 + 14 + 16 + 18) + 2 * 12  # bowl + pole + eggs (default masses)
MS = 12  # about 80 samples a second


class Bench:
    def __init__(self, path="GRYB", variant="standard"):
        self.flow = TurnFlow(game_with(path, variant=variant))
        self.t = 0
        self.grams = FULL
        self.notes = []

    def run(self, ms):
        end = self.t + ms
        while self.t < end:
            wobble = 0.03 if (self.t // MS) % 2 else -0.03  # a little noise, never a spike
            self.notes += self.flow.sample(self.t, self.grams + wobble)
            self.t += MS

    def verdicts(self):
        return [n["outcome"] for n in self.notes
                if "outcome" in n and n["outcome"]["event"] in ("success", "alarm")]

    def judged(self):
        """Run past a hand's move (800 ms) and the confirmation window: the verdicts so far."""
        self.run(800 + AFTER_HAND_MS + 500)
        return self.verdicts()


def started():
    b = Bench()
    b.run(1500)
    assert b.flow.phase == PICK, b.notes
    return b


def _conversions_at_rest(flow, t, n, sample):
    """n conversions of the nest at rest through the board's per-conversion path: the scale, the
    HX711's silence, the flow (`sample` given the flow, t and the raw count), the nest's watch."""
    from gulo.hx711 import Scale, Silence
    from gulo.nestfault import NestWatch

    scale, silence, watch = Scale(2147.0, 30000), Silence(t), NestWatch()
    counts = [30000 + int((FULL + (0.03 if k % 2 else -0.03)) * 2147.0) for k in range(2)]
    for _ in range(2):   # the path once unlocked: the watch and the silence start
        silence.heard(t)
        sample(flow, t, scale, counts[0])
        watch.check(flow.weigher, t)
        t += MS
    heap_lock()
    try:
        for k in range(n):
            silence.heard(t)
            silence.over(t)
            sample(flow, t, scale, counts[k & 1])
            watch.check(flow.weigher, t)
            t += MS
    finally:
        heap_unlock()
    return t


def _integer_path(flow, t, scale, raw):
    return flow.sample_cg(t, scale.centigrams(raw))


def _float_path(flow, t, scale, raw):
    return flow.sample(t, scale.grams(raw))


def test_the_board_path_allocates_nothing_at_rest_while_picking_and_in_an_attempt():
    # inside MicroPython: the heap locked, an allocation raises MemoryError (on the ESP32 every
    # float and every list is one)
    b = started()
    b.t = _conversions_at_rest(b.flow, b.t, 200, _integer_path)
    b.flow.button("reveal", b.t)
    b.run(500)
    demand = b.flow.game.demand
    assert b.flow.phase == ATTEMPT and demand is not None and b.flow.demand_told() == demand
    _conversions_at_rest(b.flow, b.t, 200, _integer_path)
    assert b.flow.phase == ATTEMPT


def test_planted_fault_the_float_path_allocates_and_the_lock_sees_it():
    if not IN_VM:
        return
    b = started()
    raised = False
    try:
        _conversions_at_rest(b.flow, b.t, 5, _float_path)
    except MemoryError:
        raised = True
    assert raised


def test_centigrams_match_grams_within_the_rounding():
    from gulo.hx711 import Scale

    for cpg, offset in ((2147.0, 30000), (2147.254, -8000), (-418.6, 12345)):
        scale = Scale(cpg, offset)
        for g in (0.0, 0.004, 10.0, 16.37, 479.5, -3.2, 1500.0):
            raw = offset + int(g * cpg)
            exact = scale.grams(raw) * 100
            assert abs(scale.centigrams(raw) - exact) <= 0.5 + abs(exact) * 0.5 / abs(cpg) + 1e-6, (cpg, g)


def test_starts_once_the_full_nest_is_learned():
    b = Bench()
    assert b.flow.phase == SETTLE
    b.run(1500)
    assert b.flow.phase == PICK


def test_clean_egg_after_the_confirmation_window_is_a_success():
    b = started()
    b.flow.button("reveal", b.t)
    assert b.flow.phase == ATTEMPT
    b.grams -= 10.0  # a green egg leaves
    b.run(800)
    assert b.flow.phase == CONFIRM or b.verdicts()
    b.run(AFTER_HAND_MS + 500)
    v = b.verdicts()
    assert len(v) == 1 and v[0]["event"] == "success"
    assert b.flow.game.positions[0] == 1 and b.flow.phase == PICK


def test_two_eggs_at_once_are_an_alarm():
    b = started()
    b.flow.button("reveal", b.t)
    b.grams -= 10.0 + 18.0
    b.run(1500)
    v = b.verdicts()
    assert len(v) == 1 and v[0]["event"] == "alarm" and v[0]["cause"] == "egg"
    assert b.flow.phase == SETTLE
    b.grams = FULL
    b.run(3000)
    assert b.flow.phase == PICK


def _lifted_and_put_back(grams, held_ms, first_event_acts=False):
    """Green demanded; an egg of `grams` lifted clear, held `held_ms`, put back; then a green
    egg taken. `first_event_acts`: the flow acts on the weigher's first word, as a wrong egg's
    alarm once did (a planted fault). Returns (the verdicts, the notes saying the egg out, the
    notes of the attempt going on once it came back)."""
    b = started()
    if first_event_acts:
        judge = b.flow._egg_event

        def at_once(ev, t_ms):
            if b.flow.phase == ATTEMPT and ev.get("out") == 1:
                return b.flow._act({"do": "take", "egg": ev["colour"]}, t_ms)
            return judge(ev, t_ms)
        b.flow._egg_event = at_once
    b.flow.button("reveal", b.t)
    assert b.flow.game.demand == "G"
    b.grams -= grams
    b.run(held_ms)
    said = [n for n in b.notes if n.get("phase") == CONFIRM]
    k = len(b.notes)
    b.grams += grams
    b.run(1500)
    back = [n for n in b.notes[k:] if n.get("phase") == ATTEMPT]
    b.grams -= 10.0
    v = b.judged()
    return v, said, back


def test_an_egg_put_back_before_the_attempt_ends_was_not_taken():
    for grams in (18.0, 10.0):     # another colour, and the demanded one
        v, said, back = _lifted_and_put_back(grams, 700)
        assert said and said[0]["egg"] == ("B" if grams == 18.0 else "G"), said   # it was said out
        assert back == [{"phase": ATTEMPT, "demand": "G"}], back                  # and came back
        assert [x["event"] for x in v] == ["success"], v


def test_planted_fault_a_flow_that_acts_on_the_first_word_calls_a_put_back_egg_taken():
    v, _, _ = _lifted_and_put_back(18.0, 700, first_event_acts=True)
    assert v[0]["event"] == "alarm" and v[0]["cause"] == "wrong egg", v


def test_an_egg_put_back_after_the_attempt_ended_was_taken():
    v, _, back = _lifted_and_put_back(18.0, 2500)
    assert not back and v[0]["event"] == "alarm" and v[0]["cause"] == "wrong egg", v


def _put_back_as_the_attempt_ends(lag=True):
    """At 10 SPS (11 conversions/s, each the mean of the load over its period, loadtrace): green
    demanded, a blue egg lifted out; it is put back 30 ms before its attempt ends (AFTER_HAND_MS
    after the calm began), which the conversion after the end shows first; then a green egg is
    taken. `lag`: False for a flow that acts at the end on what its weigher saw by then (a
    planted fault). Returns (the verdicts, whether the attempt went on once it came back)."""
    from loadtrace import FULL as LOADED
    from loadtrace import gone_at, samples

    def play(put_back_at):
        flow = TurnFlow(game_with("GRYB"))
        if not lag:
            flow.weigher.lag_ms = lambda: 0  # type: ignore[method-assign]
        takes = [(3000, 18.0, 1.0, 0)]
        adds = []
        if put_back_at:
            takes.append((put_back_at + 2000, 10.0, 1.0, 0))
            adds.append((put_back_at, 18.0, None))
        notes = []
        for t, g in samples(11, takes, gone_at(takes[-1]) + 4000, adds=adds):
            if t >= 2000 and flow.game.demand is None and flow.phase == PICK:
                flow.button("reveal", t)
            notes += flow.sample(t, g + FULL - LOADED)
            if flow.phase == CONFIRM and not put_back_at:
                return flow.weigher.t_calm
        return notes

    notes = play(play(0) + AFTER_HAND_MS - 30)
    verdicts = [n["outcome"] for n in notes if "outcome" in n]
    return verdicts, {"phase": ATTEMPT, "demand": "G"} in notes


def test_an_egg_put_back_as_the_attempt_ends_is_seen_before_the_flow_acts():
    # the flow acts once its weigher has seen the nest at the attempt's end (Weigher.lag_ms)
    verdicts, went_on = _put_back_as_the_attempt_ends()
    assert went_on and [v["event"] for v in verdicts] == ["success"], verdicts


def test_planted_fault_a_flow_that_acts_on_what_it_saw_by_the_end_takes_the_egg_put_back():
    verdicts, went_on = _put_back_as_the_attempt_ends(lag=False)
    assert not went_on and verdicts[0]["cause"] == "wrong egg", verdicts


def _poured_back_in_the_attempt(any_fewer_out=False):
    """Green taken (a success); red demanded and taken; within its attempt the family pours both
    back. `any_fewer_out`: the flow takes any fall of the weigher's count for the egg put back (a
    planted fault). Returns the verdicts."""
    b = started()
    if any_fewer_out:
        b.flow.put_back = lambda: b.flow.weigher.out < b.flow.out_said
    b.flow.button("reveal", b.t)
    b.grams -= 10.0
    b.judged()
    b.run(1500)
    b.flow.button("reveal", b.t)
    assert b.flow.game.demand == "R"
    b.grams -= 16.0
    b.run(700)
    assert b.flow.phase == CONFIRM
    b.grams += 16.0 + 10.0
    return b.judged()


def test_eggs_poured_back_in_the_attempt_are_no_egg_put_back():
    assert [x["event"] for x in _poured_back_in_the_attempt()] == ["success", "success"]


def test_planted_fault_a_flow_that_takes_a_pour_back_for_a_put_back_loses_the_success():
    assert [x["event"] for x in _poured_back_in_the_attempt(any_fewer_out=True)] == ["success"]


def test_the_pole_alarm_is_immediate():
    b = started()
    b.flow.button("reveal", b.t)
    notes = b.flow.pole(False, b.t)
    assert notes[0]["outcome"]["event"] == "alarm" and notes[0]["outcome"]["cause"] == "pole"


def _red_held_half_out(tell_weigher=True):
    """Player 1 must take red (16 g); the hand holds it half out, still, with a purple's weight
    (12 g) off the bowl for 2 s, then lifts it out: the verdicts."""
    b = started()
    b.flow.button("reveal", b.t)
    b.grams -= 10
    b.judged()                                      # player 0 took green
    b.run(1500)
    if not tell_weigher:
        b.flow.weigher.set_demand = lambda colour: None
    b.flow.button("reveal", b.t)
    assert b.flow.game.demand == "R"
    b.grams -= 12
    b.run(2000)
    b.grams -= 4
    return b.judged()


def test_a_red_egg_held_half_out_still_is_not_a_lighter_wrong_egg():
    v = _red_held_half_out()
    assert [x["event"] for x in v] == ["success", "success"], v


def test_planted_fault_a_flow_that_does_not_tell_the_demand_calls_the_held_level_a_wrong_egg():
    v = _red_held_half_out(tell_weigher=False)
    assert v[-1]["event"] == "alarm" and v[-1]["cause"] == "wrong egg", v


def test_unknown_button_is_an_error_note():
    b = started()
    assert "error" in b.flow.button("X", b.t)[0]
    assert b.flow.phase == PICK


def test_menu_sets_up_a_new_game():
    b = started()
    b.flow.button("menu", b.t)
    b.flow.button("Y", b.t)
    b.flow.button("R", b.t)
    notes = b.flow.button("reveal", b.t)
    assert notes == [{"new_game": {"players": 3, "variant": "fast"}}]


def test_a_game_resumed_mid_round_asks_for_the_egg_in_the_bag_out_and_judges_the_next_one():
    # A power cut after a clean green egg: the board boots with that egg rightly out of the
    # nest. Uncalibrated, it cannot weigh the bowl against the game: every egg back and Reveal
    # (a full nest it can see), then the green egg out again by name (test_resume_check has the
    # rest); the next egg is judged against the nest as the game knows it.
    b = started()
    b.flow.button("reveal", b.t)
    b.grams -= 10.0
    assert b.judged()[0]["event"] == "success"
    game = b.flow.game
    assert game.nest["G"] == 4
    resumed = Bench()
    resumed.flow = TurnFlow(game)
    resumed.grams = b.grams + 10.0   # every egg back
    resumed.run(1500)
    assert resumed.flow.prompt == POUR_CONFIRM, resumed.notes
    resumed.flow.button("reveal", resumed.t)
    resumed.run(1500)
    assert resumed.flow.need == {"out": {"G": 1}}, resumed.notes
    resumed.grams -= 10.0
    resumed.run(4000)
    assert resumed.flow.phase == PICK and resumed.flow.prompt is None, resumed.notes
    resumed.flow.button("reveal", resumed.t)
    resumed.grams -= 16.0  # the path's next tile is red: a red egg leaves
    v = resumed.judged()
    assert len(v) == 1 and v[0]["event"] == "success", resumed.notes


def test_calibration_pauses_verdicts_and_resume_relearns_the_nest():
    b = started()
    b.flow.button("reveal", b.t)
    demand = b.flow.game.demand
    assert b.flow.phase == ATTEMPT and b.flow.pause_for_calibration()
    assert b.flow.phase == CALIBRATE
    # Test weights and eggs go on and off the bowl, the pole is lifted: nothing is judged.
    for change in (-10.0 - 18.0, +500.0, -14.0):
        b.grams = FULL + change
        b.run(1500)
    b.notes += b.flow.pole(False, b.t)
    b.notes += b.flow.pole(True, b.t)
    refused = b.flow.button("reveal", b.t) + b.flow.button("menu", b.t)
    assert [n.get("refused") for n in refused] == ["reveal", "menu"]
    assert b.verdicts() == [] and b.flow.phase == CALIBRATE and b.flow.game.demand == demand
    # The eggs end up a little off (a lighter bowl after the calibration). Uncalibrated still
    # (no tare), so the family's word on a full nest (Reveal) is asked for: it is learned as full.
    b.grams = FULL - 3.0
    b.run(1000)
    b.notes += b.flow.end_calibration(b.t)
    b.run(1500)
    assert b.flow.phase == SETTLE and b.flow.prompt == POUR_CONFIRM, b.notes
    b.notes += b.flow.button("reveal", b.t)
    b.run(1500)
    assert b.flow.phase == ATTEMPT and b.flow.game.demand == demand
    b.grams -= {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}[demand]
    v = b.judged()
    assert len(v) == 1 and v[0]["event"] == "success", b.notes


def test_calibration_is_refused_while_an_egg_is_judged():
    b = started()
    b.flow.button("reveal", b.t)
    b.grams -= 10.0
    while b.flow.phase != CONFIRM:
        b.run(MS)
    assert not b.flow.pause_for_calibration() and b.flow.phase == CONFIRM
    assert b.flow.end_calibration(b.t) == [] and b.flow.phase == CONFIRM


def test_resume_applies_new_masses_and_a_won_game_stays_won():
    b = started()
    new = {"G": 11.0, "P": 13.0, "Y": 15.0, "R": 17.0, "B": 19.5}
    assert b.flow.pause_for_calibration()
    b.flow.end_calibration(b.t, new)
    assert b.flow.weigher.masses == new and b.flow.phase == SETTLE
    b.flow.phase = WON  # (as after a win)
    assert b.flow.pause_for_calibration() and b.flow.phase == CALIBRATE
    b.flow.end_calibration(b.t)
    assert b.flow.phase == WON


# ---- the end of an attempt (docs/attempt-end.md): the nest model, real hands and ring-down ------

def _late_attempt(seed, late, delay_ms, sps=90):
    """Reveal, take the demanded egg with a steady hand, then `late` ("egg": another egg rolls
    out, "pole": the pole falls) `delay_ms` after the hand left. Returns the verdicts."""
    from nest.world import NestWorld

    world = NestWorld(seed=seed, sps=sps)
    flow = TurnFlow(game_with("GRYB"))
    notes = []
    seated = True

    def run(t0, t1):
        nonlocal seated
        for t in world.sample_times(t0, t1):
            s = world.pole_is_seated(t)
            if s != seated:
                seated = s
                notes.extend(flow.pole(s, t))
            notes.extend(flow.sample(t, world.grams(t)))

    run(0, 1500)
    assert flow.phase == PICK, notes
    flow.button("reveal", 1500)
    want = flow.game.demand
    leave = world.take(1600, want, "steady")
    if late == "egg":
        world.drop(leave + delay_ms, "B" if want != "B" else "G")
    elif late == "pole":
        world.knock_pole(leave + delay_ms)
    run(1500, leave + delay_ms + 4000)
    return [n["outcome"] for n in notes if "outcome" in n and n["outcome"]["event"] in ("success", "alarm")]


def test_an_egg_rolling_out_after_the_hand_left_is_an_alarm_across_the_range():
    for sps in (11, 90):
        for delay in (100, 500, 900):
            v = _late_attempt(3 + delay, "egg", delay, sps)
            assert [x["event"] for x in v] == ["alarm"], (sps, delay, v)


def test_a_pole_falling_after_the_hand_left_is_an_alarm_across_the_range():
    for sps in (11, 90):
        for delay in (200, 500, 800):
            v = _late_attempt(5 + delay, "pole", delay, sps)
            assert [x["event"] for x in v] == ["alarm"] and v[0]["cause"] == "pole", (sps, delay, v)


def test_what_falls_well_after_the_attempt_ended_is_no_longer_this_turn():
    # the other side of the ruling, so that the checks above can fail: 2 s after the hand left
    # the turn was a success, and an egg or the pole falling then is not its alarm
    for late in ("egg", "pole"):
        v = _late_attempt(7, late, AFTER_HAND_MS + 1000)
        assert v and v[0]["event"] == "success", (late, v)


def test_an_attempt_closed_at_the_verdict_misses_a_late_pole():
    # The planted fault: the attempt ends as the egg is decided (no time after the hand), so a
    # pole falling 0.8 s after the hand left is scored as a clean success: the check above fails.
    import gulo.turnflow as tf

    saved = tf.AFTER_HAND_MS
    tf.AFTER_HAND_MS = 0
    try:
        v = _late_attempt(805, "pole", 800)
        assert v and v[0]["event"] == "success", v
    finally:
        tf.AFTER_HAND_MS = saved


# ---- prompts that name the eggs (issue 19: "put the red egg back", "the yellow egg stays out") ----

def _prompts(b):
    return [n for n in b.notes if "prompt" in n]


def test_an_egg_taken_before_a_pick_is_named():
    b = started()
    b.grams -= 16  # a red egg lifted out before anyone pressed Reveal
    b.run(1500)
    assert b.flow.phase == SETTLE
    assert _prompts(b)[-1] == {"prompt": EGGS_BACK, "back": {"R": 1}}, b.notes
    assert b.flow.need == {"back": {"R": 1}}
    b.grams += 16
    b.run(1500)
    assert b.flow.phase == PICK and b.flow.need is None


def test_an_egg_of_this_round_put_back_is_named_as_staying_out():
    b = started()
    # the path is GRYB: Reveal asks for green
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10
    b.judged()
    assert b.verdicts()[-1]["event"] == "success"
    b.run(1500)
    assert b.flow.phase == PICK
    b.grams -= 16  # a red egg lifted out early: the nest asks for it
    b.run(1500)
    assert _prompts(b)[-1] == {"prompt": EGGS_BACK, "back": {"R": 1}}
    b.grams += 16 + 10  # every egg poured back, the green egg of this round with them
    b.run(2500)
    assert b.flow.phase == SETTLE
    assert _prompts(b)[-1] == {"prompt": EGGS_BACK, "out": {"G": 1}}, _prompts(b)
    b.grams -= 10  # the green egg taken out again: the game goes on
    b.run(2500)
    assert b.flow.phase == PICK and b.flow.need is None


def test_a_weight_fewer_eggs_explain_too_names_none_but_asks_to_pour_all_back():
    # A green egg won this round is in the bag. At "press Reveal" two green eggs and a red one
    # are lifted out: 36 g, which two blue eggs weigh too. The nest must not ask for two blue
    # eggs that are not on the table: every egg back, the round's green egg out again.
    b = started()
    b.notes += b.flow.button("reveal", b.t)   # GRYB: green demanded
    b.grams -= 10
    b.judged()
    b.run(1500)
    assert b.flow.phase == PICK and b.flow.game.nest["G"] == 4
    b.grams -= 10 + 10 + 16
    b.run(2500)
    assert b.flow.phase == SETTLE
    assert b.flow.need == {"pour": True, "out": {"G": 1}}, _prompts(b)
    assert not any(n.get("back") == {"B": 2} for n in _prompts(b)), _prompts(b)
    b.grams += 10 + 10 + 16
    # a weight back that is no egg class is the nest's new level after the weigher's 3 s (gulo.weigher)
    b.run(4000)
    assert b.flow.phase == PICK and b.flow.need is None


def test_the_eggs_asked_for_are_worked_out_once_per_weight_not_per_sample():
    import gulo.nestcheck as nestcheck

    calls = []
    differ = nestcheck.differ

    def counting(*a):
        calls.append(a[0])
        return differ(*a)

    nestcheck.differ = counting
    try:
        b = started()
        b.grams -= 36        # three eggs out early: the nest waits, sample after sample
        b.run(4000)
        assert b.flow.need is not None and len(calls) <= 2, len(calls)
        b.grams += 20        # two of them back: one more search, for the new weight
        b.run(4000)
        assert b.flow.need == {"back": {"R": 1}} and len(calls) <= 4, len(calls)
    finally:
        nestcheck.differ = differ


def test_a_single_egg_or_a_pair_no_other_change_weighs_is_named():
    b = started()
    b.grams -= 20   # two green eggs: nothing else of two or three eggs weighs 20 g
    b.run(2500)
    assert b.flow.need == {"back": {"G": 2}}, _prompts(b)
    b.grams += 20 - 28  # green + blue, purple + red, two yellows: 28 g names nothing
    b.run(5000)         # (an 8 g step is no egg: the weigher waits longer for its rest)
    assert b.flow.need == {"pour": True}, _prompts(b)


# ---- the players' appeal (docs/rules.md, "The players have the last word") ------------------------

def test_undo_a_success_asks_for_the_egg_back_and_the_same_player_tries_again():
    b = started()
    b.notes += b.flow.button("reveal", b.t)         # GRYB: green demanded
    before = b.flow.game.state()
    b.grams -= 10
    b.judged()
    assert b.verdicts()[-1]["event"] == "success" and b.flow.phase == PICK
    b.notes += b.flow.button("reveal", b.t)         # player 1 already turned tile 2 over
    notes = b.flow.undo(b.t)
    assert notes[0]["undo"] == 2 and notes[0]["outcome"]["player"] == 0   # the take and the reveal
    assert b.flow.game.state() == before and b.flow.phase == SETTLE
    assert notes[-1] == {"prompt": EGGS_BACK, "back": {"G": 1}}, notes     # the green egg, back in
    b.grams += 10
    b.run(1500)
    assert b.flow.phase == ATTEMPT and b.flow.game.demand == "G" and b.flow.game.turn == 0
    assert b.flow.undo(b.t)[0]["refused"] == "undo"   # one level: nothing more to undo


def test_undo_a_wrong_egg_alarm_asks_for_the_round_eggs_out_again():
    b = started()
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10
    b.judged()                                      # player 0 took green: a success
    b.run(1500)
    b.notes += b.flow.button("reveal", b.t)         # player 1: tile 2 is red
    b.grams -= 14                                   # a yellow egg: the wrong colour, an alarm
    b.run(3500)                                     # (lighter than red: said after 3 s of calm)
    assert b.verdicts()[-1]["cause"] == "wrong egg"
    b.grams += 14 + 10                              # every egg poured back, as after any alarm
    b.run(2500)
    assert b.flow.phase == PICK and b.flow.game.turn == 0
    notes = b.flow.undo(b.t)
    assert notes[0]["undo"] == 1 and b.flow.game.turn == 1 and b.flow.game.demand == "R"
    assert notes[-1] == {"prompt": EGGS_BACK, "out": {"G": 1}}, notes      # green stays in the bag
    b.grams -= 10
    b.run(2500)
    assert b.flow.phase == ATTEMPT


def test_a_called_alarm_in_an_attempt_and_where_it_is_refused():
    b = started()
    refused = b.flow.call(b.t)
    assert refused[0]["refused"] == "call" and b.flow.phase == PICK
    b.notes += b.flow.button("reveal", b.t)
    notes = b.flow.call(b.t)
    out = notes[0]["outcome"]
    assert notes[0]["action"] == {"do": "alarm", "cause": "called"}
    assert out["event"] == "alarm" and out["cause"] == "called" and b.flow.game.turn == 1
    # the same alarm called while an egg is being judged (the egg came out, the window is open)
    b.grams = FULL
    b.run(2500)
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 16
    b.run(800)
    assert b.flow.phase == CONFIRM
    assert b.flow.undo(b.t)[0]["refused"] == "undo"    # no undo while an egg is judged
    assert b.flow.call(b.t)[0]["outcome"]["cause"] == "called"
    assert b.flow.phase == SETTLE and b.flow.game.turn == 0


def test_menu_then_blue_calls_the_alarm_while_an_egg_is_judged():
    # The device's call (Menu, then Blue) where the console's call() works: in CONFIRM too. The
    # open menu holds the verdict, however long the players take to find Blue.
    b = started()
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10.0                                 # the demanded green egg, cleanly out
    b.run(800)
    assert b.flow.phase == CONFIRM
    assert b.flow.button("menu", b.t) == [{"menu": {"players": 2, "variant": "standard"}}]
    b.run(AFTER_HAND_MS + 500)
    assert b.verdicts() == []
    notes = b.flow.button("B", b.t)
    assert notes[0] == {"menu": "closed"} and notes[1]["action"] == {"do": "alarm", "cause": "called"}
    b.notes += notes
    assert [(v["event"], v["cause"]) for v in b.verdicts()] == [("alarm", "called")]
    assert b.flow.phase == SETTLE and b.flow.game.turn == 1


def test_menu_opened_and_closed_while_an_egg_is_judged_lets_the_verdict_come():
    b = started()
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10.0
    b.run(800)
    b.notes += b.flow.button("menu", b.t)
    b.run(AFTER_HAND_MS + 500)
    assert b.verdicts() == [] and b.flow.phase != CONFIRM
    b.notes += b.flow.button("menu", b.t)           # closed: back to the judging
    assert b.flow.phase == CONFIRM
    assert [v["event"] for v in b.judged()] == ["success"]


def test_the_appeal_says_what_the_players_may_overrule_now():
    b = started()
    assert b.flow.appeal(b.t) == {"undo": False, "call": False}
    b.notes += b.flow.button("reveal", b.t)
    assert b.flow.appeal(b.t) == {"undo": False, "call": True}
    b.grams -= 10
    b.run(800)
    assert b.flow.phase == CONFIRM and b.flow.appeal(b.t) == {"undo": False, "call": True}
    b.run(AFTER_HAND_MS + 500)
    # a success: the players may still call the alarm for a while (it replaces the success)
    assert b.flow.phase == PICK and b.flow.appeal(b.t) == {"undo": True, "call": True}
    b.run(CALL_AFTER_MS)
    assert b.flow.appeal(b.t) == {"undo": True, "call": False}


def test_a_success_of_a_boot_before_is_no_late_call():
    # A resumed game's last verdict was timed on the clock before the restart, which begins again
    # near 0: seen from now it lies in the future, and no late call may replace it.
    b = started()
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10
    b.run(800 + AFTER_HAND_MS + 500)
    assert b.flow.phase == PICK and b.flow.appeal(b.t)["call"]
    assert b.flow.appeal(b.t - 60000) == {"undo": True, "call": False}


def test_an_alarm_called_right_after_a_success_replaces_it():
    b = started()
    b.notes += b.flow.button("reveal", b.t)         # GRYB: green demanded
    before = b.flow.game.state()
    b.grams -= 10
    b.judged()
    assert b.verdicts()[-1]["event"] == "success" and b.flow.phase == PICK
    notes = b.flow.call(b.t)
    # the success leaves the log (one line), the alarm is judged on the same attempt
    assert notes[0]["undo"] == 1 and notes[0]["outcome"]["replaced"] is True, notes
    assert notes[1]["action"] == {"do": "alarm", "cause": "called"}
    out = notes[1]["outcome"]
    assert out["player"] == 0 and out["demand"] == "G" and out["from"] == before["positions"][0]
    assert b.flow.game.turn == 1 and b.flow.game.nest["G"] == 5 and b.flow.phase == SETTLE


def test_a_call_after_a_pick_or_an_alarm_or_the_window_replaces_nothing():
    b = started()
    b.notes += b.flow.button("reveal", b.t)
    b.grams -= 10
    b.judged()
    b.run(1500)
    b.notes += b.flow.button("reveal", b.t)          # player 1 picked: the call is on their take
    notes = b.flow.call(b.t)
    assert "undo" not in notes[0] and notes[0]["outcome"]["player"] == 1, notes
    b.grams = FULL                                   # after an alarm every egg goes back
    b.run(2500)
    assert b.flow.phase == PICK and b.flow.game.turn == 0
    assert b.flow.call(b.t)[0]["refused"] == "call"  # the last verdict is an alarm
    b.notes += b.flow.button("reveal", b.t)          # player 0 again: tile 3 is yellow
    b.grams -= 14
    b.judged()
    assert b.verdicts()[-1]["event"] == "success"
    b.run(CALL_AFTER_MS)
    assert b.flow.call(b.t)[0]["refused"] == "call"  # too late
