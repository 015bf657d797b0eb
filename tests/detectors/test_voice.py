"""The voice check (perspective confusion) on the real MiniLM and tuned matcher (packaged, offline)."""

import pytest

from explorer.detectors.voice import VoiceDetector, confusions
from tests.helpers import make_example

QUERY = {"query": "Should voting be compulsory?"}
PRO = ("pro", ["Voting is a civic duty.", "Compulsory voting broadens the representation of disadvantaged groups."])
CON = (
    "con",
    ["Weekend voting would be a more sensible solution.", "People forced to vote are unlikely to vote wisely."],
)
FAITHFUL = (
    "Supporters of compulsory voting see voting as a civic duty, and they say it broadens the representation of "
    "disadvantaged groups. On the other hand, opponents argue that weekend voting would be a more sensible "
    "solution. They add that people forced to vote are unlikely to vote wisely."
)
CONFUSED = (
    "Supporters of compulsory voting see voting as a civic duty, and they say it broadens the representation of "
    "disadvantaged groups. They also suggest that weekend voting would be a more sensible solution. On the other "
    "hand, opponents argue that people forced to vote are unlikely to vote wisely."
)


@pytest.fixture(scope="module")
def detector():
    return VoiceDetector()


def test_an_argument_voiced_by_the_other_camp_is_confused_and_its_words_carry_the_margin(detector):
    confused = make_example(CONFUSED, PRO, CON, **QUERY)
    faithful = make_example(FAITHFUL, PRO, CON, **QUERY)
    result, clean = detector.score(confused), detector.score(faithful)
    assert clean.hallucination == 0.0 and clean.coverage == 0.0
    assert result.hallucination > 0.2
    sentence = CONFUSED.index("They also suggest")
    inside = [w.score for w in result.response_words if sentence <= w.start < CONFUSED.index("On the other")]
    outside = [w.score for w in result.response_words if w.start < sentence]
    assert min(inside) == pytest.approx(result.hallucination) and max(outside) == 0.0
    # The con side's argument is given, but as the pro side's: the con perspective is the one short.
    assert result.per_perspective["con"] == pytest.approx(result.hallucination)
    assert result.per_perspective["pro"] == 0.0
    assert {(w.perspective, w.argument) for w in result.argument_words if w.score > 0} == {(1, 0)}


def test_camps_are_matched_to_the_perspective_they_state_not_to_their_name(detector):
    # "Critics of compulsory voting" state the con arguments and "its defenders" the pro ones:
    # the names point the other way from the perspectives' labels, and nothing is confused.
    response = (
        "Critics of the present voluntary system see voting as a civic duty and say compulsion broadens the "
        "representation of disadvantaged groups. Its defenders, however, argue that weekend voting would be a more "
        "sensible solution, and that people forced to vote are unlikely to vote wisely."
    )
    example = make_example(response, PRO, CON, **QUERY)
    assert confusions(detector.assess(example), example) == []
    assert detector.score(example).hallucination == 0.0


def test_an_answer_without_camp_cues_scores_nothing(detector):
    response = (
        "Voting is a civic duty, and compulsion broadens the representation of disadvantaged groups. Weekend voting "
        "would be a more sensible solution. People forced to vote are unlikely to vote wisely."
    )
    result = detector.score(make_example(response, PRO, CON, **QUERY))
    assert result.hallucination == 0.0 and result.coverage == 0.0
    assert all(w.score == 0.0 for w in result.response_words)
