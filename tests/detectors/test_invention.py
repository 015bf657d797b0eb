"""The invention check on the real encoder, content head and judge: an added background fact or a
side-taking conclusion raises an answer's hallucination score and is its highest piece, while
the faithful answer's framing lines stay below it, and so does an argument stated negated (the
unstated reading: a turned statement states no argument faithfully); no coverage signal."""

import pytest

from explorer.data.example import Example, Perspective
from explorer.detectors.invention import InventionDetector

PERSPECTIVES = (
    Perspective("pro", ("School uniforms reduce bullying over clothing.", "Uniforms save parents money.")),
    Perspective("con", ("Uniforms stifle the self-expression of students.",)),
)
FAITHFUL = (
    "Here is how the two sides of the uniform debate compare. "
    "Supporters say uniforms cut bullying about clothes. They add that uniforms save families money. "
    "Critics reply that a uniform keeps students from expressing themselves. "
    "Where you land depends on what you value."
)
FACT = "The first compulsory school uniform was introduced at Christ's Hospital in 1552."
CONCLUSION = "On balance, the case for uniforms is clearly the stronger one."


def answer(response: str) -> Example:
    return Example(
        id="uniforms", query="Should schools require uniforms?", perspectives=PERSPECTIVES, response=response
    )


@pytest.fixture(scope="module")
def detector():
    return InventionDetector()


def with_sentence(sentence: str) -> str:
    cut = FAITHFUL.index("Critics")
    return FAITHFUL[:cut] + sentence + " " + FAITHFUL[cut:]


@pytest.mark.parametrize("added", [FACT, CONCLUSION], ids=["background fact", "side-taking conclusion"])
def test_an_added_statement_raises_the_score_and_is_the_highest_piece(detector, added):
    faithful, invented = detector.score(answer(FAITHFUL)), detector.score(answer(with_sentence(added)))
    assert invented.hallucination > faithful.hallucination
    response = with_sentence(added)
    start = response.index(added)
    highest = max(invented.response_words, key=lambda w: w.score)
    assert start <= highest.start < start + len(added), response[highest.start : highest.end]
    assert invented.coverage == faithful.coverage == 0.0


def test_a_negated_argument_counts_as_unstated_and_is_the_highest_piece(detector):
    from explorer.detectors.invention import judged, least_absent, unstated

    turned = "They add that uniforms do not save families any money."
    response = FAITHFUL.replace("They add that uniforms save families money.", turned)
    faithful, negated = detector.score(answer(FAITHFUL)), detector.score(answer(response))
    assert negated.hallucination > faithful.hallucination
    highest = max(negated.response_words, key=lambda w: w.score)
    assert response.index(turned) <= highest.start < response.index(turned) + len(turned)
    # Version 1's reading (the least P(absent)) kept it near 0: the judge reads the argument as there.
    probabilities = judged(detector.judge, [turned], [PERSPECTIVES[0].arguments[1]])
    assert unstated(probabilities)[0] > 0.5 > least_absent(probabilities)[0]


def test_scores_depend_on_the_example_alone(detector):
    again = InventionDetector().score(answer(with_sentence(FACT)))
    assert detector.score(answer(with_sentence(FACT))) == again


def test_the_meaning_check_reads_the_same_judge_so_its_weights_are_loaded_once(detector):
    from explorer.detectors.meaning import MeaningDetector

    assert MeaningDetector().judge is detector.judge
