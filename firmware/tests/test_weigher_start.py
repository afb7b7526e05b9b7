# How the weigher learns the nest at start (issue 4's flaky e2e test: a green egg weighed as the
# purple one). The start used to learn the cell's noise from the raw |dx| of its first 24 samples
# and take the first quiet window: one HX711 spike among them, or a nest still moving when the
# board boots (a hand pressing the pole in), passed for loud noise. With sigma inflated the next
# hand never made the weigher busy, and its auto-zero followed the hand's weight into the level,
# so the egg's step read 1-2 g heavy. Plain asserts: runs on CPython and inside MicroPython.

from world import NestWorld

from gulo.weigher import Weigher

# Recorded on the virtual board (console `stream`), the run of tests/test_e2e_game.py that
# failed: the board's samples from boot, grams - 590 in centigrams. The full nest at rest, a
# -335 g single-sample spike at 357 ms (still learning), then a steady hand takes a GREEN egg
# from 430 ms. The board said "P" at 1332 ms.
_BOOT_T_MS = (
    74, 81, 94, 110, 129, 133, 146, 162, 174, 186, 198, 210, 219, 232, 249, 262, 274, 286, 298, 308,
    320, 332, 344, 357, 373, 385, 401, 418, 430, 432, 450, 461, 474, 489, 503, 510, 525, 537, 546,
    561, 573, 589, 594, 614, 619, 636, 645, 669, 673, 682, 694, 713, 725, 733, 746, 757, 769, 782,
    801, 810, 820, 841, 844, 858, 877, 883, 898, 910, 919, 937, 962, 963, 973, 985, 998, 1010, 1022,
    1034, 1053, 1061, 1074, 1086, 1101, 1110, 1122, 1141, 1145, 1165, 1173, 1181, 1198, 1207, 1226,
    1234, 1246, 1261, 1269, 1282, 1298, 1310, 1322, 1341, 1345, 1358, 1377, 1389, 1394, 1410, 1421,
    1432, 1446, 1458, 1469, 1486, 1498, 1522, 1533, 1544, 1561, 1573, 1589, 1598, 1607, 1619, 1638,
    1644, 1666, 1669, 1689, 1698, 1710, 1729, 1732, 1747, 1761, 1773, 1786, 1797, 1817, 1821, 1841,
    1852, 1857, 1874, 1895, 1910, 1925,
)
_BOOT_CG = (
    42, 26, 83, 62, 71, 23, 59, 74, 60, 53, 70, 49, 60, 51, 45, 69, 69, 51, 57, 74, 62, 44, 58,
    -33476, 54, 69, 95, 51, 93, 113, 214, 302, 423, 589, 652, 691, 627, 575, 554, 542, 537, 503,
    499, 581, 657, 700, 618, 541, 518, 540, 511, 507, 549, 589, 687, 725, 617, 534, 440, 508, 547,
    504, 536, 624, 675, 649, 582, 488, 495, 460, 506, 408, 330, 245, 150, 18, -228, -435, -582,
    -650, -736, -798, -899, -865, -540, -629, -765, -861, -871, -893, -1001, -1060, -1035, -1045,
    -992, -974, -929, -962, -932, -953, -961, -927, -933, -942, -951, -984, -914, -941, -940, -892,
    -962, -973, -971, -930, -946, -924, -972, -950, -959, -967, -965, -956, -969, -947, -932, -945,
    -946, -974, -964, -966, -935, -935, -936, -926, -917, -938, -955, -963, -935, -940, -933, -961,
    -937, -954, -987, -967, -949,
)


def test_a_spike_while_learning_the_nest_is_not_taken_for_noise():
    w = Weigher()
    events = []
    # the recording ends 0.6 s after the hand: the nest stays as it was a while longer
    more = tuple(range(1937, 2700, 12))
    for t, cg in zip(_BOOT_T_MS + more, _BOOT_CG + (-950,) * len(more)):
        ev = w.feed_cg(t, 59000 + cg)
        if ev is not None:
            events.append(ev)
        if t == 401:  # learned, just before the hand
            assert w.ready and w.at_rest
            assert w.noise_g() < 0.3, w.noise_g()
    assert events == [{"t_ms": events[0]["t_ms"], "out": 1, "colour": "G"}], events


def _boot_during(seed, after_hand_ms, colour="G"):
    """The pole is seated by a hand (pressing it in) and the board boots `after_hand_ms` after
    the hand left (negative: while it still presses); a steady hand takes `colour` 100 ms after
    the weigher is at rest, as the test kit does. Returns the events and the weigher."""
    world = NestWorld(seed=seed)
    world.knock_pole(1000)
    world.seat_pole(2000)
    boot = world.truth[-1]["t_leave"] + after_hand_ms
    w = Weigher(masses=world.masses, pole_g=world.pole_g)
    events = []
    take = None
    # conversions every 12.5 ms from 100 ms after power-up (the HX711 settling)
    for k in range(8, 400):
        t = k * 25 // 2
        w.set_pole(world.pole_is_seated(boot + t))
        ev = w.feed(t, world.grams(boot + t))
        if ev is not None:
            events.append(ev)
        if take is None and w.ready and w.at_rest:
            take = t + 100
            world.take(boot + take, colour, "steady")
    return events, w


def test_a_board_booting_while_the_pole_is_pressed_in_learns_the_nest_once_calm():
    # seeds where the old start read the green egg as purple
    for seed in (4, 12, 28):
        events, w = _boot_during(seed, -300)
        assert [e.get("colour") for e in events] == ["G"], (seed, events)
        assert w.noise_g() < 0.4, (seed, w.noise_g())


def test_a_board_booting_just_after_the_hand_left_learns_the_nest_right():
    # the bowl still rings, or a spike comes while learning: seeds where the old start read the
    # green egg as yellow (34) or purple (96)
    for seed in (34, 96):
        events, _w = _boot_during(seed, 50)
        assert [e.get("colour") for e in events] == ["G"], (seed, events)


def test_a_cell_that_never_calms_is_still_learned():
    # the noisy fault (2 g rms, 50 Hz pickup) from power-up: no calm stretch ever comes, and the
    # start must not wait for one forever (the firmware shows the noise as a fault)
    world = NestWorld(seed=5)
    world.noisy = True
    w, learned = _learn(world, 6000)
    assert learned is not None and learned <= 3500, learned
    assert w.noise_g() > 1.0


def test_a_quiet_start_learns_as_quickly_as_before():
    for seed in (1, 2, 3):
        world = NestWorld(seed=seed)
        world.spikes = False
        w, learned = _learn(world, 1000)
        # 24 samples at 80 SPS: 300 ms (a rare noisy window may cost a restart)
        assert learned is not None and learned <= 700, (seed, learned)
        assert abs(w.level_g() - world.clean_grams(learned)) < 0.3
        assert 0.02 < w.noise_g() < 0.4


def _learn(world, until_ms):
    """A fresh weigher fed `world` from 0 to until_ms: (weigher, t_ms it became ready or None)."""
    w = Weigher()
    learned = None
    for t in world.sample_times(0, until_ms):
        w.feed(t, world.grams(t))
        if learned is None and w.ready:
            learned = t
    return w, learned
