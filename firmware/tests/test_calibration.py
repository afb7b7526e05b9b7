# Calibration: tare, a known weight, the eggs, the separability check; a failed check changes
# nothing. Raw counts are made the way an HX711 gives them (offset + grams x counts/g + noise).

import json

from gulo.calibration import MAX_SAMPLES, WINDOW, Calibration, CalibrationError, check_masses
from gulo.hx711 import Scale
from gulo.prng import XorShift32

from gamekit import raises

OFFSET = 30000
CPG = 420.0


def rig(offset=0, cpg=420.0, masses=None):
    values = {"offset": offset, "counts_per_g": cpg,
              "masses": masses or {"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}}
    lines = []
    cal = Calibration(values, Scale(cpg, offset), lambda s: lines.append(json.loads(s)), lambda: 1234)
    return cal, values, lines


def feed(cal, grams, n, noise_g=0.1, seed=7):
    rng = XorShift32(seed)
    for _ in range(n):
        # a triangular noise of about noise_g rms: the sum of two uniforms
        e = (rng.uniform() + rng.uniform() - 1.0) * noise_g * 2.45
        cal.grams(int(OFFSET + (grams + e) * CPG))


def test_a_full_session_measures_and_saves():
    cal, values, lines = rig()
    cal.start()
    cal.measure("tare", 1)
    feed(cal, 0.0, WINDOW + 5)
    assert lines[-1]["re"] == "tare" and lines[-1]["ok"] and lines[-1]["id"] == 1
    assert abs(lines[-1]["offset"] - OFFSET) < 0.1 * CPG
    cal.measure("calibrate", 2, 200.0)
    feed(cal, 200.0, WINDOW)
    assert lines[-1]["re"] == "calibrate" and lines[-1]["ok"]
    assert abs(lines[-1]["counts_per_g"] - CPG) < 1.0
    for colour, grams in (("G", 9.8), ("P", 11.5), ("Y", 13.8), ("R", 15.9), ("B", 17.2)):
        cal.measure("egg", colour, (colour, 2))
        feed(cal, 2 * grams, WINDOW)
        assert lines[-1]["re"] == "egg" and lines[-1]["ok"], lines[-1]
        assert abs(lines[-1]["grams"] - grams) < 0.1
    assert values["offset"] == 0  # nothing saved before done
    res = cal.finish()
    assert res["ok"]
    assert abs(values["offset"] - OFFSET) < 0.1 * CPG and abs(values["counts_per_g"] - CPG) < 1
    assert abs(values["masses"]["B"] - 17.2) < 0.1
    assert not cal.active
    assert abs(cal.grams(OFFSET + 100 * CPG) - 100) < 0.2  # the live scale follows


def test_a_hand_on_the_bowl_keeps_the_window_sliding_then_gives_up():
    cal, values, lines = rig()
    cal.start()
    cal.measure("tare", None)
    feed(cal, 0.0, MAX_SAMPLES + 10, noise_g=3.0)
    assert lines[-1]["ok"] is False and "did not settle" in lines[-1]["error"]
    assert values["offset"] == 0


def test_a_ring_down_then_a_steady_reading():
    cal, values, lines = rig(OFFSET, CPG)
    cal.start()
    cal.measure("egg", None, ("R", 1))
    feed(cal, 16.0, 30, noise_g=4.0, seed=3)
    assert lines == []
    feed(cal, 16.0, WINDOW, noise_g=0.05)
    assert lines[-1]["ok"] and abs(lines[-1]["grams"] - 16.0) < 0.1


def test_an_egg_on_an_empty_scale_is_refused():
    cal, values, lines = rig(OFFSET, CPG)
    cal.start()
    cal.measure("egg", None, ("G", 1))
    feed(cal, 0.0, WINDOW)
    assert lines[-1]["ok"] is False and "nothing on the scale" in lines[-1]["error"]


def test_classes_too_close_are_refused_and_nothing_changes():
    cal, values, lines = rig(OFFSET, CPG)
    cal.start()
    cal.measure("tare", None)
    feed(cal, 0.0, WINDOW)
    cal.egg_grams("Y", 12.3)  # 0.3 g from P: within the noise
    assert raises(CalibrationError, cal.finish)
    assert values["masses"]["Y"] == 14.0 and values["offset"] == OFFSET
    assert cal.active  # still open: the user can weigh again
    cal.cancel()
    assert not cal.active and values["masses"]["Y"] == 14.0


def test_steps_need_a_session_and_one_at_a_time():
    cal, values, lines = rig()
    assert raises(CalibrationError, cal.measure, "tare", None)
    cal.start()
    cal.measure("tare", None)
    assert raises(CalibrationError, cal.measure, "egg", None, ("G", 1))
    assert raises(CalibrationError, cal.egg_grams, "G", 10.0)


def test_check_masses():
    ok = check_masses({"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}, 0.1)
    assert ok["ok"] and ok["order"] == "GPYRB" and ok["narrowest_g"] == 2.0
    heavy = check_masses({"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 21.0}, 0.1)
    assert not heavy["ok"] and "outweigh" in heavy["reason"]
    noisy = check_masses({"G": 10.0, "P": 12.0, "Y": 14.0, "R": 16.0, "B": 18.0}, 0.5)
    assert not noisy["ok"] and "noise" in noisy["reason"]
    missing = check_masses({"G": 10.0}, 0.1)
    assert not missing["ok"] and "colour P" in missing["reason"]


def test_stream_emits_samples():
    cal, values, lines = rig(OFFSET, CPG)
    cal.set_stream(True)
    cal.grams(OFFSET + int(12.5 * CPG))
    assert lines == [{"ev": "sample", "t_ms": 1234, "g": 12.5}]


def test_streamed_samples_say_what_the_weigher_was_told_with_them():
    told = [(True, None)]  # type: list[tuple[bool, object]]
    values = {"offset": OFFSET, "counts_per_g": CPG, "masses": {"G": 10.0}}
    lines = []
    cal = Calibration(values, Scale(CPG, OFFSET), lambda s: lines.append(json.loads(s)), lambda: 1234,
                      None, lambda: told[-1])
    cal.set_stream(True)
    for state in ((True, None), (True, "R"), (False, "R"), (False, None)):
        told.append(state)
        cal.grams(OFFSET + int(12.5 * CPG))
    base = {"ev": "sample", "t_ms": 1234, "g": 12.5}
    assert lines == [base, dict(base, demand="R"), dict(base, pole=0, demand="R"), dict(base, pole=0)]
