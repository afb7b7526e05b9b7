# The resume check's matcher (gulo.nestcheck): the fewest eggs per colour that explain a weight,
# None when two changes of that many eggs fit or none does. Default masses G 10, P 12, Y 14,
# R 16, B 18 g, and the weigher's tolerance for them: half the narrowest gap, 1.0 g
# (gulo.weigher.Weigher.set_masses). Runs on CPython and inside MicroPython.

from gulo.nestcheck import asked, differ, nest_grams
from gulo.rules import NEST_FULL
from gulo.weigher import DEFAULT_MASSES, Weigher

TOL = Weigher().tolerance_g()


def game_nest(**out):
    """The game's nest with `out` eggs per colour in the players' bags."""
    nest = dict(NEST_FULL)
    for c in out:
        nest[c] -= out[c]
    return nest


def check(off_g, nest):
    return differ(off_g, nest, NEST_FULL, DEFAULT_MASSES, TOL)


def test_the_tolerance_is_the_weighers():
    assert TOL == 1.0


def test_the_game_s_nest_is_no_difference_within_the_tolerance():
    nest = game_nest(R=1, Y=1)
    for off in (0.0, 0.9, -0.9):
        assert check(off, nest) == {}


def test_one_egg_put_back_or_taken_while_off_is_named():
    nest = game_nest(R=1, Y=1)
    assert check(16.3, nest) == {"R": 1}     # the red egg of a bag is in the bowl again
    assert check(-10.2, nest) == {"G": -1}   # a green egg is gone from the bowl
    assert asked({"R": 1}, nest, NEST_FULL) == {"out": {"R": 1}}
    assert asked({"G": -1}, nest, NEST_FULL) == {"back": {"G": 1}}


def test_one_back_and_another_taken_is_named_when_no_other_pair_weighs_the_same():
    nest = game_nest(B=1)
    # the blue egg back (+18), a green one gone (-10): +8 g, and no other pair of eggs that
    # could have moved (only blue can come back) weighs that
    assert check(8.0, nest) == {"B": 1, "G": -1}
    assert asked({"B": 1, "G": -1}, nest, NEST_FULL) == {"back": {"G": 1}, "out": {"B": 1}}


def test_every_egg_back_when_the_world_was_not_kept():
    nest = game_nest(R=1, Y=1, G=1)
    assert check(40.2, nest) == {"R": 1, "Y": 1, "G": 1}


def test_the_fewest_eggs_win_over_more_eggs_of_the_same_weight():
    # -28 g: a green and a blue egg, or a purple and a red, or two yellows...: all pairs; the
    # weight cannot tell them apart
    assert check(-28.0, game_nest()) is None
    # -18 g: one blue egg (three eggs could make other weights, never fewer)
    assert check(-18.0, game_nest()) == {"B": -1}


def test_two_changes_of_as_few_eggs_are_ambiguous():
    nest = game_nest(R=1, Y=1)
    assert check(-24.0, nest) is None   # green + yellow, or two purples
    assert check(2.0, nest) is None     # red back and a yellow gone, or yellow back and a purple gone
    need = asked(None, nest, NEST_FULL)
    assert need == {"pour": True, "out": {"R": 1, "Y": 1}}   # pour all back, take out the game's


def test_a_weight_no_eggs_make_is_no_answer():
    assert check(5.0, game_nest(R=1)) is None       # half an egg: something else lies in the bowl
    assert check(300.0, game_nest(R=1)) is None     # more than every egg out could bring back


def test_an_egg_can_only_come_back_if_the_game_has_it_out():
    assert check(10.0, game_nest()) is None         # a full nest has no green egg to spare
    assert check(10.0, game_nest(G=1)) == {"G": 1}


def test_the_tolerance_is_strict_at_its_edge():
    nest = game_nest(R=1)
    assert check(16.0 + TOL - 0.01, nest) == {"R": 1}
    assert check(16.0 + TOL, nest) is None


def test_nest_grams():
    assert nest_grams(NEST_FULL, DEFAULT_MASSES) == 5 * (10 + 14 + 16 + 18) + 2 * 12


def test_a_change_of_one_egg_more_that_fits_too_names_nothing():
    # 36 g missing: two blue eggs, or two green and a red one (or green, purple, yellow)
    assert check(-36.0, game_nest()) is None
    # four green, a yellow, three red and two blue eggs on the table after a restart (138 g):
    # five blue and three red eggs weigh that too, and so do many changes of nine eggs
    assert check(-138.0, game_nest()) is None
    # 20 g: only two green eggs, and no change of three eggs weighs 20 g
    assert check(-20.0, game_nest()) == {"G": -2}
