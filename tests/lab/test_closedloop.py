"""lab.closedloop: the models' players wait for the game. Each hand that follows the game (a turn's
first, the first after an alarm) comes once the game is free, the game played is the model's own,
only later, and the check that finds a hand too early can fail: the model as written fails it."""

import pytest

from lab import closedloop, tablemodel, weighscore

SEEDS = range(1001, 1005)


def _early(s):
    """Hands of `s` that came while the game was not yet free after what came before them."""
    ready = closedloop.free_times(s, s.samples)
    return [(hand, after) for hand, after in s.starts
            if (free := closedloop._free_after(ready, after)) is not None and hand < free]


WAITING = ("phys", "lift", "grip", "table", "hand")   # every model of the lab's but nest.world


@pytest.mark.parametrize("model", WAITING)
@pytest.mark.parametrize("rate", [80, 10])
def test_every_hand_that_follows_the_game_comes_once_it_is_free(model, rate):
    module = weighscore.model_module(model)
    for seed in SEEDS[:2]:
        s, _ = closedloop.session(module, seed, rate)
        assert s.early == 0 and s.starts
        assert _early(s) == []


def test_the_check_fails_on_the_model_as_written():
    # the planted fault: no wait at all (the script's own timing), as `--model table-open` plays it
    early = sum(len(_early(tablemodel.session(seed, 80))) for seed in SEEDS)
    assert early > 0


@pytest.mark.parametrize("model", WAITING)
def test_the_same_game_only_later(model):
    module = weighscore.model_module(model)
    for seed in SEEDS[:2]:
        open_ = module.session(seed, 80)
        closed, _ = closedloop.session(module, seed, 80)
        assert [(e["what"], e.get("colour"), e.get("demand")) for e in closed.truth] == \
            [(e["what"], e.get("colour"), e.get("demand")) for e in open_.truth]
        assert len(closed.starts) == len(open_.starts)
        for k, ((hand, after), (hand0, after0)) in enumerate(zip(closed.starts, open_.starts)):
            # the model's own delay is kept, the wait added to it
            assert hand - after == pytest.approx(hand0 - after0 + 1000 * closed.waits[k], abs=2)


@pytest.mark.parametrize("model", WAITING)
def test_no_wait_is_the_model_as_written(model):
    module = weighscore.model_module(model)
    assert module.session(1001, 80, waits={}).samples == module.session(1001, 80).samples


def test_the_scorer_plays_the_table_closed_and_table_open_as_written():
    closed, samples = weighscore.trace("table", 1001, 80)
    assert samples == closedloop.session(tablemodel, 1001, 80)[1]
    assert weighscore.trace("table-open", 1001, 80)[1] == tablemodel.session(1001, 80).samples
    assert closed.early == 0


def test_the_scorers_picks_find_the_game_busy_far_less_often_than_as_written():
    # the scorer's picks (lab.weighscore.demands), a definition apart from the model's `starts`;
    # a pick may still find the nest moving again after it was free (a knock on the table)
    seeds = range(1001, 1021)
    busy, turns = closedloop.busy_picks("table", 80, seeds)
    busy_open, turns_open = closedloop.busy_picks("table-open", 80, seeds)
    assert turns > 200 and busy_open > 0
    assert busy / turns < busy_open / turns_open / 4     # 1.6 % against 18.2 %
