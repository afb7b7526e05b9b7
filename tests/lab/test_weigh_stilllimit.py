"""lab.stilllimit: a still hand against a gone one on the physics model. The statistic must be
able to tell them apart when the hand's tremor is well above the HX711's noise (the control: a
broken statistic would fail it), and it does not at the model's own still hands (docs/weigher.md,
"The still-hand limit")."""

import numpy as np

from lab.stilllimit import HOLD_MS, overlap, still_vs_gone

SEEDS = range(1001, 1009)


def test_a_trembling_hold_is_told_from_a_gone_hand():
    # tremor 0.5 g rms at no force, 5-25x the datasheet noise: every hold stands out
    held, gone, _ = still_vs_gone(SEEDS, 80, tremor_floor_g=0.5)
    assert len(held) >= 5 and len(gone) >= 50, (len(held), len(gone))
    assert overlap(held, gone) == 0.0 and np.median(held) > 3 * np.median(gone)


def test_the_models_still_holds_look_like_gone_hands():
    # the model's still hands (tremor 0.005-0.05 g at no force): many holds are as calm as the
    # calmer half of the hands that left
    held, gone, ratio = still_vs_gone(SEEDS, 80)
    assert len(held) >= 5, len(held)
    assert overlap(held, gone) >= 0.3, (overlap(held, gone), np.median(held), np.median(gone))
    assert np.median(ratio) < 1.5   # their tremor no bigger than the noise


def test_overlap_counts_holds_at_or_below_the_median_gone():
    assert overlap(np.array([1.0, 3.0]), np.array([0.5, 2.0, 9.0])) == 0.5
    assert overlap(np.array([]), np.array([1.0])) == 0.0
    assert HOLD_MS == 250
