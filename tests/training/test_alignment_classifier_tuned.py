"""The shipped tuned alignment classifier reads the shipped matcher (retrain both together)."""

import json

import pytest

from explorer.detectors.alignment_classifier import load
from explorer.detectors.alignment_classifier_tuned import SHIPPED
from explorer.models.matcher import SHIPPED_ADAPTER, adapter_sha256


@pytest.mark.parametrize("error_type", ["hallucination", "coverage"])
def test_trained_for_the_shipped_matcher_and_selected_on_perspectrum_dev(error_type):
    record = json.loads((SHIPPED / error_type / "training.json").read_text(encoding="utf-8"))
    assert record["model"].endswith(f"+ matcher LoRA {adapter_sha256(SHIPPED_ADAPTER)[:16]}")
    assert record["dev_is_held_out"] and "perspectrum dev" in record["dev_data"]
    best = max(auc for _, auc in record["dev_roc_auc"])
    assert dict(map(tuple, record["dev_roc_auc"]))[record["kept_C"]] == best
    assert load(SHIPPED / error_type).error_type == error_type
