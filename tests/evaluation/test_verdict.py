"""The verdict: which error is likely, and the sentence or argument responsible."""

from explorer import detectors
from explorer.data.labels import overlaps
from explorer.data.samples import load_samples
from explorer.detectors import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.evaluation import verdict
from explorer.evaluation.calibration import LIKELY, UNLIKELY
from explorer.scoring.runner import score_example
from tests.helpers import make_example


def test_the_responsible_sentence_and_argument_are_the_worst_scored():
    example = make_example(
        "Taxes cut sugar. Moon bases are great. Poor families pay.",
        ("pro", ["Taxes cut sugar.", "Revenue funds clinics."]),
        ("con", ["Poor families pay."]),
    )
    response = (
        ResponseWordScore(0, 5, 0.2),  # Taxes
        ResponseWordScore(17, 21, 0.9),  # Moon
        ResponseWordScore(22, 27, 0.1),  # bases
        ResponseWordScore(39, 43, 0.9),  # Poor
        ResponseWordScore(44, 52, 0.8),  # families
    )
    arguments = (
        ArgumentWordScore(0, 0, 0, 5, 0.1),
        ArgumentWordScore(0, 1, 0, 7, 0.6),
        ArgumentWordScore(1, 0, 0, 4, 0.3),
    )
    result = DetectorResult("x", 0.9, 0.6, {"pro": 0.6, "con": 0.3}, response, arguments, {})
    sentence = verdict.worst_sentence(example, result)
    assert sentence.text == "Poor families pay." and sentence.score == 0.9  # ties on the maximum: higher mean
    argument = verdict.worst_argument(example, result)
    assert (argument.perspective, argument.argument, argument.text) == (0, 1, "Revenue funds clinics.")
    assert sentence.anchor != argument.anchor
    found = verdict.verdicts(example, result)
    assert found["hallucination"].verdict is None  # no calibration for detector "x"


def test_the_verdict_detector_ranks_the_sample_hallucinations_above_the_clean_sample_and_points_at_them():
    """Calibrated on the foreign NPOV dev set, not the sample's: it never calls the clean example
    likely in error, scores each hallucination higher and points at the hallucinated sentence.
    (Its tagger misses a whole extra argument stated like a given one, as in
    congestion-charging-hallucination, the paper's synthetic hallucination: see the README's
    figures for the paraphrased synthetic slice; these two invent content inside the answer.)"""
    by_id = {e.id: e for e in load_samples()}
    judge = detectors.create(detectors.VERDICT_DETECTOR)
    clean = by_id["congestion-charging-clean"]
    clean_found = verdict.verdicts(clean, score_example(clean, [judge]).results[judge.name])
    assert clean_found["hallucination"].verdict == UNLIKELY and LIKELY not in {v.verdict for v in clean_found.values()}
    for example_id in ("congestion-charging-hallucination2", "school-uniforms-hallucination"):
        example = by_id[example_id]
        found = verdict.verdicts(example, score_example(example, [judge]).results[judge.name])["hallucination"]
        assert found.probability > clean_found["hallucination"].probability
        assert overlaps((found.piece.start, found.piece.end), example.labels.hallucinated_spans)
    coverage = by_id["congestion-charging-coverage"]
    found = verdict.verdicts(coverage, score_example(coverage, [judge]).results[judge.name])["coverage"]
    # Calibrated on real answers, it is cautious on the sample's templated coverage error (P .28,
    # "unlikely", against the clean answer's .08), but it points at the argument left out.
    assert found.probability > 2 * clean_found["coverage"].probability
    [dropped] = coverage.labels.uncovered
    assert (found.piece.perspective, found.piece.argument) == (dropped.perspective, dropped.argument)
