"""One contract every registered detector keeps, whatever it computes."""

import pytest

from explorer import detectors
from explorer.detectors import DetectorResult
from explorer.text.words import DEFAULT_SEGMENTER
from tests.helpers import make_example


def detector_params():
    return [
        pytest.param(name, marks=[pytest.mark.slow] if detectors.spec(name).uses_model else [])
        for name in detectors.names()
    ]


@pytest.fixture(scope="module", params=detector_params())
def detector(request):
    return detectors.create(request.param)


@pytest.fixture(scope="module")
def scored(detector):
    """Each case scored once per detector: model-based detectors take seconds per example."""
    results = {}

    def score(case):
        if case not in results:
            results[case] = detector.score(CASES[case])
        return results[case]

    return score


CASES = {
    "two perspectives": make_example(
        "Some say sugar taxes cut consumption. Others say they hurt poor families and are unfair.",
        ("pro", ["Sugar taxes cut consumption.", "They fund school meals."]),
        ("con", ["They hurt poor families."]),
    ),
    "one perspective": make_example("Coffee has antioxidants.", ("reference", ["Coffee contains antioxidants."])),
    "ten perspectives": make_example(
        "Each city chose differently.",
        *[(f"city {i}", [f"City {i} built trams in {1990 + i}."]) for i in range(10)],
    ),
    "non-ASCII and HTML": make_example(
        "<b>Zürich</b> 税金 🙂 — mais l’impôt “réduit” la consommation.",
        ("pour", ["L’impôt réduit la consommation à Zürich."]),
        ("contre", ["<script>alert(1)</script> 税金 is unfair"]),
    ),
    "stop words only": make_example("It is what it is.", ("pro", ["They should."]), ("con", ["We were."])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_scores_are_error_probabilities_with_one_value_per_perspective(detector, scored, case):
    example = CASES[case]
    result = scored(case)
    assert isinstance(result, DetectorResult) and result.detector == detector.name
    assert 0.0 <= result.hallucination <= 1.0 and 0.0 <= result.coverage <= 1.0
    assert list(result.per_perspective) == [p.name for p in example.perspectives]
    assert all(0.0 <= v <= 1.0 for v in result.per_perspective.values())
    assert result.info["detector"] == detector.name and result.info["version"] == detector.version


@pytest.mark.parametrize("case", list(CASES))
def test_word_scores_sit_on_content_words_of_the_right_text(scored, case):
    example = CASES[case]
    result = scored(case)
    response_words = {(w.start, w.end) for w in DEFAULT_SEGMENTER.content_words(example.response)}
    assert {(w.start, w.end) for w in result.response_words} <= response_words
    for w in result.argument_words:
        text = example.perspectives[w.perspective].arguments[w.argument]
        assert (w.start, w.end) in {(c.start, c.end) for c in DEFAULT_SEGMENTER.content_words(text)}
    assert all(0.0 <= w.score <= 1.0 for w in result.response_words + result.argument_words)


def test_same_input_same_scores(detector, scored):
    example = CASES["two perspectives"]
    assert detector.score(example).to_dict() == scored("two perspectives").to_dict()


def test_results_round_trip_through_json(scored):
    result = scored("two perspectives")
    assert DetectorResult.from_dict(result.to_dict()) == result


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(detectors.UnknownDetectorError, match="available: rouge"):
        detectors.create("bleu")


@pytest.mark.parametrize("case", list(CASES))
def test_a_detector_keeps_only_the_details_its_spec_declares(detector, scored, case):
    result = scored(case)
    assert set(result.details) <= {detail.key for detail in detectors.spec(detector.name).details}
    for error_type in ("hallucination", "coverage"):
        assert result.score(error_type) == getattr(result, error_type)


def test_a_score_of_an_unknown_error_type_is_refused():
    result = DetectorResult("rouge", 0.25, 0.5, {"pro": 0.5}, (), (), {})
    assert (result.score("hallucination"), result.score("coverage")) == (0.25, 0.5)
    with pytest.raises(ValueError, match="coverage_error"):
        result.score("coverage_error")
