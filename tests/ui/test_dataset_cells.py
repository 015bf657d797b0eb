"""The dataset page's AUC table while a detector still scores in the background (issue 48: its
"100.0 ★ · so far (22 of 226 scored)" named a best from a tenth of the set)."""

from explorer.data.samples import load_samples
from explorer.detectors import DetectorResult
from explorer.evaluation.report import detector_title
from explorer.ui.dataset.evaluation import auc_table, slice_cells


def result(name: str, score: float) -> DetectorResult:
    return DetectorResult(name, score, score, {}, (), (), {})


def test_a_detector_still_scoring_is_neither_starred_nor_the_best_the_others_are_tested_against():
    examples = [e for e in load_samples() if e.split == "test"]
    # "stacked" has scored 12 examples, perfectly; "rouge" all of them, with an AUC below 1.
    partial = [e for e in examples if e.labels.hallucination][:6] + [
        e for e in examples if e.labels.is_empty() or not (e.labels.hallucination or e.labels.coverage_error)
    ][:6]
    results = {e.id: {"rouge": result("rouge", (len(e.response) % 7) / 7)} for e in examples}
    for e in partial:
        results[e.id]["stacked"] = result("stacked", 1.0 if e.labels.hallucination else 0.0)
    names = ["rouge", "stacked"]
    cells = slice_cells(examples, results, names, "hallucination", partial={"stacked"})
    full = {c.detector: c for c in cells if c.slice == "full_organic"}
    assert full["stacked"].auc == 1.0 and not full["stacked"].best
    assert full["rouge"].best and full["rouge"].auc < 1.0
    table = auc_table(cells, names, {"stacked": (12, len(examples))})
    shown = table.loc["Full organic"]
    assert "★" not in shown[detector_title("stacked")] and "so far" in shown[detector_title("stacked")]
    assert "★" in shown[detector_title("rouge")]
    # Once scored in full, the same scores would be starred.
    cells = slice_cells(examples, results, names, "hallucination")
    assert next(c for c in cells if c.slice == "full_organic" and c.detector == "stacked").best
