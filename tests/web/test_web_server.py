"""The play page's server without a board or a browser: the shaky hand's mishaps, the flash folder
and the command's arguments."""

import random
from collections import Counter

import pytest

from nest.appboard import FIRMWARE, prepare_flash
from nest.cli import main
from nest.web.server import shaky_mishap

FULL = {"G": 5, "Y": 5, "R": 5, "B": 5, "P": 2}


def test_a_steady_chance_of_zero_never_slips_and_one_always_does():
    rng = random.Random(3)
    assert all(shaky_mishap(rng, 0.0, "R", FULL, True, 900) is None for _ in range(200))
    assert all(shaky_mishap(rng, 1.0, "R", FULL, True, 900) is not None for _ in range(200))


def test_the_chance_is_the_share_of_mishaps():
    rng = random.Random(5)
    n = sum(shaky_mishap(rng, 0.3, "G", FULL, True, 900) is not None for _ in range(4000))
    assert 0.25 * 4000 < n < 0.35 * 4000


def test_a_mishap_is_a_real_egg_or_the_pole_while_the_hand_is_in():
    rng = random.Random(7)
    seen = Counter()
    for _ in range(500):
        m = shaky_mishap(rng, 1.0, "B", FULL, True, 700)
        assert 100 <= m["in_ms"] <= 700
        if m["what"] == "drop":
            assert m["colour"] in FULL
            seen[m["colour"]] += 1
        else:
            assert m == {"what": "knock_pole", "in_ms": m["in_ms"]}
            seen["pole"] += 1
    assert set(seen) == {"G", "Y", "R", "B", "P", "pole"}


def test_only_eggs_left_can_be_pushed_out_and_a_fallen_pole_not_knocked():
    rng = random.Random(9)
    lone = {"G": 0, "Y": 0, "R": 1, "B": 0, "P": 1}
    for _ in range(200):
        m = shaky_mishap(rng, 1.0, "R", lone, False, 500)
        assert m == {"what": "drop", "colour": "P", "in_ms": m["in_ms"]}
    only_r = {"G": 0, "Y": 0, "R": 1, "B": 0, "P": 0}
    assert shaky_mishap(rng, 1.0, "R", only_r, False, 500) is None  # nothing else to go wrong


def test_the_flash_gets_the_firmware_and_keeps_the_game(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "game.log").write_text("kept")
    (tmp_path / "main.py").write_text("old")
    (tmp_path / "gulo").mkdir()
    (tmp_path / "gulo" / "stale.py").write_text("gone")
    prepare_flash(tmp_path)
    assert (tmp_path / "data" / "game.log").read_text() == "kept"
    assert not (tmp_path / "main.py").exists()  # written over the serial line once the board is up
    assert not (tmp_path / "gulo" / "stale.py").exists()
    names = sorted(p.name for p in (tmp_path / "gulo").iterdir())
    assert names == sorted(p.name for p in (FIRMWARE / "gulo").glob("*.py"))
    assert (tmp_path / "gulo" / "app.py").read_bytes() == (FIRMWARE / "gulo" / "app.py").read_bytes()


def test_a_bad_port_is_refused(capsys):
    assert main(["web", "--no-open", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_a_flash_folder_that_is_a_file_is_refused(tmp_path, capsys):
    flash = tmp_path / "flash"
    flash.write_text("not a folder")
    assert main(["web", "--no-open", "--port", "0", "--flash", str(flash)]) == 2
    err = capsys.readouterr().err
    assert f"--flash {flash}: cannot use it" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["web", "--help"]])
def test_web_is_a_command(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 0
    assert "--no-open" in capsys.readouterr().out


def test_pour_back_can_return_only_the_eggs_that_belong_in_the_nest():
    from nest.world import NestWorld

    w = NestWorld(seed=3)
    w.take(0, "Y")        # taken this round: stays out
    w.take(3000, "B")     # taken too early: goes back
    w.pour_back(6000, {"B": 1})
    assert w.nest == dict(FULL, Y=4)
    assert w.truth[-1]["eggs"] == {"B": 1}
    with pytest.raises(ValueError, match="only 0 B egg"):
        w.pour_back(9000, {"B": 1})
    with pytest.raises(ValueError, match="colours"):
        w.pour_back(9000, {"X": 1})
    w.pour_back(9000)     # no list: every egg, as before
    assert w.nest == FULL


def test_a_world_restored_as_it_was_left():
    from nest.world import NestWorld

    full = NestWorld(seed=4)
    left = NestWorld(seed=4)
    left.restore({"G": 5, "Y": 4, "R": 3, "B": 5, "P": 2}, pole_seated=False)
    assert left.nest == dict(FULL, Y=4, R=3) and left.pole_seated is False
    assert left.pole_is_seated(0) is False and left.nest_at(0) == left.nest
    missing = full.clean_grams(1000) - left.clean_grams(1000)
    assert abs(missing - (14 + 2 * 16 + full.pole_g)) < 1e-6  # one yellow, two red eggs and the pole
    left.pour_back(2000)  # the eggs restored as out can be poured back like any others
    assert left.nest == FULL
    with pytest.raises(ValueError, match="R must be a count"):
        NestWorld().restore({"R": 6}, True)
