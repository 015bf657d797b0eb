"""Calibrated verdicts: Platt scaling on a dev set, thresholds on each detector's own scale,
the shipped calibrations (fitted on the sample dev split, matched to the detector that made a result)."""

import json

import pytest

from explorer import detectors
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl
from explorer.evaluation import calibration
from explorer.evaluation.calibration import LIKELY, UNCLEAR, UNLIKELY
from explorer.scoring.runner import score_example
from tests.helpers import make_example

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


def test_the_shipped_calibrations_come_from_the_dev_split_and_fit_todays_detectors():
    """`bench/calibrate.py` reproduces the shipped ROUGE-1 calibration from the dev split alone;
    the shipped entries match the current fast detectors (else they would silently give no verdict)."""
    shipped = calibration.read()
    assert "dev split" in shipped.data and "test" not in shipped.data
    dev = [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "dev"]
    rouge = detectors.create("rouge")
    results = {e.id: score_example(e, [rouge]).results["rouge"] for e in dev}
    refitted = calibration.fit_detector(dev, results)
    for error_type, fit in refitted.items():
        assert shipped.get(results[dev[0].id], error_type).to_dict() == pytest.approx(fit.to_dict())
    for name in detectors.names():
        if detectors.spec(name).cost != detectors.SLOW:  # cheap to build: the model-free and MiniLM ones
            info = json.loads(json.dumps(detectors.create(name).info()))
            assert shipped.detectors[name][0] == info, f"{name}: rerun bench/calibrate.py --methods {name}"
