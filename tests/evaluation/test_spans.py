"""Hallucinated-span precision / recall / F1 by character overlap, on cases worked out by hand."""

import pytest

from explorer.data.example import Example, Labels, Perspective
from explorer.detectors.base import DetectorResult, ResponseWordScore
from explorer.evaluation import auc
from explorer.evaluation.spans import predicted_spans, span_cell, span_cells

RESPONSE = "Cats purr loudly. Dogs bark at night."  # "Dogs bark" is [18, 27)


def _example(spans=((18, 27),), name="e"):
    return Example(
        name,
        "q?",
        (Perspective("pro", ("Cats purr loudly.",)),),
        RESPONSE,
        labels=Labels(
            hallucination=bool(spans),
            coverage_error=False,
            kind="organic",
            ambiguous=False,
            hallucinated_spans=tuple(spans),
        ),
    )


def _result(scores):
    """Word scores by word: Cats purr loudly Dogs bark at night."""
    words = [(0, 4), (5, 9), (10, 16), (18, 22), (23, 27), (28, 30), (31, 36)]
    return DetectorResult(
        "d",
        0.0,
        0.0,
        {"pro": 0.0},
        tuple(ResponseWordScore(s, e, score) for (s, e), score in zip(words, scores)),
        (),
        {},
    )


def test_adjacent_flagged_words_form_one_span_and_an_unflagged_word_splits_it():
    assert predicted_spans(_result([0, 0, 0, 0.9, 0.6, 0.1, 0.8])) == [(18, 27), (31, 36)]


def test_an_exact_prediction_scores_one():
    cell = span_cell("s", "d", [(_example(), _result([0, 0, 0, 0.9, 0.9, 0, 0]))])
    assert (cell.precision, cell.recall, cell.f1) == (1.0, 1.0, 1.0)


def test_half_the_gold_and_one_extra_word_by_hand():
    # predicted "Dogs" (4 chars, gold) and "night" (5 chars, not gold); gold "Dogs bark" = 8 non-space chars
    cell = span_cell("s", "d", [(_example(), _result([0, 0, 0, 0.9, 0.1, 0, 0.9]))])
    assert cell.precision == pytest.approx(4 / 9)
    assert cell.recall == pytest.approx(4 / 8)
    assert cell.f1 == pytest.approx(2 * (4 / 9) * (4 / 8) / (4 / 9 + 4 / 8))


def test_flagged_words_of_an_error_free_example_are_false_positives_and_no_gold_means_no_recall():
    cell = span_cell("s", "d", [(_example(spans=()), _result([0.9, 0, 0, 0, 0, 0, 0]))])
    assert cell.precision == 0.0 and cell.recall is None and cell.f1 is None


def test_evaluate_reports_span_cells_per_hallucination_slice():
    examples = [_example(name="bad"), _example(spans=(), name="clean")]
    results = {"bad": {"d": _result([0, 0, 0, 0.9, 0.9, 0, 0])}, "clean": {"d": _result([0.9] + [0] * 6)}}
    evaluation = auc.evaluate(examples, results, ["d"], auc.Settings(n_bootstrap=10))
    [cell] = [c for c in evaluation.span_cells if c.slice == "full_organic"]
    assert cell.examples == 2
    assert cell.precision == pytest.approx(8 / 12) and cell.recall == 1.0
    assert span_cells(examples, results, ["d"])[0].to_dict()["f1"] == pytest.approx(cell.f1)
