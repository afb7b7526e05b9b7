"""The virtual nest's physical world across a restart (issue 19): with `keep_world` (as `nest web`
and `nest sim --flash` start it) the eggs out of the bowl and a pole on the table are kept beside the
flash folder and put back at the next start, in the launcher's copy of the world and in the VM's,
which is the one the firmware weighs. Without it the nest starts full, as before."""

import json
import time

import pytest

from testkit.vboard_fixtures import mpremote, vboard_factory  # noqa: F401 (fixture)

pytestmark = pytest.mark.board

VM_WORLD = "import _vbhw, json; w = _vbhw.world(); print(json.dumps([w.nest, w.pole_is_seated(10**9)]))"


def _vm_world(board):
    out = mpremote(board, "exec", VM_WORLD).stdout.strip().splitlines()[-1]
    return json.loads(out)


def test_eggs_out_and_a_fallen_pole_are_there_after_a_restart(vboard_factory, tmp_path):  # noqa: F811
    flash = tmp_path / "flash"
    board = vboard_factory(flash_dir=flash, keep_world=True)
    board.control.take("R")
    board.control.take("Y", in_ms=2000)
    board.control.knock_pole(in_ms=4000)
    time.sleep(0.2)
    kept = json.loads((tmp_path / "flash.world.json").read_text())
    assert kept == {"nest": {"G": 5, "Y": 4, "R": 4, "B": 5, "P": 2}, "pole_seated": False}
    board.stop()

    again = vboard_factory(flash_dir=flash, keep_world=True)
    w = again.control.world()
    assert w["nest"] == kept["nest"] and w["pole_seated"] is False
    nest, seated = _vm_world(again)
    assert nest == kept["nest"] and seated is False   # what the firmware weighs and feels


def test_without_keep_world_the_nest_starts_full(vboard_factory, tmp_path):  # noqa: F811
    flash = tmp_path / "flash"
    board = vboard_factory(flash_dir=flash)
    board.control.take("R")
    board.stop()
    assert not (tmp_path / "flash.world.json").exists()
    assert vboard_factory(flash_dir=flash).control.world()["nest"]["R"] == 5


def test_a_damaged_world_file_is_named_and_the_nest_starts_full(vboard_factory, tmp_path):  # noqa: F811
    (tmp_path / "flash").mkdir()
    (tmp_path / "flash.world.json").write_text('{"nest": {"R": 9}, "pole_seated": true}')
    board = vboard_factory(flash_dir=tmp_path / "flash", keep_world=True)
    assert board.control.world()["nest"]["R"] == 5
    assert "not restored" in board.log_path.read_text()
