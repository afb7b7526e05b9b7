# The running game, its archive and the settings on flash.

from gulo import archive
from gulo.archive import KEEP_GAMES
from gulo.gamestore import GameStore, Settings
from gulo.rules import state_json

from gamekit import game_with
from scratch import scratch_dir


def played_store():
    d = scratch_dir()
    gs = GameStore(d)
    g = game_with("GRYB")
    gs.start(g, seed=5)
    for action in ({"do": "reveal"}, {"do": "take", "egg": "G"}, {"do": "reveal"}):
        g.apply(action)
        gs.record(action, t_ms=1000)
    return d, gs, g


def test_a_game_resumes_where_it_was():
    d, gs, g = played_store()
    again, problem = GameStore(d).resume()
    assert problem is None and state_json(again) == state_json(g)


def test_drop_last_removes_the_last_action_on_flash():
    d, gs, g = played_store()
    g.undo()                                    # take G and the reveal after it
    assert gs.drop_last() and gs.drop_last()
    again, problem = GameStore(d).resume()
    assert problem is None and state_json(again) == state_json(g)
    assert len(again.path) == 19 and again.demand == "G" and again.turn == 0


def test_a_cut_between_two_drops_leaves_a_legal_log_that_undoes_the_same_verdict():
    d, gs, g = played_store()                   # reveal, take G, reveal: an undo drops two lines
    gs.drop_last()                              # the power cut comes here: the pick is gone
    cut, problem = GameStore(d).resume()
    assert problem is None and cut.turn == 1 and cut.demand is None
    gs.drop_last()
    whole, problem = GameStore(d).resume()
    assert problem is None and whole.demand == "G"
    cut.undo()                                  # the board, rebooted, undoes the same verdict
    assert state_json(cut) == state_json(whole)


def test_drop_last_keeps_the_set_up_line():
    d = scratch_dir()
    gs = GameStore(d)
    g = game_with("GRYB")
    gs.start(g)
    assert not gs.drop_last()
    again, problem = GameStore(d).resume()
    assert problem is None and state_json(again) == state_json(g)


def test_no_game_is_no_problem():
    assert GameStore(scratch_dir()).resume() == (None, None)


def test_a_power_cut_mid_write_keeps_the_previous_state():
    d, gs, g = played_store()
    before = state_json(g)
    with open(d + "/game.log.tmp", "w") as f:    # the cut: half of the next version written
        f.write("gulo1 1234abcd 99\n{\"setup")
    gs2 = GameStore(d)
    assert gs2.leftovers == ["game.log.tmp"]
    game, problem = gs2.resume()
    assert problem is None and state_json(game) == before


def test_a_damaged_log_is_reported_and_set_aside():
    d, gs, g = played_store()
    with open(d + "/game.log", "r+b") as f:
        f.seek(30)
        f.write(b"#")
    game, problem = GameStore(d).resume()
    assert game is None and "damaged" in problem
    assert GameStore(d).resume() == (None, None)
    with open(d + "/game.bad", "rb") as f:
        assert len(f.read()) > 30


def test_finished_games_are_archived_and_the_oldest_dropped():
    d, gs, g = played_store()
    names = [gs.finish() for _ in range(KEEP_GAMES + 2)]
    assert names[0] == "0001.jsonl"
    logs = archive.logs(gs)
    assert len(logs) == KEEP_GAMES and logs[0] == "0003.jsonl"
    assert archive.log_text(gs, logs[-1]).startswith('{"setup"')
    assert archive.log_text(gs, "nope.jsonl") is None


def test_settings_fall_back_to_defaults_when_damaged():
    d = scratch_dir()
    s = Settings(d + "/config", {"players": 2, "variant": "standard"})
    assert s.values == {"players": 2, "variant": "standard"} and s.problem is None
    s.values["players"] = 4
    s.save()
    assert Settings(d + "/config", {"players": 2, "variant": "standard"}).values["players"] == 4
    with open(d + "/config", "ab") as f:
        f.write(b"x")
    s3 = Settings(d + "/config", {"players": 2, "variant": "standard"})
    assert s3.values["players"] == 2 and s3.problem is not None and "damaged" in s3.problem
