"""Property tests of the players' appeal (docs/rules.md, "The players have the last word"), over
random legal games (hypothesis, on CPython): an undo restores exactly the state before the last
verdict, with the same player to act, and the log with the undone lines dropped replays (with
`nest replay`'s own reader) to the state the engine shows. The expected state is computed apart
from the engine's undo: by replaying the log up to its last verdict line.

Each check is shown to fail on a planted fault (an undo that leaves an action in the log, that
restores the wrong player, that forgets the picks after the verdict)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gulo.gamelog import encode, read_log, setup_record
from gulo.rules import Game, RuleError, state_json
from nest.replay import replay_file

VERDICTS = ("take", "alarm")


def random_game(seed, players, variant, choices):
    """A random legal game; `choices` gives the next index (mostly the demanded egg, so games move
    on; sometimes anything legal, called alarms included). Returns (game, log lines)."""
    g = Game.new(players, variant, seed)
    log = [encode(setup_record(g))]
    for pick in choices:
        if g.winner is not None:
            break
        legal = g.legal_actions()
        if g.demand is not None and pick % 10 < 6:
            action = {"do": "take", "egg": g.demand}
        else:
            action = legal[pick % len(legal)]
        g.apply(action)
        log.append(json.dumps(action))
    return g, log


def check_undo(g, log, tmp_path, drop=None, since=1):
    """Undo on `g` and check it against the log replayed up to its last verdict (among the lines
    from `since` on: an undone game has none to undo until its next verdict). `drop(log, n)` is
    how the log loses the undone lines (the device's GameStore.drop_last(n), one rewrite)."""
    actions = [json.loads(line) for line in log[1:]]
    verdicts = [i for i, a in enumerate(actions) if a["do"] in VERDICTS and i + 1 >= since]
    if not verdicts:
        with pytest.raises(RuleError):
            g.undo()
        return None
    keep = 1 + verdicts[-1]                      # set-up + the actions before the last verdict
    expected = read_log(log[:keep])
    out = g.undo()
    assert out["undone"] == len(log) - keep
    assert state_json(g) == state_json(expected)
    assert out["player"] == expected.turn and out["demand"] == expected.demand is not None
    log = (drop or (lambda lines, n: lines[:len(lines) - n]))(log, out["undone"])
    path = tmp_path / "after-undo.jsonl"
    path.write_text("\n".join(log) + "\n")
    assert state_json(replay_file(path)) == state_json(g)
    return log


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), players=st.integers(2, 6), variant=st.sampled_from(["standard", "fast"]),
       choices=st.lists(st.integers(0, 99), max_size=250), more=st.lists(st.integers(0, 99), max_size=20))
def test_undo_restores_the_state_before_the_last_verdict(tmp_path, seed, players, variant, choices, more):
    g, log = random_game(seed, players, variant, choices)
    log = check_undo(g, log, tmp_path)
    if log is None:
        return
    # One level only; the game goes on from there, and a later verdict can be undone again.
    with pytest.raises(RuleError):
        g.undo()
    since = len(log)
    for pick in more:
        if g.winner is not None:
            break
        legal = g.legal_actions()
        action = {"do": "take", "egg": g.demand} if g.demand and pick % 2 else legal[pick % len(legal)]
        g.apply(action)
        log.append(json.dumps(action))
    assert state_json(read_log(log)) == state_json(g)
    check_undo(g, log, tmp_path, since=since)


# ---- planted faults: each check above must fail on the fault it is there to catch ----------------

def _a_game_with_a_pick_after_a_verdict():
    g, log = random_game(3, 3, "standard", [0] * 11)
    assert json.loads(log[-1])["do"] in ("reveal", "choose")   # a pick follows the last verdict
    return g, log


def test_planted_an_undo_that_leaves_the_action_in_the_log_fails(tmp_path):
    g, log = _a_game_with_a_pick_after_a_verdict()
    with pytest.raises(AssertionError):
        check_undo(g, log, tmp_path, drop=lambda lines, n: lines[:len(lines) - n + 1])


def test_planted_an_undo_that_restores_the_wrong_player_fails(tmp_path, monkeypatch):
    g, log = _a_game_with_a_pick_after_a_verdict()
    real = Game.undo

    def wrong_player(self):
        out = real(self)
        self.turn = (self.turn + 1) % self.players
        return out

    monkeypatch.setattr(Game, "undo", wrong_player)
    with pytest.raises(AssertionError):
        check_undo(g, log, tmp_path)


def test_planted_an_undo_that_forgets_the_picks_after_the_verdict_fails(tmp_path, monkeypatch):
    g, log = _a_game_with_a_pick_after_a_verdict()
    real = Game.undo

    def verdict_only(self):
        out = real(self)
        out["undone"] = 1
        return out

    monkeypatch.setattr(Game, "undo", verdict_only)
    with pytest.raises(AssertionError):
        check_undo(g, log, tmp_path)
