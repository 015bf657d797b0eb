"""Figures users read about a detector come from the records, never typed into its summary
(issue 27): a refit updates `calibration.json`, and what the app shows follows."""

import json
import re

import pytest

from explorer import detectors
from explorer.evaluation.calibration import CALIBRATION_FILE
from explorer.ui.state import detector_about

RECORDED = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))["detectors"]


@pytest.mark.parametrize("name", detectors.names())
def test_no_summary_holds_a_typed_figure(name):
    assert not re.search(r"\.\d{2,}", detectors.spec(name).summary), detectors.spec(name).summary


@pytest.mark.parametrize("name", detectors.names())
def test_the_shown_description_carries_the_records_figures_and_data(name):
    shown = detector_about(name)
    assert detectors.spec(name).summary in shown
    entry = RECORDED.get(name)
    if entry is None:  # not calibrated yet: no figure rather than a typed one
        assert "ROC AUC" not in shown
        return
    figures = " / ".join(f"{entry[t]['auc']:.2f}" for t in ("hallucination", "coverage"))
    assert f"Dev ROC AUC {figures} (hallucination / coverage) on {entry['data']}: the data its threshold" in shown
