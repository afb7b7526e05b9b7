# How the weigher learns the nest at start (issue 4's flaky e2e test: a green egg weighed as the
# purple one). The start used to learn the cell's noise from the raw |dx| of its first 24 samples
# and take the first quiet window: one HX711 spike among them, or a nest still moving when the
# board boots (a hand pressing the pole in), passed for loud noise. With sigma inflated the next
# hand never made the weigher busy, and its auto-zero followed the hand's weight into the level,
# so the egg's step read 1-2 g heavy. Plain asserts: runs on CPython and inside MicroPython.

from gulo.weigher import Weigher
from nest.world import NestWorld

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


# Recorded on the virtual board (console `stream`) in the power-cut drill that failed on
# 2026-11-26 (a resumed game, an uncalibrated nest: "pour every egg back, then press Reveal"):
# samples in centigrams less 532.80 g. The full nest at rest; the family's word (Reveal) resets
# the weigher; then a hand presses on the eggs, 10-14 g, from 2842 ms, rocking 2-4 g for 0.75 s,
# and leaves at about 3600 ms. The board learned the hand as the full nest and, when it left,
# said "out: 1, P" (an EGG ALARM for a wrong egg in the next attempt).
_WORD_T_MS = (
    2054, 2067, 2082, 2097, 2105, 2118, 2129, 2146, 2158, 2170, 2186, 2198, 2210, 2221, 2229, 2246,
    2278, 2302, 2317, 2334, 2341, 2354, 2370, 2381, 2394, 2406, 2418, 2429, 2445, 2458, 2470, 2482,
    2493, 2506, 2517, 2533, 2546, 2558, 2569, 2583, 2593, 2605, 2622, 2633, 2641, 2658, 2669, 2681,
    2693, 2706, 2718, 2733, 2746, 2754, 2770, 2782, 2792, 2813, 2815, 2838, 2842, 2858, 2870, 2882,
    2894, 2905, 2919, 2934, 2946, 2958, 2970, 2983, 2994, 3006, 3018, 3033, 3046, 3058, 3074, 3081,
    3093, 3107, 3118, 3150, 3157, 3170, 3182, 3194, 3207, 3221, 3234, 3246, 3257, 3270, 3282, 3293,
    3306, 3325, 3346, 3357, 3370, 3382, 3394, 3409, 3417, 3434, 3446, 3458, 3470, 3483, 3494, 3506,
    3518, 3529, 3546, 3558, 3570, 3589, 3591, 3605, 3616, 3634, 3646, 3658, 3671, 3679, 3694, 3706,
    3717, 3734, 3742, 3758, 3770, 3782, 3794, 3806, 3821, 3834, 3844, 3858, 3870, 3882, 3895, 3906,
    3919, 3934, 3943, 3958, 3966, 3981, 3993, 4006, 4019, 4033, 4046,
)
_WORD_CG = (
    -39, -103, -102, 2, 56, 9, 39, 19, -22, -31, 2, -43, -1, 4, -23, -10, -22, 9, 27, 2, 19, -11,
    16, -23, 1, -3, 22, -12, -8, 17, 10, -10, 2, 10, -1, 12, -14, -17, 7, -3, 16, -50, 2, -12, -10,
    13, 8, 6, 2, -7, -31, 0, -5, -17, -6, 54, 4, 0, 1, 32, 113, 328, 642, 1090, 1356, 1314, 1169,
    1086, 1057, 1072, 1049, 999, 990, 1107, 1297, 1404, 1351, 1223, 1019, 954, 988, 1035, 1101,
    1136, 1227, 1349, 1428, 1246, 1078, 906, 939, 1035, 1187, 1192, 1170, 1245, 1315, 1340, 1124,
    928, 864, 990, 1142, 1292, 1300, 1243, 1211, 1223, 1224, 1060, 805, 545, 404, 299, 189, 44, 307,
    191, 161, 55, 25, -21, -44, -11, -41, 2, -3, 0, -3, 3, -1, 21, 2, 20, -20, 9, -18, 6, 30, -13,
    6, -25, 17, -17, -7, 8, -11, 26, 22, 5, 31, -19, 19, 27, 5,
)


def word_then_hand(weigher_class=Weigher, word_ms=2600):
    """The recording fed to a weigher that learned the nest before it, reset (the family's word)
    at `word_ms`; returns (events, (the level it learned in grams less 532.80, when, its noise
    then / before the reset))."""
    w = weigher_class()
    events = []
    learned = None
    word = False
    more = tuple(range(4058, 5000, 12))   # the nest stays as it was
    for t, cg in zip(_WORD_T_MS + more, _WORD_CG + (0,) * len(more)):
        if t >= word_ms and not word:
            assert w.ready and w.at_rest   # the nest was learned before the word
            noise = w.noise_g()
            w.reset(0)
            word = True
        ev = w.feed_cg(t, 53280 + cg)
        if ev is not None:
            events.append(ev)
        if word and w.ready and learned is None:
            learned = (w.level_g() - 532.80, t, w.noise_g() / noise)
    return events, learned


def test_a_hand_on_the_eggs_after_a_reset_is_not_learned_as_the_nest():
    # The noise learned at rest survives reset(): the hand's rocking is no calm, and the start
    # waits for the hand to leave. (Learned afresh from the hand, it passed for 1-2 g of noise.)
    for word_ms in (2600, 2700, 2800):
        events, learned = word_then_hand(word_ms=word_ms)
        assert events == [], (word_ms, events)
        assert learned is not None and -0.3 < learned[0] < 0.3 and learned[1] > 3600, (word_ms, learned)
        assert 0.9 < learned[2] < 1.1, (word_ms, learned)   # and the noise is the one kept


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


def test_a_step_in_the_very_first_samples_is_not_learned_as_noise():
    # The start's own test for motion needs a window of samples from this try: a step before
    # that (a first reading from before the HX711's filter settled, a hand leaving as the board
    # boots) was learned as noise. The fifth model's seed 2024 at 10 SPS began at 40 g of its
    # 474 g: the start learned 274 g of noise and took 28 s to forget it (a yellow egg said
    # green, a red one missed). The blue egg taken 2 s after boot must be said, and the noise be
    # the cell's.
    from test_weigher_rate import _samples

    for rate in (80, 11):
        for first in ((-460.0,), (120.0, 120.0)):   # filter not settled; a hand pressing, leaving
            samples = _samples(rate, [(2000, 18.0, 1.0, 0)], 5000, seed=4)
            for k, add in enumerate(first):
                samples[k] = (samples[k][0], samples[k][1] + add)
            w = Weigher()
            events = []
            for t, g in samples:
                ev = w.feed(t, g)
                if ev is not None:
                    events.append(ev)
            assert [(e.get("out"), e.get("colour")) for e in events] == [(1, "B")], (rate, first, events)
            assert w.noise_g() < 0.1, (rate, first, w.noise_g())
