"""The argument rows of bench/argument_head.py: one row per argument, from its words' scores."""

import math

import numpy as np

from bench.argument_head import COMPONENTS, argument_rows
from explorer.detectors.base import ArgumentWordScore, DetectorResult
from tests.helpers import make_example

EXAMPLE = make_example(
    "Taxes cut sugar intake, critics say they hurt the poor, and revenue funds clinics.",
    ("pro", ["Taxes reduce sugar consumption.", "Revenue funds health programs."]),
    ("con", ["Taxes hurt low-income families."]),
)


def result(name, scores):
    """A result of `name` whose argument words score `scores[(p, a)]` (one word each value)."""
    words = tuple(
        ArgumentWordScore(p, a, i, i + 1, s) for (p, a), values in scores.items() for i, s in enumerate(values)
    )
    return DetectorResult(name, 0.0, 0.0, {}, (), words, {})


def test_each_argument_gets_its_words_highest_and_mean_score_and_the_answers_size():
    results = {"meaning": result("meaning", {(0, 0): [0.2, 0.6], (0, 1): [0.9], (1, 0): [0.0, 0.0, 0.3]})}
    keys, rows = argument_rows(EXAMPLE, results, sizes=False)
    assert keys == [(0, 0), (0, 1), (1, 0)]
    at = 2 * COMPONENTS.index("meaning")
    np.testing.assert_allclose(rows[:, at : at + 2], [[0.6, 0.4], [0.9, 0.9], [0.3, 0.1]])
    # A component that did not read the example gives no score: NaN, filled in by the fit.
    assert np.isnan(rows[:, : 2 * COMPONENTS.index("meaning")]).all()
    words = len(EXAMPLE.response.split())
    np.testing.assert_allclose(rows[:, -2:], [[math.log(3), math.log(words)]] * 3)


def test_with_sizes_each_score_is_also_multiplied_by_each_size():
    results = {name: result(name, {(0, 0): [0.5], (0, 1): [0.25], (1, 0): [1.0]}) for name in COMPONENTS}
    _, plain = argument_rows(EXAMPLE, results, sizes=False)
    _, sized = argument_rows(EXAMPLE, results, sizes=True)
    scores = plain[:, :-2]
    assert sized.shape[1] == plain.shape[1] + 2 * scores.shape[1]
    np.testing.assert_allclose(
        sized[:, plain.shape[1] :], np.hstack([scores * plain[:, [-2]], scores * plain[:, [-1]]])
    )
