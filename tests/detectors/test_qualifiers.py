"""The qualifier check (partial hallucination) on the real MiniLM and tuned matcher (packaged, offline)."""

import pytest

from explorer.detectors.qualifiers import QualifierDetector
from tests.helpers import make_example

PRO = ("pro", ["A sugar tax may reduce how much sugar people consume.", "Revenue from the tax can fund school sports."])
CON = ("con", ["The tax hits poor households hardest."])
FAITHFUL = (
    "Supporters say a sugar tax may reduce how much sugar people consume, and that its revenue can fund school "
    "sports. Critics say the tax hits poor households hardest."
)


@pytest.fixture(scope="module")
def detector():
    return QualifierDetector()


def test_a_dropped_hedge_and_an_added_absolute_score_their_claims_and_mark_the_words_they_qualify(detector):
    strengthened = FAITHFUL.replace("may reduce", "will reduce").replace("the tax hits", "the tax always hits")
    clean = detector.score(make_example(FAITHFUL, PRO, CON))
    result = detector.score(make_example(strengthened, PRO, CON))
    assert clean.hallucination == 0.0 and all(w.score == 0.0 for w in clean.response_words)
    assert result.hallucination == 0.5 and result.per_perspective == {"pro": 0.5, "con": 0.5}
    marked = {strengthened[w.start : w.end] for w in result.response_words if w.score > 0}
    assert marked == {"reduce", "always"}  # "will" is a stop word: the word it qualifies carries its score
    assert {(w.perspective, w.argument) for w in result.argument_words if w.score > 0} == {(0, 0), (1, 0)}


def test_two_certainty_words_in_one_claim_score_higher_than_one(detector):
    one = FAITHFUL.replace("may reduce", "will reduce")
    two = FAITHFUL.replace("may reduce", "will reduce everyone's")
    assert (
        detector.score(make_example(two, PRO, CON)).hallucination
        == 0.75
        > detector.score(make_example(one, PRO, CON)).hallucination
    )


def test_a_sentence_that_states_no_argument_is_left_to_the_support_detectors(detector):
    response = FAITHFUL + " Bottling plants always close when such taxes arrive."
    assert detector.score(make_example(response, PRO, CON)).hallucination == 0.0
