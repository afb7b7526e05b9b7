# The running game (an append-only log of sealed lines), its archive and the settings on flash.

import json
import os

from gulo import gamestore, store
from gulo.gamestore import KEEP_GAMES, GameStore, Settings
from gulo.rules import state_json
from gulo.store import CorruptFile

from gamekit import caught, game_with, log_lines
from scratch import scratch_dir

ACTIONS = ({"do": "reveal"}, {"do": "take", "egg": "G"}, {"do": "reveal"})


def played_store(actions=ACTIONS):
    d = scratch_dir()
    gs = GameStore(d)
    g = game_with("GRYB")
    gs.start(g, seed=5)
    for action in actions:
        g.apply(action)
        gs.record(action, t_ms=1000)
        gs.flush()
    return d, gs, g


def size(path):
    return os.stat(path)[6]


def file_lines(path):
    with open(path) as f:
        return f.read().split("\n")[:-1]


def test_a_game_resumes_where_it_was():
    d, gs, g = played_store()
    again = GameStore(d)
    game, problem = again.resume()
    assert problem is None and state_json(game) == state_json(g) and again.actions == 3
    assert again.recovered == []


def test_drop_last_removes_the_last_action_on_flash():
    d, gs, g = played_store()
    g.undo()                                    # take G and the reveal after it
    assert gs.drop_last(2)
    again, problem = GameStore(d).resume()
    assert problem is None and state_json(again) == state_json(g)
    assert len(again.path) == 19 and again.demand == "G" and again.turn == 0


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


def test_one_sealed_line_appended_per_action_and_the_setup_written_once():
    d, gs, g = played_store(ACTIONS[:1])
    before = file_lines(gs.current)
    assert len(before) == 2 and json.loads(before[0])["setup"]["seed"] == 5
    gs.record({"do": "take", "egg": "G"}, t_ms=2000)
    assert file_lines(gs.current) == before  # record only queues: no flash on the alarm's path
    gs.flush()
    after = file_lines(gs.current)
    assert after[:2] == before and len(after) == 3  # the earlier lines untouched
    assert json.loads(store.unseal(after[2])) == {"do": "take", "egg": "G", "t": 2000}


def test_a_torn_last_line_is_dropped_at_boot_reported_and_never_glued_to():
    d, gs, g = played_store()
    before = state_json(g)
    with open(gs.current, "ab") as f:  # the cut: half of the next action's line appended
        f.write(b'{"do": "take", "eg')
    again = GameStore(d)
    game, problem = again.resume()
    assert problem is None and state_json(game) == before
    assert again.recovered == [{"ev": "recovered", "file": "game.log",
                                "detail": "torn last line (18 bytes, no end): dropped"}]
    # the log was set right: the next action's line follows whole lines
    g.apply({"do": "take", "egg": "G"})
    again.record({"do": "take", "egg": "G"})
    again.flush()
    game, problem = GameStore(d).resume()
    assert problem is None and state_json(game) == state_json(g)


def test_a_power_cut_mid_write_of_a_whole_file_keeps_the_previous_state():
    d, gs, g = played_store()
    with open(d + "/game.log.tmp", "w") as f:  # the cut: an undo's rewrite, half written
        f.write('{"setup')
    gs2 = GameStore(d)
    assert gs2.recovered == [{"ev": "recovered", "file": "game.log.tmp"}]
    game, problem = gs2.resume()
    assert problem is None and state_json(game) == state_json(g)


def test_a_damaged_log_is_reported_and_set_aside():
    d, gs, g = played_store()
    with open(d + "/game.log", "r+b") as f:
        f.seek(30)
        f.write(b"#")
    game, problem = GameStore(d).resume()
    assert game is None and "line 1 damaged" in problem and "game.bad" in problem
    assert GameStore(d).resume() == (None, None)
    with open(d + "/game.bad", "rb") as f:
        assert len(f.read()) > 30


def test_a_log_the_earlier_firmware_wrote_whole_resumes_and_goes_on_sealed():
    d, gs, g = played_store()
    store.save(gs.current, "\n".join(log_lines(gs, "current")) + "\n")  # the format before issue 16
    again = GameStore(d)
    game, problem = again.resume()
    assert problem is None and state_json(game) == state_json(g) and store.sealed(again.current)
    again.record({"do": "take", "egg": "G"})
    again.flush()
    g.apply({"do": "take", "egg": "G"})
    assert state_json(GameStore(d).resume()[0]) == state_json(g)


def test_a_log_that_breaks_the_rules_is_set_aside():
    d, gs, g = played_store()
    store.append(gs.current, store.seal('{"do": "fly"}'))  # sealed, but no action
    game, problem = GameStore(d).resume()
    assert game is None and "unreadable (line 5" in problem


def test_finished_games_are_archived_plain_and_the_oldest_dropped():
    d, gs, g = played_store()
    assert gs.finish() == "0001.jsonl" and gs.finish() == "0001.jsonl"  # once per game
    for _ in range(KEEP_GAMES + 1):
        gs.archived = None
        gs.finish()
    logs = gs.logs()
    assert len(logs) == KEEP_GAMES and logs[0] == "0003.jsonl"
    lines = log_lines(gs, logs[-1])
    assert json.loads(lines[0])["setup"]["seed"] == 5 and json.loads(lines[1]) == {"do": "reveal", "t": 1000}
    assert log_lines(gs, "current") == lines  # both without the seals, as the console sends them
    assert log_lines(gs, "nope.jsonl") is None


def test_a_won_game_is_archived_after_its_last_line():
    d, gs, g = played_store()
    gs.record({"do": "reveal"})
    gs.close()
    assert gs.logs() == []  # the writer has not run yet
    gs.flush()
    assert gs.logs() == ["0001.jsonl"] and len(log_lines(gs, "0001.jsonl")) == 5


def test_nothing_played_is_not_archived():
    d, gs, g = played_store(())
    assert gs.finish() is None and gs.logs() == []


def test_a_damaged_archive_is_an_error_naming_the_file_and_the_damage():
    d, gs, g = played_store()
    name = gs.finish()
    path = gs.games + "/" + name
    with open(path, "r+b") as f:
        f.seek(-5, 2)
        f.write(b"#")
    e = caught(CorruptFile, log_lines, gs, name)
    assert e.path == path and e.reason.startswith("damaged last line 4")
    with open(path, "r+b") as f:
        f.seek(10)
        f.write(b"#")
    assert caught(CorruptFile, log_lines, gs, name).reason.startswith("line 1 damaged")


def test_a_queued_line_survives_a_failed_write_and_goes_out_with_the_next():
    d, gs, g = played_store()
    real = store.append, store.replace

    def failing(path, line):
        with open(path, "ab") as f:
            f.write(line[:7].encode())  # part of the line, then the flash fails
        raise OSError(5)

    def no_room(path, *chunks):
        raise OSError(5)

    store.append, store.replace = failing, no_room
    try:
        gs.record({"do": "take", "egg": "G"})
        assert gs.flush() is False
        assert gs.problem.startswith("cannot write") and gs.unsaved() == 1
        assert json.loads(log_lines(gs, "current")[-1]) == {"do": "take", "egg": "G"}  # the game in RAM
    finally:
        store.append, store.replace = real
    assert gs.flush() is True and gs.problem is None and gs.unsaved() == 0
    g.apply({"do": "take", "egg": "G"})
    game, problem = GameStore(d).resume()
    assert problem is None and state_json(game) == state_json(g)


def test_a_new_game_on_a_full_flash_waits_in_ram_and_never_follows_the_old_log():
    d, gs, g = played_store()
    real = store.replace

    def full(path, *chunks):
        raise OSError(28, "no space left")

    store.replace = full
    try:
        new = game_with("YRGB")
        gs.start(new, seed=9)
        assert gs.problem.startswith("flash full: ") and gs.fresh
        new.apply({"do": "reveal"})
        gs.record({"do": "reveal"})
        assert gs.flush() is False
        assert json.loads(log_lines(gs, "current")[0])["setup"]["seed"] == 9  # the new game, in RAM
        assert len(log_lines(gs, "current")) == 2
    finally:
        store.replace = real
    assert gs.flush() is True and gs.problem is None
    game, problem = GameStore(d).resume()
    assert problem is None and state_json(game) == state_json(new)


def test_an_undo_of_the_winning_verdict_archives_nothing():
    d, gs, g = played_store()
    gs.record({"do": "take", "egg": "G"})
    gs.close()  # the writer has not run yet
    assert gs.drop_last() is True
    assert gs.logs() == [] and state_json(GameStore(d).resume()[0]) == state_json(g)


# ---- undo ------------------------------------------------------------------------------------------

def test_drop_last_removes_the_last_action():
    d, gs, g = played_store()
    before = game_with("GRYB")
    for action in ACTIONS[:-1]:
        before.apply(action)
    assert gs.drop_last() is True and gs.actions == 2
    game, problem = GameStore(d).resume()
    assert problem is None and state_json(game) == state_json(before)
    assert [gs.drop_last(), gs.drop_last(), gs.drop_last()] == [True, True, False]
    assert len(file_lines(gs.current)) == 1  # the set-up stays


def test_drop_last_drops_a_queued_line_and_reopens_a_finished_game():
    d, gs, g = played_store()
    gs.record({"do": "take", "egg": "G"})
    gs.close()
    gs.flush()
    assert gs.logs() == ["0001.jsonl"]
    assert gs.drop_last() is True
    assert gs.logs() == [] and gs.archived is None  # no longer finished: its copy is gone
    game, problem = GameStore(d).resume()
    assert problem is None and state_json(game) == state_json(g)


class Cut(Exception):
    """The power died."""


def cut_during(fn, write_before_the_cut):
    """Run fn() with gulo.store.replace cut short: the power dies after it has written
    `write_before_the_cut(path, chunks)`, before anything else."""
    real = store.replace

    def dying(path, *chunks):
        write_before_the_cut(path, chunks)
        raise Cut()

    store.replace = dying
    try:
        caught(Cut, fn)
    finally:
        store.replace = real


def half_to_tmp(path, chunks):
    """The real replace's first half: the new content going to PATH.tmp (not yet renamed)."""
    with open(path + store.TMP, "wb") as f:
        f.write("".join(chunks)[:20].encode())


def half_in_place(path, chunks):
    """Planted fault: an undo that rewrites the log in place (no .tmp, no rename)."""
    with open(path, "wb") as f:
        f.write("".join(chunks)[:20].encode())


def undo_cut_loses_only_the_undo(write_before_the_cut):
    d, gs, g = played_store()
    cut_during(gs.drop_last, write_before_the_cut)
    game, problem = GameStore(d).resume()
    return problem is None and game is not None and state_json(game) == state_json(g)


def test_a_power_cut_during_an_undo_loses_nothing_but_the_undo():
    assert undo_cut_loses_only_the_undo(half_to_tmp)


def test_planted_fault_an_undo_rewriting_in_place_fails_the_check():
    assert not undo_cut_loses_only_the_undo(half_in_place)


# ---- settings --------------------------------------------------------------------------------------

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
    store.save(d + "/config", "not json")
    problem = Settings(d + "/config", {"players": 2}).problem
    assert problem is not None and "not JSON" in problem


def test_the_store_module_keeps_no_whole_log_in_ram():
    # The heap claim behind the append-only log (issue 16): nothing holds the joined log.
    d, gs, g = played_store()
    assert not [k for k, v in gs.__dict__.items() if isinstance(v, str) and "\n" in v]
    assert not hasattr(gs, "lines") and not hasattr(gamestore, "archive")
