# Turns on a nest switched on for days: the board's clock (gulo.clock) gives the flow ms since
# boot that wrap at 2**30 (12.4 days), as ticks_ms does on the ESP32. A clean take and a take with
# a second egg rolling out 300 ms after the hand left (an alarm: docs/attempt-end.md) must be
# judged as on the first day, the wrap inside the confirmation window included
# (tests/test_nest_comes_back.py has the same on the host, with the drill's loads and stalls).
# Plain asserts.

from gulo.clock import WRAP
from gulo.turnflow import CONFIRM, PICK, TurnFlow

from gamekit import game_with

DAY_MS = 24 * 3600 * 1000


def _turns(up, dues=None):
    """The two attempts' outcomes at an uptime of `up` ms; `dues` (a list) gets the board's ticker's
    sleep (TurnFlow.due_in) at every sample of a confirmation window."""
    from nest.world import NestWorld

    world = NestWorld(seed=5, sps=90)
    flow = TurnFlow(game_with("GRYB"))
    notes = []
    state = [0, True]   # the time fed so far, the reed

    def run(t_to):
        for t in world.sample_times(state[0], t_to):
            s = world.pole_is_seated(t)
            if s != state[1]:
                state[1] = s
                notes.extend(flow.pole(s, (up + t) & WRAP))
            notes.extend(flow.sample((up + t) & WRAP, world.grams(t)))
            if dues is not None and flow.phase == CONFIRM:
                dues.append(flow.due_in((up + t) & WRAP))
        state[0] = t_to

    run(2000)
    assert flow.phase == PICK, (up, notes)
    flow.button("reveal", (up + 2000) & WRAP)
    world.take(2200, flow.game.demand, "steady")
    run(4500)
    flow.button("reveal", (up + 4500) & WRAP)
    want = flow.game.demand
    left = world.take(4700, want, "steady")
    world.drop(left + 300, "B" if want != "B" else "G")
    run(left + 3000)
    return [(n["outcome"]["event"], n["outcome"].get("cause")) for n in notes
            if "outcome" in n and n["outcome"]["event"] in ("success", "alarm")]


def test_turns_on_a_nest_on_for_days_are_judged_as_on_its_first_day():
    fresh = _turns(0)
    assert fresh == [("success", None), ("alarm", "egg")], fresh
    # 2**30 - 4200 and - 6200: the clock wraps in the first attempt's confirmation window (a clean
    # take: only the clock ends it) and in the second's (its hand leaves at 5.7 s, the window runs
    # 1 s from there). With plain `>=` on the wrapped times the first attempt never ends.
    for up in ((1 << 29) + 5000, (1 << 30) - 4200, (1 << 30) - 6200, 20 * DAY_MS):
        assert _turns(up) == fresh, (up, _turns(up))


def test_the_boards_ticker_sleeps_as_on_its_first_day():
    # gulo.app's ticker sleeps flow.due_in(now) ms before it ends an attempt: with a plain
    # difference it would read the window's end, once past the wrap, as long gone (a tick at every
    # pass, no sleep: the watchdog's reset) or as days ahead
    fresh = []  # type: list[int]
    _turns(0, fresh)
    assert fresh and 0 <= min(fresh) and max(fresh) <= 1000, fresh
    for up in ((1 << 30) - 4200, (1 << 30) - 6200, 20 * DAY_MS):
        dues = []  # type: list[int]
        _turns(up, dues)
        assert dues == fresh, (up, dues[:5], fresh[:5])
