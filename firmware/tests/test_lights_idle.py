# The lights task sleeps for LedView.still_ms() instead of redrawing an unchanged picture: that
# promise must hold, or a blink or an animation step would show late. For flows in every kind of
# phase and after each kind of outcome, the picture drawn at t must stay the same until t + still.

from gulo.ledview import FRAME_MS, LedView
from gulo.turnflow import ATTEMPT, MENU, PICK, SETTLE, WON, TurnFlow

from gamekit import game_with, play


def flow(game, phase, prompt=None, last=None, at=0):
    f = TurnFlow(game)
    f.phase = phase
    f.prompt = prompt
    if last is not None:
        last["t_ms"] = at
        f.last = last
    return f


def flows():
    fresh = game_with("GRYB")
    moved = game_with("GRYB")
    play(moved, "reveal", "take G", "reveal", "take R")  # player 0 to act, on tile 1: it blinks
    success = game_with("GRYB")
    play(success, "reveal")
    won_out = success.apply({"do": "take", "egg": "G"})
    alarm = game_with("GRYB")
    play(alarm, "reveal", "take G", "reveal", "take R", "reveal")
    alarm_out = alarm.apply({"do": "alarm", "cause": "pole"})  # player 0 goes back
    demand = game_with("GRYB")
    play(demand, "reveal")
    return [
        ("fresh pick", flow(fresh, PICK)),
        ("pick with a Gulo out", flow(moved, PICK)),
        ("settle, asking", flow(fresh, SETTLE, "put the pole back")),
        ("settle, quiet", flow(fresh, SETTLE)),
        ("menu", flow(moved, MENU)),
        ("after a success", flow(success, SETTLE, None, won_out, 400)),
        ("after an alarm", flow(alarm, SETTLE, "put the eggs back into the nest", alarm_out, 400)),
        ("attempt", flow(demand, ATTEMPT)),
        ("won", flow(moved, WON)),
    ]


def picture(view, f, t):
    return bytes(view.render(f, t))


def test_the_picture_holds_as_long_as_still_ms_promises():
    view = LedView()
    for name, f in flows():
        for t in range(400, 3800, 89):  # (the outcomes above happened at 400)
            before = picture(view, f, t)
            still = view.still_ms(f, t)
            assert still is None or 0 < still, (name, t, still)
            if still == FRAME_MS:
                continue  # moving: redrawn every frame, no promise to check
            span = 3000 if still is None else still
            for d in list(range(1, span, 7)) + [span - 1]:
                if d > 0:
                    assert picture(view, f, t + d) == before, (name, t, still, d)


def test_a_still_picture_sleeps_and_a_moving_one_runs_at_frame_rate():
    view = LedView()
    named = dict(flows())
    assert view.still_ms(named["fresh pick"], 5000) is None         # the idle game: no redraws
    assert view.still_ms(named["settle, quiet"], 5000) is None
    assert 0 < view.still_ms(named["pick with a Gulo out"], 5000) <= 250  # the next blink
    assert view.still_ms(named["attempt"], 5000) == FRAME_MS        # breathing status
    assert view.still_ms(named["won"], 5000) == FRAME_MS            # rainbow
    assert view.still_ms(named["after a success"], 420) == FRAME_MS  # the running light
