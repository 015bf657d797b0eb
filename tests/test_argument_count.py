"""The same-count ROC AUC of bench/argument_count.py."""

import numpy as np
import pytest

from bench.argument_count import same_count_auc

GOLD = np.array([True, False, False, True, False, True])
COUNTS = np.array([2, 3, 3, 3, 4, 4])


def test_a_score_that_only_follows_the_count_is_at_chance_within_a_count():
    assert same_count_auc(GOLD, COUNTS.astype(float), COUNTS) == (0.5, 3)


def test_only_pairs_with_equal_counts_are_compared():
    # Within count 3 the error outranks both error-free examples, within 4 it is outranked; the
    # lone count-2 example has no partner.
    scores = np.array([0.0, 0.2, 0.1, 0.9, 0.8, 0.3])
    assert same_count_auc(GOLD, scores, COUNTS) == pytest.approx((2 / 3, 3))
