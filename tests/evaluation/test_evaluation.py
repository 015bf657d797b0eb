"""Slices, ROC AUC, DeLong's test, bootstrap intervals and word-level labels, on hand-made cases."""

import itertools
import json
import math

import numpy as np
import pytest

from explorer.data.example import Labels, UncoveredArgument
from explorer.detectors import DetectorResult
from explorer.evaluation import auc, slices, statistics, word_level
from explorer.evaluation.auc import Settings
from explorer.evaluation.slices import slice_members
from explorer.scoring import scores_file
from explorer.scoring.runner import score_example
from explorer.scoring.scores_file import output_record
from explorer.training.data import roc_auc
from tests.helpers import make_example
from tests.scripted import ScriptedDetector, scripted

PERSPECTIVES = (("pro", ["Taxes reduce sugar consumption."]), ("con", ["Taxes hurt poor families."]))


def labelled(example_id, *, h=None, c=None, kind=None, ambiguous_type=None, extra=None, **label_fields):
    labels = Labels(
        hallucination=h,
        coverage_error=c,
        kind=kind,
        ambiguous=ambiguous_type is not None or None,
        ambiguous_type=ambiguous_type,
        **label_fields,
    )
    return make_example(
        "Taxes reduce sugar consumption and hurt poor families.",
        *PERSPECTIVES,
        example_id=example_id,
        labels=labels,
        extra=extra or {},
    )


CORPUS = [
    labelled("organic-clean", h=False, c=False, kind="organic"),
    labelled("no-kind-clean", h=False, c=False),
    labelled("organic-h", h=True, c=False, kind="organic"),
    labelled("organic-c", h=False, c=True, kind="organic"),
    labelled("organic-both", h=True, c=True, kind="organic"),
    labelled("ambiguous-h", h=True, c=False, kind="organic", ambiguous_type="partial_hallucination"),
    labelled("ambiguous-c", h=False, c=True, kind="organic", ambiguous_type="partial_coverage"),
    labelled("ambiguous-both", h=True, c=True, kind="organic", ambiguous_type="perspective_confusion"),
    labelled("ambiguous-clean", h=False, c=False, kind="organic", ambiguous_type="repetition"),
    labelled("paraphrased-clean", h=False, c=False, kind="paraphrased"),
    labelled("synthetic-h", h=True, c=False, kind="synthetic"),
    labelled("synthetic-c", h=False, c=True, kind="synthetic"),
    labelled("synthetic-clean", h=False, c=False, kind="synthetic"),
    labelled("synthetic-paraphrased-h", h=True, c=False, kind="synthetic_paraphrased"),
    labelled("synthetic-paraphrased-c", h=False, c=True, kind="synthetic_paraphrased"),
    labelled("unlabelled"),
]

EXPECTED_SLICES = {
    ("hallucination", "full_organic"): ({"organic-h", "organic-both"}, {"organic-clean", "no-kind-clean"}),
    ("hallucination", "unparaphrased_synthetic"): ({"synthetic-h"}, {"organic-clean", "no-kind-clean"}),
    ("hallucination", "paraphrased_synthetic"): ({"synthetic-paraphrased-h"}, {"paraphrased-clean"}),
    ("hallucination", "ambiguous_organic"): ({"ambiguous-h", "ambiguous-both"}, {"organic-clean", "no-kind-clean"}),
    ("coverage", "full_organic"): ({"organic-c", "organic-both"}, {"organic-clean", "no-kind-clean"}),
    ("coverage", "unparaphrased_synthetic"): ({"synthetic-c"}, {"organic-clean", "no-kind-clean"}),
    ("coverage", "paraphrased_synthetic"): ({"synthetic-paraphrased-c"}, {"paraphrased-clean"}),
    ("coverage", "ambiguous_organic"): ({"ambiguous-c", "ambiguous-both"}, {"organic-clean", "no-kind-clean"}),
}


@pytest.mark.parametrize(("error_type", "slice_name"), list(EXPECTED_SLICES))
def test_slices_follow_the_documented_rules(error_type, slice_name):
    members = slice_members(CORPUS, error_type, slice_name)
    positives = {e.id for e, label in members if label}
    negatives = {e.id for e, label in members if not label}
    assert (positives, negatives) == EXPECTED_SLICES[(error_type, slice_name)]


def test_rankable_slices_are_those_with_both_labels_and_their_members():
    found = {(error_type, chosen.name): members for error_type, chosen, members in slices.rankable_slices(CORPUS)}
    assert set(found) == set(EXPECTED_SLICES)  # every slice of CORPUS has both labels
    for (error_type, slice_name), members in found.items():
        assert members == slice_members(CORPUS, error_type, slice_name)
    without_paraphrases = [e for e in CORPUS if e.id != "paraphrased-clean"]  # no negative left
    names = {(t, chosen.name) for t, chosen, _ in slices.rankable_slices(without_paraphrases)}
    assert names == set(EXPECTED_SLICES) - {
        ("hallucination", "paraphrased_synthetic"),
        ("coverage", "paraphrased_synthetic"),
    }


def test_examples_left_out_of_every_slice_are_counted_with_the_reason():
    assert slices.left_out_reasons(CORPUS, "hallucination") == {
        "coverage error only": 4,  # organic-c, synthetic-c, synthetic-paraphrased-c, ambiguous-c
        "unlabelled": 1,
        "ambiguous without this error": 1,  # ambiguous-clean
        "error-free or error of kind synthetic (no slice for it)": 1,
    }
    assert slices.left_out_reasons(CORPUS, "coverage")["hallucination only"] == 4


def test_auc_counts_pairs_ranked_right_and_ties_as_half():
    # Pairs (positive, negative): (0.9, 0.5) right, (0.9, 0.1) right, (0.4, 0.5) wrong, (0.4, 0.1) right.
    assert roc_auc([True, True, False, False], [0.9, 0.4, 0.5, 0.1]) == pytest.approx(3 / 4)
    # One tie out of four pairs: (0.5, 0.5) counts one half.
    assert roc_auc([True, True, False, False], [0.9, 0.5, 0.5, 0.1]) == pytest.approx(3.5 / 4)
    assert roc_auc([True, False], [0.2, 0.8]) == 0.0


# DeLong's test worked by hand (see the module docstring's formulas). Positives first.
HAND_LABELS = [True, True, True, False, False, False]
HAND_A = [0.9, 0.8, 0.4, 0.7, 0.3, 0.2]  # AUC 8/9; V10 = (1, 1, 2/3), V01 = (2/3, 1, 1)
HAND_B = [0.6, 0.5, 0.9, 0.7, 0.1, 0.5]  # AUC 13/18 (one tie); V10 = (2/3, 1/2, 1), V01 = (1/3, 1, 5/6)


def test_delong_matches_a_hand_worked_example():
    aucs, covariance = statistics.delong_covariance(HAND_LABELS, np.vstack([HAND_A, HAND_B]))
    assert aucs == pytest.approx([8 / 9, 13 / 18])
    # S = S10 / m + S01 / n with m = n = 3: S10 = [[1/27, -5/108], [-5/108, 7/108]],
    # S01 = [[1/27, 7/108], [7/108, 13/108]].
    assert covariance == pytest.approx(np.array([[2 / 81, 2 / 324], [2 / 324, 20 / 324]]))
    test = statistics.delong_test(HAND_LABELS, HAND_A, HAND_B)
    # Var(A - B) = 2/81 + 20/324 - 4/324 = 2/27; z = (1/6) / sqrt(2/27) = sqrt(3/8).
    assert test.z == pytest.approx(math.sqrt(3 / 8))
    assert test.p_value == pytest.approx(0.540291, abs=1e-6)


def _delong_by_definition(labels, a, b):
    """DeLong et al. 1988 straight from the definition: placement values by double loop."""
    labels = np.asarray(labels, dtype=bool)
    detector_names = [np.asarray(a, dtype=float), np.asarray(b, dtype=float)]

    def psi(x, y):
        return 1.0 if x > y else 0.5 if x == y else 0.0

    v10, v01, aucs = [], [], []
    for s in detector_names:
        pos, neg = s[labels], s[~labels]
        grid = np.array([[psi(x, y) for y in neg] for x in pos])
        aucs.append(grid.mean())
        v10.append(grid.mean(axis=1))
        v01.append(grid.mean(axis=0))
    s10, s01 = np.cov(np.vstack(v10)), np.cov(np.vstack(v01))
    m, n = labels.sum(), (~labels).sum()
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n
    return aucs, (aucs[0] - aucs[1]) / math.sqrt(var)


def test_delong_agrees_with_the_definition_on_random_scores_with_ties():
    rng = np.random.default_rng(7)
    labels = rng.random(60) < 0.4
    a = np.round(rng.random(60) + 0.3 * labels, 1)  # rounding makes many ties
    b = np.round(rng.random(60) + 0.1 * labels, 1)
    (auc_a, auc_b), z = _delong_by_definition(labels, a, b)
    test = statistics.delong_test(labels, a, b)
    assert (test.auc_a, test.auc_b) == pytest.approx((auc_a, auc_b))
    assert test.z == pytest.approx(z)


def test_delong_with_identical_or_perfect_detectors_is_defined():
    assert statistics.delong_test(HAND_LABELS, HAND_A, HAND_A).p_value == 1.0
    perfect = [1.0, 0.9, 0.8, 0.3, 0.2, 0.1]
    assert statistics.delong_test(HAND_LABELS, perfect, [x / 2 for x in perfect]).p_value == 1.0


def test_bootstrap_interval_is_reproducible_and_brackets_the_auc():
    rng = np.random.default_rng(0)
    labels = rng.random(80) < 0.5
    scores = rng.random(80) + 0.5 * labels
    auc = roc_auc(labels, scores)
    low, high = statistics.bootstrap_ci(labels, scores, seed=3)
    assert 0.0 <= low < auc < high <= 1.0
    assert statistics.bootstrap_ci(labels, scores, seed=3) == (low, high)
    # Its width agrees with the normal interval from DeLong's variance estimate (within 25%).
    _, variance = statistics.delong_covariance(labels, scores[None, :])
    assert high - low == pytest.approx(2 * 1.96 * math.sqrt(variance[0, 0]), rel=0.25)
    assert statistics.bootstrap_ci([True, False, False], [0.9, 0.1, 0.2]) is None  # one positive


def test_bonferroni_multiplies_and_caps():
    assert statistics.bonferroni(0.02, 3) == pytest.approx(0.06)
    assert statistics.bonferroni(0.5, 3) == 1.0
    assert statistics.bonferroni(0.02, 0) == 0.02


def result(h, c, response_words=(), argument_words=()):
    return DetectorResult.from_dict(
        {
            "detector": "x",
            "scores": {"hallucination": h, "coverage": c, "per_perspective": {"pro": c, "con": c}},
            "words": {"response": list(response_words), "arguments": list(argument_words)},
        }
    )


def test_evaluate_computes_each_cell_and_names_slices_without_an_auc():
    examples = [
        labelled("clean1", h=False, c=False, kind="organic"),
        labelled("clean2", h=False, c=False, kind="organic"),
        labelled("h1", h=True, c=False, kind="organic"),
        labelled("h2", h=True, c=False, kind="organic"),
        labelled("c1", h=False, c=True, kind="organic"),
    ]
    results = {
        "clean1": {"good": result(0.1, 0.2), "poor": result(0.6, 0.2)},
        "clean2": {"good": result(0.3, 0.1), "poor": result(0.2, 0.1)},
        "h1": {"good": result(0.9, 0.1), "poor": result(0.5, 0.1)},
        "h2": {"good": result(0.8, 0.1), "poor": result(0.7, 0.1)},
        "c1": {"good": result(0.0, 0.9)},  # "poor" could not score c1
    }
    evaluated = auc.evaluate(examples, results, ["good", "poor"], Settings(n_bootstrap=200))
    good = evaluated.cell("example", "hallucination", "full_organic", "good")
    poor = evaluated.cell("example", "hallucination", "full_organic", "poor")
    assert (good.auc, good.positives, good.negatives, good.best) == (1.0, 2, 2, True)
    assert poor.auc == pytest.approx(3 / 4)  # (0.5 < 0.6) is the one wrong pair
    assert not poor.best and poor.p_value is not None and poor.p_value_uncorrected == poor.p_value  # 1 comparison
    synthetic = evaluated.cell("example", "hallucination", "unparaphrased_synthetic", "good")
    assert (synthetic.auc, synthetic.note) == (None, "no positives")
    paraphrased = evaluated.cell("example", "coverage", "paraphrased_synthetic", "good")
    assert (paraphrased.auc, paraphrased.note) == (None, "no examples")
    coverage_poor = evaluated.cell("example", "coverage", "full_organic", "poor")
    assert (coverage_poor.note, coverage_poor.unscored) == ("no positives", 1)
    assert evaluated.failures == {"poor": 1}
    assert json.loads(json.dumps(evaluated.to_dict()))["example_level"][0]["method"] == "good"


def test_word_labels_come_from_spans_and_skip_stop_words():
    response = "Taxes reduce consumption, and aliens fund the moon base."
    #                                          ^^^^^^ span [30, 45) covers "aliens fund", partly "the"
    example = make_example(
        response,
        ("pro", ["Taxes reduce consumption.", "Revenue funds health programs."]),
        ("con", ["Taxes hurt poor families."]),
        labels=Labels(
            hallucination=True,
            coverage_error=True,
            hallucinated_spans=((30, 45),),
            uncovered=(UncoveredArgument(0, 1, ((8, 13),)), UncoveredArgument(1, 0)),
        ),
    )
    words = {w.text: gold for w, gold in word_level.response_word_labels(example)}
    assert words == {
        "Taxes": False,
        "reduce": False,
        "consumption": False,
        "aliens": True,
        "fund": True,
        "moon": False,
        "base": False,
    }  # "and", "the" are stop words
    arguments = {(p, a, w.text): gold for p, a, w, gold in word_level.argument_word_labels(example)}
    assert arguments[(0, 1, "funds")] is True and arguments[(0, 1, "Revenue")] is False
    assert arguments[(1, 0, "Taxes")] is True and arguments[(1, 0, "families")] is True  # whole argument
    assert not any(gold for (p, _, _), gold in arguments.items() if p == 0 and _ == 0)


def test_word_level_auc_pools_the_slice_words():
    spans = {"hallucinated_spans": ((37, 55),)}  # "hurt poor families" in the response
    examples = [
        labelled("clean", h=False, c=False, kind="organic", extra=scripted(scripted=(0.1, 0.1))),
        labelled("h", h=True, c=False, kind="organic", extra=scripted(scripted=(0.9, 0.1)), **spans),
        labelled("h-no-spans", h=True, c=False, kind="organic", extra=scripted(scripted=(0.9, 0.1))),
    ]
    detector = ScriptedDetector()
    results = {e.id: score_example(e, [detector]).results for e in examples}
    evaluated = auc.evaluate(examples, results, ["scripted"], Settings(n_bootstrap=0))
    cell = evaluated.cell("word", "hallucination", "full_organic", "scripted")
    # 7 content words per response ("and" is a stop word); "h-no-spans" is skipped: no spans.
    assert (cell.positives, cell.negatives, cell.auc) == (3, 4 + 7, 1.0)
    assert cell.ci is None and cell.p_value is None


def test_confusion_counts_and_youden_threshold():
    labels = [True, True, True, False, False]
    scores = [0.9, 0.6, 0.2, 0.5, 0.1]
    counts = statistics.confusion(labels, scores, 0.5)
    assert counts.matrix() == [[2, 1], [1, 1]]
    assert (counts.true_positive_rate, counts.false_positive_rate, counts.precision) == (2 / 3, 1 / 2, 2 / 3)
    assert statistics.youden_threshold(labels, scores) == 0.6  # TPR 2/3, FPR 0


def test_scores_written_by_explorer_score_read_back(sugar_example, tmp_path):
    detector = ScriptedDetector()
    good = sugar_example.replace(extra=scripted(scripted=(0.25, 0.5)))
    bad = sugar_example.replace(id="bad")
    lines = [json.dumps(output_record(score_example(e, [detector]))) for e in (good, bad)]
    results, failures = scores_file.read_scores("\n".join(lines) + "\n")
    assert results["ex"]["scripted"].hallucination == 0.25
    assert len(results["ex"]["scripted"].response_words) == len(detector.score(good).response_words)
    assert failures == {"bad": {"scripted": "no scripted score for bad"}}
    with pytest.raises(ValueError, match="line 2: invalid JSON"):
        scores_file.read_scores(lines[0] + "\n{oops\n")
    with pytest.raises(ValueError, match="line 1: not a record"):
        scores_file.read_scores('{"id": "x"}\n')


@pytest.mark.parametrize(
    "scores, words, problem",
    [
        (
            '{"hallucination": NaN, "coverage": 0.1, "per_perspective": {}}',
            "{}",
            "scores.m.hallucination: must be a number in [0, 1], got NaN",
        ),
        (
            '{"hallucination": 0.1, "coverage": "high", "per_perspective": {}}',
            "{}",
            'scores.m.coverage: must be a number in [0, 1], got "high"',
        ),
        (
            '{"hallucination": 0.1, "coverage": 0.1, "per_perspective": {"pro": null}}',
            "{}",
            "scores.m.per_perspective.pro: must be a number in [0, 1], got null",
        ),
        (
            '{"hallucination": 0.1, "coverage": 0.1, "per_perspective": {}}',
            '{"m": {"response": [[0, 3, Infinity]], "arguments": []}}',
            "words.m.response[0]: must be a number in [0, 1], got Infinity",
        ),
    ],
)
def test_scores_that_are_not_finite_numbers_name_their_field(scores, words, problem):
    good = '{"id": "a", "scores": {"m": {"hallucination": 0.2, "coverage": 0.1, "per_perspective": {}}}}'
    with pytest.raises(ValueError) as raised:
        scores_file.read_scores(f'{good}\n{{"id": "b", "scores": {{"m": {scores}}}, "words": {words}}}\n')
    assert str(raised.value) == f"line 2: {problem}"


def test_scores_nested_too_deeply_are_invalid_json():
    with pytest.raises(ValueError, match="line 1: invalid JSON: arrays or objects nested too deeply"):
        scores_file.read_scores("[" * 100_000)


def test_every_detector_pair_is_tested_only_against_the_best():
    rng = np.random.default_rng(1)
    examples = [labelled(f"e{i}", h=bool(i % 2), c=False, kind="organic") for i in range(40)]
    strength = {"a": 2.0, "b": 0.2, "c": 0.0}
    results = {
        e.id: {m: result(float(rng.random() + s * e.labels.hallucination) / 3, 0.0) for m, s in strength.items()}
        for e in examples
    }
    evaluated = auc.evaluate(examples, results, list(strength), Settings(n_bootstrap=100), word_level=False)
    cells = {m: evaluated.cell("example", "hallucination", "full_organic", m) for m in strength}
    assert cells["a"].best and cells["a"].p_value is None
    for detector_name in ("b", "c"):
        assert cells[detector_name].p_value == pytest.approx(min(1.0, 2 * cells[detector_name].p_value_uncorrected))
        assert cells[detector_name].significantly_worse is True
    assert list(itertools.chain(evaluated.word_cells)) == []


def test_records_that_name_a_variant_are_also_evaluated_per_variant():
    from explorer.data.example import Example, Labels, Perspective
    from explorer.detectors.base import DetectorResult
    from explorer.evaluation.auc import Settings, evaluate

    def example(i, variant, hallucination):
        labels = Labels(hallucination=hallucination, coverage_error=False, kind="organic", ambiguous=False)
        return Example(
            f"e{i}",
            "q?",
            (Perspective("pro", ("An argument here.",)),),
            "A response.",
            labels=labels,
            extra={"variant": variant},
        )

    examples = [example(i, "A", False) for i in range(4)] + [example(4 + i, "R", True) for i in range(4)]
    results = {
        e.id: {"d": DetectorResult("d", 0.9 if e.extra["variant"] == "R" else 0.1, 0.0, {"pro": 0.0}, (), (), {})}
        for e in examples
    }
    evaluation = evaluate(examples, results, ["d"], Settings(n_bootstrap=10), word_level=False)
    [cell] = [c for c in evaluation.variant_cells if c.error_type == "hallucination"]
    assert (cell.slice, cell.auc, cell.positives, cell.negatives) == ("variant:R", 1.0, 4, 4)
