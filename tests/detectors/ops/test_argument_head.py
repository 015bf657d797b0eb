"""The argument head's rows (one per argument, from its words' scores and the answer's size), its
fit and its reading; and how many columns bench/argument_head.py keeps without the size products."""

import math

import numpy as np
import pytest

from bench.argument_head import columns
from explorer.detectors.base import ArgumentWordScore, DetectorResult
from explorer.detectors.ops import argument_head
from explorer.detectors.ops.argument_head import COMPONENTS, FEATURES, SCORES, SIZES, dropped, fit, rows
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
    keys, found = rows(EXAMPLE, results)
    assert keys == [(0, 0), (0, 1), (1, 0)] and found.shape == (3, len(FEATURES))
    at = FEATURES.index("meaning highest")
    assert FEATURES[at + 1] == "meaning mean"
    np.testing.assert_allclose(found[:, at : at + 2], [[0.6, 0.4], [0.9, 0.9], [0.3, 0.1]])
    # A component that did not read the example gives no score: NaN, its training mean when read.
    assert np.isnan(found[:, :at]).all()
    words = len(EXAMPLE.response.split())
    sizes = [FEATURES.index(size) for size in SIZES]
    np.testing.assert_allclose(found[:, sizes], [[math.log(3), math.log(words)]] * 3)


def test_each_score_is_also_multiplied_by_each_size_and_the_bench_can_leave_the_products_out():
    results = {name: result(name, {(0, 0): [0.5], (0, 1): [0.25], (1, 0): [1.0]}) for name in COMPONENTS}
    _, found = rows(EXAMPLE, results)
    scores, sizes = found[:, : len(SCORES)], found[:, len(SCORES) : len(SCORES) + len(SIZES)]
    np.testing.assert_allclose(
        found[:, len(SCORES) + len(SIZES) :], np.hstack([scores * sizes[:, [0]], scores * sizes[:, [1]]])
    )
    assert columns(sizes=False) == len(SCORES) + len(SIZES) and columns(sizes=True) == len(FEATURES)


def test_the_fitted_head_reads_a_dropped_argument_as_likelier_dropped_and_is_kept_and_read_back(tmp_path):
    rng = np.random.default_rng(0)
    found = rng.uniform(size=(400, len(FEATURES)))
    gold = (found[:, FEATURES.index("meaning highest")] + rng.normal(scale=0.2, size=400) > 0.8).astype(int)
    found[::7, 0] = np.nan  # a component that did not read some answers
    head = fit(found, gold)
    assert head.features == FEATURES
    # Not class-balanced: the mean P(dropped) is about the share dropped (the verdict joins it as a probability).
    assert head.p_error(np.where(np.isnan(found), head.mean, found)).mean() == pytest.approx(gold.mean(), abs=0.02)
    results = {"meaning": result("meaning", {(0, 0): [0.95], (0, 1): [0.05], (1, 0): [0.05]})}
    read = dropped(head, EXAMPLE, results)
    assert set(read) == {(0, 0), (0, 1), (1, 0)} and read[(0, 0)] > 0.5 > read[(0, 1)]
    head.save(tmp_path, argument_head.FILE)
    assert argument_head.load(tmp_path) == head
    assert argument_head.load(tmp_path / "none") is None  # a coverage head fitted without one
