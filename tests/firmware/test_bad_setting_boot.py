"""A setting the console refuses never reaches the flash, and one already there does not stop the
nest (on the virtual board, the firmware as deployed): `set` answers a float brightness or player
count with a refusal carrying the request's id, and a config.json holding them (written by an
earlier firmware, or by hand) boots into a storage fault naming the file, the defaults used, and a
game that plays. Before, brightness 50.0 raised TypeError in the lights task at every boot (a boot
loop) and players 3.0 stopped the boot at the REPL with a RuleError."""

import pytest

from testkit.boardkit import booted_nest
from testkit.vboard_fixtures import mpremote

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]

PLANT = """
from gulo import store
store.save('/data/config.json', '{"players": 3.0, "variant": "standard", "volume": 50, "brightness": 50.0}')
print('planted')
"""


def test_set_refuses_a_float_with_the_request_id(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        for key, value in (("brightness", 50.0), ("players", 3.0), ("volume", True)):
            ans = nest.ask("set", key=key, value=value)
            assert ans["ok"] is False and key in ans["error"], ans
        assert nest.ask("settings")["settings"] == {"players": 2, "variant": "standard", "volume": 50,
                                                     "brightness": 100}


def test_a_bad_saved_setting_boots_into_a_reported_fault_and_the_defaults(tmp_path):
    with booted_nest(tmp_path / "flash") as nest:
        nest.close()
        out = mpremote(nest.board, "exec", PLANT)
        assert "planted" in out.stdout, out.stdout + out.stderr
        nest.open()
        nest.ctl.reset()
        nest.after_boot()
        assert [f for f in nest.faults if "/data/config.json" in f.get("detail", "")], nest.faults
        assert nest.ask("settings")["settings"]["brightness"] == 100
        nest.seen.clear()
        nest.drain(2.0)
        assert not [ev for ev in nest.seen if ev.get("ev") in ("crash", "ready")], nest.seen
        nest.new(2, "standard", 4)
        nest.play_turn("roll")
        nest.check_log("current")
