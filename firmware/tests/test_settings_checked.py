# A setting is checked by type and range when the console sets it and again when it is loaded at
# boot: a float such as 50.0 or 3.0 passed `v in range(0, 101)` and `v in (2, ..., 6)`, and the saved
# value then raised at every boot (the lights task on a float brightness, the rules on a float
# player count). A bad saved value is reported and replaced by its default; the nest boots.

import json

from gulo import store
from gulo.commands import command
from gulo.gamestore import Settings, calibration_ok
from gulo.vocab import SETTINGS, setting_ok

from scratch import scratch_dir

CONFIG = {"players": 2, "variant": "standard", "volume": 50, "brightness": 100}
BAD = {"players": (3.0, 1, 7, True, "3", None), "variant": ("quick", 1, None, ["fast"]),
       "volume": (50.0, -1, 101, True, "50"), "brightness": (50.0, 100.0, 101, False, [50])}
GOOD = {"players": (2, 6), "variant": ("standard", "fast"), "volume": (0, 100), "brightness": (0, 7)}


class FakeClock:
    def now(self):
        return 0


class FakeView:
    def __init__(self):
        self.brightness = []

    def set_brightness(self, v):
        self.brightness.append(v)


class FakeNest:
    """What the `set` and `settings` commands use of gulo.app.Nest."""

    def __init__(self, path):
        self.clock = FakeClock()
        self.flow = None
        self.view = FakeView()
        self.config = Settings(path, CONFIG, None, setting_ok)


def set_line(key, value):
    return json.dumps({"cmd": "set", "key": key, "value": value, "id": 9}).encode()


def test_every_setting_has_a_check_and_the_defaults_pass_it():
    assert sorted(SETTINGS) == sorted(CONFIG)
    for k in CONFIG:
        assert setting_ok(k, CONFIG[k]), k


def test_set_refuses_floats_bools_and_values_out_of_range():
    d = scratch_dir()
    nest = FakeNest(d + "/config.json")
    for key in BAD:
        for value in BAD[key]:
            assert not setting_ok(key, value), (key, value)
            command(nest, set_line(key, value))
            assert nest.config.values == CONFIG, (key, value)
    assert nest.view.brightness == []
    assert store.load(d + "/config.json") is None  # nothing saved


def test_set_takes_good_values_and_saves_them():
    d = scratch_dir()
    nest = FakeNest(d + "/config.json")
    for key in GOOD:
        for value in GOOD[key]:
            command(nest, set_line(key, value))
            assert nest.config.values[key] == value, (key, value)
    assert nest.view.brightness == [0, 7]
    assert FakeNest(d + "/config.json").config.values == nest.config.values


def test_a_bad_saved_setting_is_reported_and_replaced_by_its_default():
    d = scratch_dir()
    path = d + "/config.json"
    for key in BAD:
        for value in BAD[key]:
            saved = dict(CONFIG)
            saved["volume"] = 7  # a good value next to the bad one is kept
            if key == "volume":
                saved["brightness"] = 7
            saved[key] = value
            store.save(path, json.dumps(saved))
            s = Settings(path, CONFIG, None, setting_ok)
            assert s.values[key] == CONFIG[key], (key, value)
            assert s.values["volume" if key != "volume" else "brightness"] == 7
            assert s.problem is not None and key in s.problem and path in s.problem, s.problem


def test_a_saved_file_that_is_not_an_object_falls_back_to_the_defaults():
    d = scratch_dir()
    for text in ("[1, 2]", "3", '"players"', "null"):
        store.save(d + "/config.json", text)
        s = Settings(d + "/config.json", CONFIG, None, setting_ok)
        assert s.values == CONFIG and s.problem is not None, text


def test_a_bad_saved_calibration_is_replaced_by_its_default():
    good = {"offset": -1234, "counts_per_g": 2147.0, "masses": {"G": 10.0, "P": 12, "Y": 14.0, "R": 16.0,
                                                                  "B": 18.0}, "tare_pole": True}
    for k in good:
        assert calibration_ok(k, good[k]), k
    assert calibration_ok("tare_pole", None) and calibration_ok("counts_per_g", -2000.5)
    bad = {"offset": (1.5, True, "0", None), "counts_per_g": (0, 0.0, True, "2147", None, 1e999, -1e999),
           "masses": ({"G": 10.0}, [10, 12, 14, 16, 18], None,
                      {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": "18"},
                      {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": True},
                      {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 30.0},    # two eggs weigh less than B
                      {"G": 10.0, "P": 10.0, "Y": 14.0, "R": 16.0, "B": 18.0}),   # two colours alike
           "tare_pole": (0, 1, "yes")}
    d = scratch_dir()
    path = d + "/calib.json"
    defaults = {"offset": 0, "counts_per_g": 1.0, "masses": {"G": 1}, "tare_pole": None}
    for k in bad:
        for v in bad[k]:
            assert not calibration_ok(k, v), (k, v)
            if isinstance(v, float) and v - v != 0:
                continue  # not JSON in MicroPython's json (its dumps writes "inf")
            saved = dict(good)
            saved[k] = v
            store.save(path, json.dumps(saved))
            s = Settings(path, defaults, None, calibration_ok)
            assert s.values[k] == defaults[k] and s.problem is not None and k in s.problem, (k, v)
