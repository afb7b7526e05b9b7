"""Issue 4 "done when", end to end: the nest firmware plays whole games and every alarm on the
virtual board. The world is acted on through the control channel (buttons, hands, the pole); the
board's own console lines are the record, and each reported action, outcome and state is checked
against the host's copy of the engine, then the game log fetched from the board is replayed."""

import pytest

from gulo import sounds
from gulo.rules import Game
from testkit.boardkit import EGGS_BACK, POLE_BACK, best_pick, nest_in, outcome_without_time, stage_game

pytestmark = pytest.mark.board

# Seeds picked on the host (best pick, every egg clean): standard seed 1 has a colour on top of
# the deck and Gulo junior second (deck success, then the purple egg wins); fast seed 1 draws a
# colour before Gulo junior. Both take some 20 turns.
STANDARD_SEED = 1
FAST_SEED = 1


@pytest.fixture(scope="module")
def nest(tmp_path_factory):
    with nest_in(tmp_path_factory.mktemp("e2e-game")) as n:
        yield n


def test_a_standard_game_to_a_win(nest):
    nest.new(2, "standard", STANDARD_SEED)
    winner = nest.play_to_win()
    final = nest.outcomes[-1]
    assert final["event"] == "success" and final["egg"] == "P" and final["winner"] == winner
    events = [o["event"] for o in nest.outcomes]
    # a last egg: all eggs back, the same player again
    last = [o for o in nest.outcomes if o.get("last_egg")]
    assert last and all(o["next"] == o["player"] for o in last)
    # a deck success: a colour tile drawn, its egg taken, the path grew and the Gulo stands on it
    draws = [i for i, e in enumerate(events) if e == "draw"]
    colour_draws = [i for i in draws if nest.outcomes[i]["tile"] != "J"]
    assert colour_draws, events
    success = nest.outcomes[colour_draws[0] + 1]
    assert success["event"] == "success" and success["to"] == 20 and success["next"] == success["player"]
    status = nest.status()
    assert status["phase"] == "won" and status["state"]["winner"] == winner
    assert len(status["state"]["path"]) >= 20
    nest.check_log("current")
    archived = nest.ask("logs")["logs"]
    nest.check_log(archived[-1])
    assert not [f for f in nest.faults if f.get("what") == "storage"]


def test_a_fast_game_to_a_win(nest):
    nest.new(2, "fast", FAST_SEED)
    winner = nest.play_to_win()
    final = outcome_without_time(nest.outcomes[-1])
    assert final == {"event": "junior", "player": winner, "winner": winner}
    assert nest.actions[-1] == {"do": "reveal"}          # no purple egg needed
    colour_draws = [o for o in nest.outcomes if o["event"] == "draw"]
    assert colour_draws and all(o["tile"] != "J" for o in colour_draws)
    assert len(nest.game.path) == 19                     # the path never grows
    assert nest.status()["state"]["winner"] == winner
    nest.check_log("current")


def test_alarms_by_pole_and_egg_wrong_egg_and_pole_between_turns(nest):
    ctl = nest.ctl
    nest.new(3, "standard", 7)

    # The pole falls between turns: only asked to be put back, no action, the same player picks.
    before = nest.game.state()
    nest.wait_phase("pick")
    with nest.prompts_held():
        ctl.knock_pole()
        nest.wait(lambda ev: nest.prompt == POLE_BACK)
        assert nest.status()["state"] == before
        ctl.seat_pole()
    assert nest.wait_phase("pick")[1] == before["turn"]
    assert nest.actions == [] and nest.game.state() == before

    # A clean turn first, so that a Gulo has somewhere to fall back from.
    nest.play_turn("roll")

    # EGG ALARM by the pole during the attempt: siren, the Gulo back, eggs back, turn passes.
    player = nest.game.turn
    nest.pick("reveal")
    knocked = ctl.knock_pole()["t_ms"]
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "pole"}
    assert outcome["event"] == "alarm" and outcome["next"] == (player + 1) % 3
    assert ctl.sounded(sounds.ALARM[0][0], knocked) is not None  # the siren sounded

    # Wrong egg: a failed attempt, exactly like an alarm.
    nest.pick("reveal")
    demand = nest.game.demand
    wrong = next(c for c in "GYRB" if c != demand and nest.game.nest[c] > 0)
    action, outcome = nest.take(wrong)
    assert action == {"do": "take", "egg": wrong}
    assert outcome["event"] == "alarm" and outcome["cause"] == "wrong egg" and outcome["egg"] == wrong

    # A second egg in the confirmation window turns the success into an EGG ALARM.
    nest.pick("reveal")
    demand = nest.game.demand
    other = next(c for c in "GYRB" if c != demand and nest.game.nest[c] > 0)
    nest.ctl.drop(demand)
    nest.wait(lambda ev: ev.get("note", {}).get("phase") == "confirm")
    ctl.drop(other)
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "egg"} and outcome["event"] == "alarm"

    # Two eggs out together during the attempt: an EGG ALARM too.
    nest.pick("reveal")
    a, b = [c for c in "GYRB" if nest.game.nest[c] > 0][:2]
    ctl.drop(a)
    ctl.drop(b)
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "egg"}, (action, outcome)

    # After the alarms the nest asks for the eggs and is ready again; the log agrees throughout.
    assert any(ev.get("note", {}).get("prompt") == EGGS_BACK for ev in nest.seen)
    nest.wait_phase("pick")
    nest.check_log("current")


def _late_position(variant, seed, want):
    """Actions played on the host (best pick, clean eggs) until `want(game)` holds."""
    g, actions = Game.new(2, variant, seed), []
    while not want(g):
        pick = best_pick(g)
        a = {"do": "reveal"} if pick == "reveal" else {"do": "choose", "colour": pick}
        g.apply(a)
        actions.append(a)
        if not want(g) and g.demand is not None:
            a = {"do": "take", "egg": g.demand}
            g.apply(a)
            actions.append(a)
    return actions


def test_deck_failure_and_purple_alarm(nest):
    # Standard seed 1: a Gulo on the last tile with a colour tile on top of the deck (staged).
    on_last = _late_position("standard", STANDARD_SEED,
                             lambda g: g.demand is None and g.on_last_tile() and g.deck[0] != "J")
    game = stage_game(nest, nest.tmp, on_last, 2, "standard", STANDARD_SEED)
    tile, pos, deck = game.deck[0], game.position(), game.deck
    _action, outcome = nest.pick("reveal")
    assert outcome == {"event": "draw", "player": game.turn, "tile": tile, "demand": tile}
    nest.ctl.knock_pole()          # deck failure: back to the nearest tile of that colour behind
    action, outcome = nest.next_action()
    assert action == {"do": "alarm", "cause": "pole"}
    behind = max([k for k in range(1, pos) if game.path[k - 1] == tile], default=0)
    assert outcome["to"] == behind and nest.game.deck == deck[1:] + tile
    nest.check_log("current")

    # Gulo junior turned over: the purple egg; an alarm costs one tile and J goes under the deck.
    junior = _late_position("standard", STANDARD_SEED, lambda g: g.drawn == "J")
    junior.pop()                   # stop before the draw itself
    game = stage_game(nest, nest.tmp, junior, 2, "standard", STANDARD_SEED)
    pos = game.position()
    _action, outcome = nest.pick("reveal")
    assert outcome["tile"] == "J" and outcome["demand"] == "P"
    wrong = nest.game.demand == "P" and "G"
    action, outcome = nest.take(wrong)
    assert outcome["event"] == "alarm" and outcome["to"] == max(0, pos - 1)
    assert nest.game.deck.endswith("J") and nest.game.winner is None
    nest.check_log("current")
