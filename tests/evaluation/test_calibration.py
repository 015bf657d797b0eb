"""Calibrated verdicts: Platt scaling on a dev set, thresholds on each detector's own scale,
the shipped calibrations (fitted on the foreign NPOV dev set, matched to the detector that made a result)."""

import json

import pytest

from explorer import detectors
from explorer.data.jsonl import parse_jsonl
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from explorer.evaluation import calibration
from explorer.evaluation.calibration import LIKELY, UNCLEAR, UNLIKELY
from explorer.scoring.runner import score_example
from tests.helpers import make_example

FOREIGN_DEV = "dev.jsonl, dev split"  # what bench/calibrate.py --data calls ../shared/data/npov_foreign/dev.jsonl
# Errors score high, error-free examples low, with some overlap in the middle.
LABELS = [False] * 6 + [True] * 6
SCORES = [0.05, 0.1, 0.15, 0.2, 0.35, 0.5, 0.4, 0.55, 0.7, 0.8, 0.85, 0.9]


def test_platt_scaling_orders_the_verdict_bands_on_the_detectors_own_scale():
    fit = calibration.fit(LABELS, SCORES)
    assert fit.informative and fit.positives == 6 and fit.negatives == 6
    assert fit.auc == pytest.approx(35 / 36)  # one pair out of order: 0.5 vs 0.4
    assert 0.0 < fit.unlikely_below < fit.threshold < fit.likely_from < 1.0
    assert fit.probability(fit.threshold) == pytest.approx(0.5)
    assert fit.verdict(0.05) == UNLIKELY and fit.verdict(fit.threshold) == UNCLEAR and fit.verdict(0.95) == LIKELY
    probabilities = [fit.probability(s) for s in sorted(SCORES)]
    assert probabilities == sorted(probabilities)


def test_a_detector_that_ranks_errors_lower_gives_no_verdict():
    fit = calibration.fit(LABELS, [1 - s for s in SCORES])
    assert not fit.informative
    assert fit.verdict(0.99) == UNCLEAR and fit.verdict(0.01) == UNCLEAR
    assert "threshold" not in fit.to_dict()


def test_a_detector_near_chance_gives_no_verdict_and_the_scores_say_so():
    from explorer.render.verdict import calibrated_words, scores_html

    # AUC 0.56: a few more errors above the error-free examples than below
    labels = [False, True] * 8
    scores = [0.1, 0.2, 0.3, 0.25, 0.5, 0.6, 0.7, 0.65, 0.2, 0.3, 0.4, 0.35, 0.6, 0.5, 0.8, 0.9]
    fit = calibration.fit(labels, scores)
    assert fit.auc < calibration.NEAR_CHANCE_AUC and fit.near_chance and not fit.informative
    assert fit.verdict(0.99) == UNCLEAR and "near chance" in calibrated_words(0.99, fit)
    example = make_example("Taxes cut sugar.", ("pro", ["Taxes cut sugar."]))
    result = detectors.create("rouge").score(example)
    page = scores_html({"rouge": result}, {"rouge": {"hallucination": fit, "coverage": None}}, {"rouge": "ROUGE-1"})
    assert page.count("data-near-chance") == 1 and f"near chance (dev ROC AUC {fit.auc:.2f})" in page


def test_one_class_cannot_be_calibrated():
    with pytest.raises(ValueError, match="needs errors and error-free examples, got 3 and 0"):
        calibration.fit([True] * 3, [0.1, 0.2, 0.3])


def test_written_calibrations_read_back_and_apply_only_to_the_same_detector_settings(tmp_path):
    example = make_example("Taxes cut sugar. Moon bases.", ("pro", ["Taxes cut sugar."]))
    result = detectors.create("rouge").score(example)
    fit = calibration.fit(LABELS, SCORES)
    written = calibration.Calibrations("test data", {"rouge": (result.info, {"hallucination": fit, "coverage": fit})})
    path = tmp_path / "calibration.json"
    calibration.write(written, path)
    back = calibration.read(path)
    assert back.get(result, "hallucination") == fit and back.data == "test data"
    other_version = result.__class__.from_dict(result.to_dict() | {"info": dict(result.info, version="999")})
    assert back.get(other_version, "hallucination") is None
    assert json.loads(path.read_text())["detectors"]["rouge"]["coverage"]["threshold"] == pytest.approx(fit.threshold)
    assert calibration.read(tmp_path / "missing.json").detectors == {}


def test_each_detector_says_what_it_was_fitted_on(tmp_path):
    example = make_example("Taxes cut sugar.", ("pro", ["Taxes cut sugar."]))
    info = detectors.create("rouge").score(example).info
    fit = calibration.fit(LABELS, SCORES)
    by_type = {"hallucination": fit, "coverage": fit}
    written = calibration.Calibrations(
        "per detector",
        {"rouge": (info, by_type), "semantic": (info, by_type)},
        fitted_on={"rouge": "foreign, dev split"},
    )
    calibration.write(written, tmp_path / "calibration.json")
    back = calibration.read(tmp_path / "calibration.json")
    assert back.data_of("rouge") == "foreign, dev split" and back.data_of("semantic") == "per detector"
    assert [name for name, _ in calibration.ranking(back, "foreign")] == ["rouge"]


def _foreign_dev():
    try:
        folder = shared_data_dir("npov_foreign") / "npov_foreign"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    return parse_jsonl(folder / "dev.jsonl").examples


def test_the_shipped_calibrations_come_from_a_dev_split_and_fit_todays_detectors():
    """Every shipped entry was fitted on a dev split (never a test split) and matches the current
    fast detectors (else they would silently give no verdict); `bench/calibrate.py` reproduces the
    shipped ROUGE-1 calibration from the foreign NPOV dev set alone."""
    shipped = calibration.read()
    for name in shipped.detectors:
        assert "dev split" in shipped.data_of(name) and "test" not in shipped.data_of(name), name
    for name in detectors.names():
        if detectors.spec(name).cost != detectors.SLOW:  # cheap to build: the model-free and MiniLM ones
            info = json.loads(json.dumps(detectors.create(name).info()))
            assert shipped.detectors[name][0] == info, f"{name}: rerun bench/calibrate.py --detectors {name}"
            assert shipped.data_of(name).startswith(FOREIGN_DEV), f"{name}: fit it on the foreign NPOV dev set"
    dev = _foreign_dev()
    rouge = detectors.create("rouge")
    results = {e.id: score_example(e, [rouge]).results["rouge"] for e in dev}
    refitted = calibration.fit_detector(dev, results)
    for error_type, fit in refitted.items():
        assert shipped.get(results[dev[0].id], error_type).to_dict() == pytest.approx(fit.to_dict())


def test_the_verdict_detector_is_the_best_on_the_foreign_dev_set_of_those_not_slow():
    """`detectors.VERDICT_DETECTOR` follows the evidence: the highest mean dev ROC AUC among the
    calibrations fitted on the foreign NPOV dev set (never the sample data's), of the detectors
    the app can run inline on every example it shows."""
    assert len(calibration.ranking(calibration.read(), FOREIGN_DEV)) >= 6
    ranking = calibration.ranking(calibration.read(), FOREIGN_DEV, among=detectors.verdict_candidates())
    assert ranking[0][0] == detectors.VERDICT_DETECTOR
    assert "classifier" not in detectors.verdict_candidates() and "stacked" in detectors.verdict_candidates()
