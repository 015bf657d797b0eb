"""Calibrating on your own labels (`explorer.evaluation.refit`, `explorer calibrate`): the shipped
method refitted, with bootstrap intervals, a refusal below the minimum per class, a file that
reads back, and in force (`calibration.using`) for every verdict and threshold."""

import json

import pytest

from explorer import detectors
from explorer.cli import main
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.evaluation import calibration, refit, verdict
from explorer.scoring.runner import score_examples


@pytest.fixture(scope="module")
def labelled():
    """The sample's synthetic train split (59 answers with each error, 98 without, 52 ambiguous)
    and ROUGE-1's results on it, by id."""
    examples = [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "train"]
    rouge = detectors.create("rouge")
    results = {s.example.id: s.results["rouge"] for s in score_examples(examples, [rouge])}
    return examples, results


def test_a_refit_is_the_shipped_method_on_your_labels_with_intervals_and_names_itself(labelled, tmp_path):
    examples, results = labelled
    own = refit.fit_labels(examples, {"rouge": results}, source="train.jsonl", n_bootstrap=100)
    unambiguous = [e for e in examples if calibration.dev_label(e, "hallucination") is not None]
    assert own.labels == len(unambiguous) == 157 and own.name == "your 157 labels (train.jsonl)"
    by_type = own.calibrations.detectors["rouge"][1]
    assert by_type["coverage"].to_dict() == calibration.fit_detector(examples, results)["coverage"].to_dict()
    for error_type, fit in by_type.items():
        spread = own.spreads["rouge"][error_type]
        low, high = spread.intervals["auc"]
        assert low <= fit.auc <= high
        if fit.informative:
            low, high = spread.intervals["threshold"]
            assert low < fit.threshold < high and 0.5 < spread.informative <= 1.0
    path = tmp_path / "mine.json"
    refit.write(own, path)
    back = refit.read(path)
    assert back.calibrations == own.calibrations and back.labels == 157 and back.name == own.name
    assert back.spreads == own.spreads
    assert calibration.read(path).detectors == own.calibrations.detectors  # the shipped reader reads it too
    assert json.loads(path.read_text())["format"] == refit.FORMAT


def _few_hallucinations(examples):
    """8 answers with a hallucination, 30 with a coverage error, 30 with neither (none ambiguous)."""
    clean = [e for e in examples if calibration.dev_label(e, "hallucination") is not None]
    return (
        [e for e in clean if e.labels.hallucination][:8]
        + [e for e in clean if e.labels.coverage_error and not e.labels.hallucination][:30]
        + [e for e in clean if not e.labels.coverage_error and not e.labels.hallucination][:30]
    )


def test_below_the_minimum_per_class_an_error_type_is_refused_and_the_other_still_fitted(labelled):
    examples, results = labelled
    few = _few_hallucinations(examples)
    own = refit.fit_labels(few, {"rouge": results}, n_bootstrap=0)
    assert "hallucination" not in own.calibrations.detectors["rouge"][1]
    assert "coverage" in own.calibrations.detectors["rouge"][1]
    assert own.refused["rouge"]["hallucination"].startswith("8 labelled answer(s) with a hallucination error and ")
    with pytest.raises(refit.TooFewLabels, match=f"at least {refit.MIN_PER_CLASS} of each are needed"):
        refit.fit_labels(few[:20] + few[-5:], {"rouge": results}, n_bootstrap=0)


def test_in_force_a_refit_replaces_only_its_own_fits_and_every_verdict_reads_it(labelled):
    examples, results = labelled
    few = _few_hallucinations(examples)
    own = refit.fit_labels(few, {"rouge": results}, source="mine.jsonl", n_bootstrap=0)
    merged = refit.merged(calibration.shipped(), own.calibrations)
    rouge, semantic = merged.detectors["rouge"][1], merged.detectors["semantic"]
    assert rouge["coverage"] is own.calibrations.detectors["rouge"][1]["coverage"]
    assert rouge["hallucination"] is calibration.shipped().detectors["rouge"][1]["hallucination"]
    assert semantic is calibration.shipped().detectors["semantic"]
    assert merged.data_of("rouge").startswith(f"{own.name} (coverage); dev.jsonl")
    result = next(iter(results.values()))
    assert verdict.thresholds({"rouge": result})["rouge"]["coverage"] is calibration.shipped().get(result, "coverage")
    with calibration.using(merged):
        assert verdict.thresholds({"rouge": result})["rouge"]["coverage"] is rouge["coverage"]
        assert calibration.active() is merged
    assert calibration.active() is calibration.shipped()


def test_a_file_that_is_no_calibration_is_refused_with_what_is_wrong():
    with pytest.raises(refit.CalibrationFileError, match="x.json is not a calibration file"):
        refit.parse("[1, 2]", "x.json")
    with pytest.raises(refit.CalibrationFileError, match="calibrates no detector"):
        refit.parse('{"detectors": {}}', "x.json")


def test_explorer_calibrate_writes_what_rates_then_uses_and_refuses_too_few_labels(labelled, tmp_path, capsys):
    examples, _ = labelled
    data, few = tmp_path / "labelled.jsonl", tmp_path / "few.jsonl"
    write_jsonl(examples, data)
    write_jsonl(examples[:12], few)
    mine = tmp_path / "mine.json"
    assert main(["calibrate", str(few), "--detectors", "rouge", "--out", str(mine), "--quiet"]) == 2
    assert "nothing to calibrate" in capsys.readouterr().err and not mine.exists()
    assert main(["calibrate", str(data), "--detectors", "rouge", "--out", str(mine), "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert "rouge" in out and "threshold" in out
    assert refit.read(mine).name == "your 157 labels (labelled.jsonl)"
