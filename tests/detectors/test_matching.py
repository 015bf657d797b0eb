"""The matching check (coverage, one argument per piece) on the real MiniLM and tuned matcher (packaged, offline)."""

import numpy as np
import pytest

from explorer.detectors.matching import MatchingDetector
from explorer.detectors.ops.alignment import pair
from explorer.detectors.semantic_tuned import SemanticTunedDetector
from tests.helpers import make_example

QUERY = {"query": "Should everyone go vegetarian?"}
PRO = (
    "pro",
    ["A vegetarian diet can help alleviate world hunger.", "Vegetarians absorb more calcium, which builds bones."],
)
CON = ("con", ["Becoming vegetarian will not help alleviate world hunger."])
FAITHFUL = (
    "Supporters say going vegetarian can help reduce world hunger, and that vegetarians absorb more calcium for "
    "healthy bones. Critics counter that vegetarianism will not end world hunger. In the end, it depends on what "
    "you value most."
)
# Given too, but stated nowhere: the answer's nearest piece states the first pro argument.
ADDED = "Going vegetarian would reduce hunger around the world."


@pytest.fixture(scope="module")
def detector():
    return MatchingDetector()


def test_each_stated_argument_is_paired_with_its_own_piece(detector):
    result = detector.score(make_example(FAITHFUL, PRO, CON, **QUERY))
    assert max(result.per_perspective.values()) < 0.3
    assert result.hallucination == 0.0 and all(w.score == 0.0 for w in result.response_words)


def test_an_argument_that_only_resembles_a_piece_another_argument_states_better_is_found_dropped(detector):
    example = make_example(FAITHFUL, (PRO[0], [*PRO[1], ADDED]), CON, **QUERY)
    best_match = SemanticTunedDetector().score(example)
    result = detector.score(example)
    assert best_match.per_perspective["pro"] < 0.2  # its best match, the piece its neighbour states, covers it
    assert result.per_perspective["pro"] > 0.9 and result.per_perspective["con"] < 0.3
    added = {w.score for w in result.argument_words if (w.perspective, w.argument) == (0, 2)}
    others = [w.score for w in result.argument_words if (w.perspective, w.argument) != (0, 2)]
    assert added == {result.coverage} and max(others) < 0.3


def test_pairs_maximize_the_total_and_an_argument_left_without_a_piece_gets_none():
    # The first argument's best piece (0) goes to the second, which has no other: .8 + .7 beats .9 + .1.
    similarity = np.array([[0.9, 0.8], [0.7, 0.1], [0.6, 0.5]])
    assert pair(similarity).tolist() == [1, 0, -1]
