"""The polarity check (a misstated argument) on the real MiniLM and tuned matcher (packaged, offline)."""

import pytest

from explorer.detectors.polarity import PolarityDetector
from tests.helpers import make_example

PRO = ("pro", ["Open primaries increase voter engagement.", "Open primaries give independents a voice."])
CON = ("con", ["Open primaries weaken party loyalty."])
FAITHFUL = (
    "Supporters say open primaries increase voter engagement and give independents a voice. Critics warn that "
    "open primaries weaken party loyalty. It depends on what you value."
)


@pytest.fixture(scope="module")
def detector():
    return PolarityDetector()


def test_a_reversed_argument_scores_both_errors_and_marks_the_turning_word(detector):
    reversed_ = FAITHFUL.replace("increase voter engagement", "decrease voter engagement")
    clean = detector.score(make_example(FAITHFUL, PRO, CON))
    result = detector.score(make_example(reversed_, PRO, CON))
    assert clean.hallucination == 0.0 and clean.coverage == 0.0
    assert result.hallucination > 0.5 and result.per_perspective["pro"] > 0.5 and result.per_perspective["con"] == 0
    assert {reversed_[w.start : w.end] for w in result.response_words if w.score > 0} == {"decrease"}
    assert {(w.perspective, w.argument) for w in result.argument_words if w.score > 0} == {(0, 0)}
    # The finding the verdict shows as a card: the argument, the piece that turns it, how.
    [finding] = result.details["findings"]
    assert finding["argument"] == [0, 0] and finding["how"] == ["antonym"]
    assert finding["misstated"] == result.hallucination and finding["measure"] == "closeness"
    assert "decrease voter engagement" in reversed_[slice(*finding["piece"])]
    assert [reversed_[s:e] for s, e, _ in finding["turning"]["response"]] == ["decrease"]
    assert clean.details["findings"] == []


def test_a_negation_that_restates_an_opposite_is_faithful(detector):
    negated = FAITHFUL.replace("weaken party loyalty", "do not strengthen party loyalty")
    assert detector.score(make_example(negated, PRO, CON)).hallucination == 0.0
