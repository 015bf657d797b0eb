"""The shipped tuned alignment classifier reads the shipped matcher (retrain both together)."""

import json

import pytest

from explorer import detectors
from explorer.detectors.alignment_classifier import load
from explorer.models.matcher import adapter_sha256
from explorer.models.trained import MATCHER

SHIPPED = detectors.weights("alignment_classifier_tuned").shipped


@pytest.mark.parametrize("error_type", ["hallucination", "coverage"])
def test_trained_for_the_shipped_matcher_and_selected_on_perspectrum_dev(error_type):
    record = json.loads((SHIPPED / error_type / "training.json").read_text(encoding="utf-8"))
    assert record["model"].endswith(f"+ matcher LoRA {adapter_sha256(MATCHER.shipped)[:16]}")
    assert record["dev_is_held_out"] and "perspectrum dev" in record["dev_data"]
    best = max(auc for _, auc in record["dev_roc_auc"])
    assert dict(map(tuple, record["dev_roc_auc"]))[record["kept_C"]] == best
    assert load(SHIPPED / error_type).error_type == error_type
