# The rules of docs/rules.md, situation by situation, as the rulebook describes or draws them.
# Plain functions and asserts: they run on CPython (pytest) and inside MicroPython.

from gulo.rules import NEST_FULL, Game, RuleError, check_setup, deal

from gamekit import game_with, play, put_on_last_tile, raises


def test_start():
    g = game_with("GRYB", players=3)
    s = g.state()
    assert s["revealed"] == 0
    assert s["positions"] == [0, 0, 0]
    assert s["turn"] == 0
    assert s["demand"] is None and s["drawn"] is None and s["winner"] is None
    assert s["nest"] == NEST_FULL
    assert len(s["path"]) == 19 and len(s["deck"]) == 5 and "J" in s["deck"]


def test_at_the_start_the_player_must_reveal():
    g = game_with("GRYB")
    assert g.legal_actions() == [{"do": "reveal"}]
    assert raises(RuleError, g.choose, "G")
    out = play(g, "reveal")
    assert out["tile"] == 1 and out["demand"] == "G"
    assert g.demand == "G" and g.revealed == 1


def test_reveal_or_choose_a_colour_face_up_ahead():
    g = game_with("GRYB")
    play(g, "reveal", "take G")         # player 0 on tile 1
    play(g, "reveal", "take R")         # player 1 reveals tile 2 (R) and jumps onto it
    assert g.positions == [1, 2] and g.turn == 0
    # Player 0 on tile 1: R (tile 2) is face up ahead, so both are legal.
    acts = g.legal_actions()
    assert {"do": "reveal"} in acts and {"do": "choose", "colour": "R"} in acts
    assert {"do": "choose", "colour": "G"} not in acts  # tile 1 is under the Gulo, not ahead
    assert raises(RuleError, g.choose, "G")
    assert raises(RuleError, g.choose, "Y")  # face down
    play(g, "choose R", "take R")
    assert g.positions == [2, 2] and g.turn == 1
    # Player 1 on tile 2 has nothing face up ahead: must reveal.
    assert g.legal_actions() == [{"do": "reveal"}]


def test_choose_rejects_what_is_not_a_colour():
    g = game_with("GRYB")
    play(g, "reveal", "take G", "reveal", "take R")
    for bad in ("", "RR", "P", "J", None, 3):
        assert raises(RuleError, g.choose, bad)
    assert g.demand is None


def test_fig5_success_lands_on_the_nearest_tile_of_the_colour():
    # Face up R Y B; player 0 on tile 1 reveals tile 4, a yellow: the jump ends on tile 2,
    # the nearer yellow, never over it onto the tile just revealed.
    g = game_with("RYBY", players=3)
    play(g, "reveal", "take R", "reveal", "take Y", "reveal", "take B")
    assert g.positions == [1, 2, 3] and g.turn == 0
    out = play(g, "reveal", "take Y")
    assert out["event"] == "success" and out["from"] == 1 and out["to"] == 2
    assert g.positions[0] == 2 and g.revealed == 4
    # Player 1 on tile 2: the only yellow ahead is tile 4.
    play(g, "choose Y", "take Y")
    assert g.positions[1] == 4


def test_fig6_alarm_moves_back_to_the_nearest_tile_of_the_colour_behind():
    g = game_with("RGRYR")
    play(g, "reveal", "take R", "reveal", "take G")         # p0 on 1 (R), p1 on 2 (G)
    play(g, "reveal", "take R", "reveal", "take Y")         # p0 on 3 (R), p1 on 4 (Y)
    assert g.positions == [3, 4]
    out = play(g, "reveal", "alarm pole")                     # p0 reveals tile 5 (R), pole falls
    assert out["event"] == "alarm" and out["cause"] == "pole"
    assert g.positions[0] == 1                                # tile 3 is under it: tile 1 is behind
    play(g, "choose R", "alarm egg")                          # p1 on 4, an egg falls out
    assert g.positions[1] == 3
    assert g.nest == NEST_FULL and g.turn == 0


def test_fig6_alarm_with_no_such_tile_behind_goes_back_to_the_start():
    g = game_with("RGY")
    play(g, "reveal", "take R", "reveal", "take G", "reveal", "take Y")
    assert g.positions == [3, 2] and g.turn == 1
    play(g, "choose Y", "alarm")
    assert g.positions[1] == 0


def test_eggs_leave_the_nest_and_all_go_back_after_an_alarm():
    g = game_with("RGY")
    play(g, "reveal", "take R", "reveal", "take G")
    assert g.nest["R"] == 4 and g.nest["G"] == 4
    play(g, "reveal", "alarm pole")
    assert g.nest == NEST_FULL


def test_wrong_egg_is_an_alarm():
    g = game_with("RGRY")
    play(g, "reveal", "take R", "reveal", "take G")  # p0 on 1, p1 on 2
    out = play(g, "reveal", "take G")                # p0 must take R (tile 3) but takes a G
    assert out["event"] == "alarm" and out["cause"] == "wrong egg" and out["egg"] == "G"
    assert g.positions[0] == 0                       # no R strictly behind tile 1
    assert g.nest == NEST_FULL and g.turn == 1 and g.demand is None


def test_last_egg_of_a_colour_refills_the_nest_and_gives_another_turn():
    g = game_with("GGGGG")
    play(g, "reveal", "take G", "reveal", "take G")      # 3 green left
    play(g, "choose G", "take G", "choose G", "take G")  # 1 green left
    assert g.nest["G"] == 1 and g.turn == 0
    out = play(g, "reveal", "take G")
    assert out["last_egg"] is True
    assert g.nest == NEST_FULL
    assert g.turn == 0 and out["next"] == 0       # the same player goes again


def test_take_needs_a_demand_and_an_egg_in_the_nest():
    g = game_with("GRYB")
    assert raises(RuleError, g.take, "G")
    play(g, "reveal")
    for bad in ("", "J", "X", None, "GG"):
        assert raises(RuleError, g.take, bad)
    assert g.demand == "G" and g.nest == NEST_FULL


def test_pole_falling_between_turns_is_no_alarm():
    g = game_with("GRYB")
    assert raises(RuleError, g.alarm, "pole")
    assert g.state()["turn"] == 0


def test_alarm_cause_must_be_known():
    g = game_with("GRYB")
    play(g, "reveal")
    assert raises(RuleError, g.alarm, "wind")
    assert g.demand == "G"


def test_a_called_alarm_is_judged_like_any_alarm():
    # docs/rules.md, "The players have the last word": cause "called", judged as an EGG ALARM.
    a, b = game_with("GRYGB"), game_with("GRYGB")
    for g, cause in ((a, "called"), (b, "pole")):
        play(g, "reveal", "take G", "reveal", "take R", "reveal", "take Y", "reveal", "alarm " + cause)
    assert a.state() == b.state()
    assert a.positions == [3, 1] and a.turn == 0   # player 1 back from tile 2 to the G of tile 1
    g = game_with("GRYB")
    assert raises(RuleError, g.alarm, "called")   # no attempt under way: nothing to call


def test_undo_a_success_and_the_reveal_after_it():
    g = game_with("GRYB")
    play(g, "reveal")
    before = g.state()
    play(g, "take G", "reveal")           # player 1 already turned tile 2 over
    out = g.undo()
    assert out == {"event": "undo", "player": 0, "undone": 2, "demand": "G"}
    assert g.state() == before            # tile 2 face down again, player 0 takes G again
    assert raises(RuleError, g.undo)      # one level: the verdict before is not undone
    play(g, "take G")
    assert g.positions == [1, 0] and g.turn == 1


def test_undo_a_wrong_egg_alarm_and_a_last_egg():
    g = game_with("GRYB")
    play(g, "reveal")
    before = g.state()
    out = play(g, "take R")               # the wrong colour: an alarm
    assert out["event"] == "alarm" and g.turn == 1
    assert g.undo()["undone"] == 1 and g.state() == before
    # The last green egg refilled the nest and gave another turn: undone, one egg is still in.
    g = game_with("GGGGGG", deck="YRBYJ")
    play(g, *(["reveal", "take G"] * 4 + ["reveal"]))
    before = g.state()
    assert play(g, "take G")["last_egg"]
    g.undo()
    assert g.state() == before and g.nest["G"] == 1


def test_undo_an_alarm_and_a_win():
    g = game_with("GRYB")
    play(g, "reveal")
    before = g.state()
    play(g, "alarm called")
    g.undo()
    assert g.state() == before
    g = game_with("GRYB", deck="JGYRB")
    put_on_last_tile(g, 0)
    play(g, "reveal")
    before = g.state()
    assert play(g, "take P")["winner"] == 0
    g.undo()
    assert g.state() == before and g.winner is None


def test_nothing_to_undo_before_a_verdict_and_a_refused_action_keeps_the_undo():
    g = game_with("GRYB")
    assert not g.can_undo() and raises(RuleError, g.undo)
    play(g, "reveal")
    assert raises(RuleError, g.undo)      # a pick alone is no verdict
    play(g, "take G")
    assert raises(RuleError, g.take, "G")  # refused (no demand): changes nothing, the undo stays
    assert g.can_undo()


def test_reveal_is_impossible_once_every_path_tile_is_face_up():
    g = game_with("GRYB")
    g.revealed = 19  # all face up, player 0 at the start
    assert raises(RuleError, g.reveal)
    assert {"do": "reveal"} not in g.legal_actions()


def test_reaching_the_last_tile_ends_the_turn_in_the_standard_game():
    g = game_with("GRYB", deck="RGJYB")
    g.revealed = 19
    g.positions[0] = 18
    last = g.path[18]
    out = play(g, "choose " + last, "take " + last)
    assert out["to"] == 19 and g.turn == 1
    play(g, "choose G", "alarm")                 # player 1 fails somewhere
    assert g.turn == 0
    # On the last tile: neither a path tile nor a choice, only the deck.
    assert g.legal_actions() == [{"do": "reveal"}]
    assert raises(RuleError, g.choose, "G")
    out = play(g, "reveal")
    assert out["event"] == "draw" and out["tile"] == "R"
    assert g.drawn == "R" and g.demand == "R" and g.deck == "GJYB"


def test_fig7a_deck_success_extends_the_path_and_the_player_goes_on():
    g = game_with("GRYB", deck="RGJYB")
    put_on_last_tile(g, 0)
    out = play(g, "reveal", "take R")
    assert out["event"] == "success" and out["to"] == 20
    assert g.path[19] == "R" and len(g.path) == 20 and g.revealed == 20
    assert g.positions[0] == 20 and g.turn == 0 and g.drawn is None
    assert g.legal_actions() == [{"do": "reveal"}]    # turns over the next deck tile
    play(g, "reveal")
    assert g.drawn == "G"
    # The appended tile is an ordinary path tile for the others.
    g2 = game_with("GRYB", deck="RGJYB")
    put_on_last_tile(g2, 0)
    g2.positions[1] = 19
    play(g2, "reveal", "take R", "reveal", "alarm")
    assert g2.turn == 1
    assert {"do": "choose", "colour": "R"} in g2.legal_actions()


def test_fig7b_deck_alarm_puts_the_tile_under_the_deck_and_moves_back():
    g = game_with("GRYB", deck="RGJYB")
    put_on_last_tile(g, 0)
    path = g.path
    out = play(g, "reveal", "alarm pole")
    behind = max([k for k in range(1, 19) if path[k - 1] == "R"] or [0])
    assert out["to"] == behind and g.positions[0] == behind
    assert g.deck == "GJYBR" and g.drawn is None
    assert len(g.path) == 19 and g.turn == 1 and g.nest == NEST_FULL


def test_fig7c_purple_alarm_moves_back_one_tile_and_junior_goes_under_the_deck():
    g = game_with("GRYB", deck="JRGYB")
    put_on_last_tile(g, 0)
    out = play(g, "reveal")
    assert out["tile"] == "J" and g.demand == "P" and g.drawn == "J"
    out = play(g, "alarm egg")
    assert g.positions[0] == 18 and out["to"] == 18
    assert g.deck == "RGYBJ" and g.turn == 1 and g.winner is None


def test_wrong_egg_for_junior_is_a_purple_alarm():
    g = game_with("GRYB", deck="JRGYB")
    put_on_last_tile(g, 0)
    play(g, "reveal", "take R")
    assert g.positions[0] == 18 and g.deck.endswith("J") and g.turn == 1


def test_fig8_purple_egg_frees_gulo_junior_and_wins():
    g = game_with("GRYB", deck="JRGYB", players=4)
    put_on_last_tile(g, 2)
    out = play(g, "reveal", "take P")
    assert out["winner"] == 2 and g.winner == 2
    assert g.state()["winner"] == 2 and g.demand is None and g.drawn is None
    assert g.legal_actions() == []
    assert raises(RuleError, g.reveal)


def test_fast_reaching_the_last_tile_goes_straight_on_to_the_deck():
    g = game_with("GRYB", deck="RGJYB", variant="fast")
    g.revealed = 19
    g.positions[0] = 18
    last = g.path[18]
    play(g, "choose " + last, "take " + last)
    assert g.positions[0] == 19 and g.turn == 0        # same player, straight on
    assert g.legal_actions() == [{"do": "reveal"}]


def test_fast_deck_success_puts_the_tile_under_the_deck_and_goes_on():
    g = game_with("GRYB", deck="RGJYB", variant="fast")
    put_on_last_tile(g, 0)
    play(g, "reveal", "take R")
    assert g.deck == "GJYBR" and len(g.path) == 19 and g.positions[0] == 19 and g.turn == 0
    play(g, "reveal", "alarm pole")                      # G: back to the nearest G behind
    assert g.deck == "JYBRG" and g.turn == 1
    assert g.positions[0] == max([k for k in range(1, 19) if g.path[k - 1] == "G"] or [0])


def test_fast_junior_wins_at_once():
    g = game_with("GRYB", deck="JRGYB", variant="fast", players=3)
    put_on_last_tile(g, 1)
    out = play(g, "reveal")
    assert out["event"] == "junior" and g.winner == 1
    assert g.demand is None and g.drawn is None and "J" not in g.deck


def test_setup_is_checked():
    path, deck = deal(7)
    check_setup(2, "standard", path, deck)
    bad = [
        (1, "standard", path, deck), (7, "standard", path, deck), (True, "standard", path, deck),
        (2, "slow", path, deck), (2, "standard", path[:-1], deck),
        (2, "standard", path, deck.replace("J", "G")),
        (2, "standard", "G" + path[1:], deck) if path[0] != "G" else (2, "standard", "Y" + path[1:], deck),
        (2, "standard", path[:-1] + "P", deck),
    ]
    for args in bad:
        assert raises(RuleError, check_setup, *args), args


def test_deal_is_the_same_on_every_port():
    # The host and the board must deal the same game from the same seed: these strings were
    # dealt on CPython, and this test also runs inside MicroPython.
    assert deal(1) == ("GYRYGYBYRGRRYBBGRGB", "YJBGR")
    assert deal(2024) == ("RBYGBBGBYRRBYYGRRYG", "JYGGR")
    g = Game.new(3, "fast", seed=1)
    assert g.path == deal(1)[0] and g.variant == "fast" and g.players == 3


def test_deals_differ_and_are_legal():
    seen = set()
    for seed in range(40):
        path, deck = deal(seed)
        check_setup(2, "standard", path, deck)
        seen.add(path + deck)
    assert len(seen) == 40

