"""The semantic alignment detector on the real all-MiniLM-L6-v2 (packaged, offline)."""

import pytest

from explorer.data.samples import load_samples
from explorer.detectors import DetectorResult
from explorer.detectors.ops.assessment import COVERAGE_ERROR, PERSPECTIVE_CONFUSION, REPETITION, UNSUPPORTED_CLAIM
from explorer.detectors.semantic import SemanticDetector, alignment_of
from explorer.text.words import DEFAULT_SEGMENTER
from tests.helpers import make_example

PRO = (
    "pro",
    [
        "Taxing sugary drinks reduces how much sugar people consume.",
        "Revenue from the tax can fund school sports programmes.",
    ],
)
CON = ("con", ["The tax hits poor households hardest, because they spend more of their income on drinks."])
FAITHFUL = (
    "Some argue that a sugar tax lowers how much sugar people consume, while its revenue could pay for school "
    "sports programmes. Others say the tax is unfair to poor households, who spend a bigger share of their income "
    "on drinks."
)
INVENTED = "Critics also claim that the tax destroys thousands of jobs in bottling plants."


@pytest.fixture(scope="module")
def detector():
    return SemanticDetector()


@pytest.fixture(scope="module")
def samples():
    return {example.id: example for example in load_samples()}


def flag_kinds(detector, example):
    return [(f.kind, f.argument, f.claims) for f in detector.assess(example).flags()]


def test_a_sentence_joining_two_arguments_becomes_two_claims_and_all_are_supported(detector):
    example = make_example(FAITHFUL, PRO, CON)
    assessment = detector.assess(example)
    claims = assessment.alignment.claims
    assert [c.text for c in claims] == [
        "Some argue that a sugar tax lowers how much sugar people consume",
        "while its revenue could pay for school sports programmes.",
        FAITHFUL[FAITHFUL.index("Others") :],
    ]
    assert [(c.sentence, c.clause) for c in claims] == [(0, 0), (0, 1), (1, None)]
    assert assessment.verdicts() == ["supported"] * 3
    assert assessment.alignment.raw_best_argument.tolist() == [0, 1, 2]
    assert assessment.flags() == []


def test_an_invented_argument_is_unsupported_and_raises_the_hallucination_score(detector):
    faithful = detector.score(make_example(FAITHFUL, PRO, CON))
    response = FAITHFUL.replace(" Others", f" {INVENTED} Others")
    invented = make_example(response, PRO, CON)
    assert flag_kinds(detector, invented) == [(UNSUPPORTED_CLAIM, 2, (2,))]
    scored = detector.score(invented)
    assert scored.hallucination > faithful.hallucination + 0.3
    start = response.index(INVENTED)
    flagged = {w.start for w in scored.response_words if w.score > 0.5}
    assert flagged == {start + w.start for w in DEFAULT_SEGMENTER.content_words(INVENTED)}


def test_a_dropped_argument_is_a_coverage_error_of_its_perspective(detector):
    response = (
        "Some argue that a sugar tax lowers how much sugar people consume. Others say the tax is unfair to poor "
        "households, who spend a bigger share of their income on drinks."
    )
    example = make_example(response, PRO, CON)
    assert [(kind, argument) for kind, argument, _ in flag_kinds(detector, example)] == [(COVERAGE_ERROR, 1)]
    result = detector.score(example)
    assert result.per_perspective["pro"] > result.per_perspective["con"] + 0.3
    assert result.coverage == result.per_perspective["pro"]
    dropped = [w for w in result.argument_words if (w.perspective, w.argument) == (0, 1)]
    kept = [w for w in result.argument_words if (w.perspective, w.argument) == (0, 0)]
    assert min(w.score for w in dropped) > max(w.score for w in kept)


def test_sample_perspective_confusion_is_flagged_with_its_part(detector, samples):
    example = samples["sugar-tax-perspective-confusion"]
    assessment = detector.assess(example)
    confusions = [f for f in assessment.flags() if f.kind == PERSPECTIVE_CONFUSION]
    assert len(confusions) == 1
    (claim,) = confusions[0].claims
    gold_start, gold_end = example.labels.hallucinated_spans[0]
    assert assessment.alignment.claims[claim].span == (gold_start, gold_end)
    assert assessment.alignment.arguments[confusions[0].argument] == (0, 1)
    assert assessment.alignment.perspective_names[confusions[0].part] == "con"
    uncovered = {(f.argument) for f in assessment.flags() if f.kind == COVERAGE_ERROR}
    assert uncovered == {confusions[0].argument}


def test_sample_repetition_is_flagged_and_the_clean_answer_is_not(detector, samples):
    repeated = detector.assess(samples["rent-control-repetition"])
    (flag,) = [f for f in repeated.flags() if f.kind == REPETITION]
    gold_start, _ = samples["rent-control-repetition"].labels.hallucinated_spans[0]
    assert repeated.alignment.claims[flag.claims[1]].start == gold_start
    assert flag_kinds(detector, samples["rent-control-clean"]) == []


def test_an_opening_sentence_restating_the_question_frames_the_answer(detector, samples):
    assessment = detector.assess(samples["sugar-tax-clean"])
    assert assessment.verdicts()[0] == "framing"
    assert assessment.aggregate("strict") == "supported"


def test_a_sentence_longer_than_the_model_reads_is_cut_not_truncated(detector):
    words = " ".join(f"argument{i} about sugar taxes" for i in range(120))
    example = make_example(words, ("pro", ["Sugar taxes reduce consumption."]))
    result = detector.score(example)
    claims = alignment_of(result, example).claims
    assert len(claims) > 1 and all(detector.encoder.token_count(c.text) <= detector.encoder.max_tokens for c in claims)
    scored = {(w.start, w.end) for w in result.response_words}
    assert scored == {(w.start, w.end) for w in DEFAULT_SEGMENTER.content_words(words)}


def test_result_carries_the_alignment_and_settings(detector):
    example = make_example(FAITHFUL, PRO, CON)
    result = detector.score(example)
    again = DetectorResult.from_dict(result.to_dict())
    assert alignment_of(again, example).claims == alignment_of(result, example).claims
    assert result.info["config"]["settings"]["match"] == detector.settings.match
    assert result.info["model"].startswith("all-MiniLM-L6-v2")


def test_unknown_pool_is_refused():
    with pytest.raises(ValueError, match="claim_pool must be one of mean, max"):
        SemanticDetector(claim_pool="median", encoder=object())


def test_evidence_narrows_to_the_clause_a_claim_voices_and_the_dropped_half_scores_higher(detector):
    argument = "Sugar taxes cut how much sugar children drink, and the revenue pays for free school meals."
    example = make_example(
        "Some point out that the money raised would pay for free meals at school. Others say the tax is unfair.",
        ("pro", [argument]),
        ("con", ["The tax is unfair to poor households."]),
    )
    unit = detector.assess(example).alignment.localize(0, 0)
    assert argument[unit.start : unit.end] == "and the revenue pays for free school meals."
    words = {argument[w.start : w.end]: w.score for w in detector.score(example).argument_words if w.perspective == 0}
    assert min(words[w] for w in ("Sugar", "children", "drink")) > max(words[w] for w in ("revenue", "meals")) + 0.2
