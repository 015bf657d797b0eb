"""The logistic head shared by the alignment classifier and the stacked detector: it scores as
the scikit-learn pipeline it was read from, and survives its JSON file unchanged."""

import hashlib
import json

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from explorer.config import shipped_weights
from explorer.detectors.ops.logistic_head import MODEL_FILE, LogisticHead

FEATURES = ("a", "b", "c", "d")


def data():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(200, 4)) * [1, 2, 3, 4] + [0, 1, 2, 3]
    gold = (rows[:, 0] + 0.5 * rows[:, 1] + rng.normal(size=200) > 1).astype(int)
    return rows, gold


def test_the_head_of_a_fitted_pipeline_gives_its_predict_proba():
    rows, gold = data()
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=0.5)).fit(rows, gold)
    head = LogisticHead.from_pipeline("coverage", FEATURES, pipeline)
    expected = pipeline.predict_proba(rows)[:, 1]
    assert head.p_error(rows) == pytest.approx(expected, abs=1e-9)
    assert [head.p_error(row) for row in rows] == pytest.approx(expected, abs=1e-9)  # one row: a scalar


def test_fit_is_scikit_learns_class_balanced_logistic_regression():
    rows, gold = data()
    head = LogisticHead.fit("hallucination", FEATURES, rows, gold, 0.1)
    reference = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, class_weight="balanced", max_iter=1000))
    assert head.p_error(rows) == pytest.approx(reference.fit(rows, gold).predict_proba(rows)[:, 1], abs=1e-9)
    assert head.error_type == "hallucination" and head.features == FEATURES


def test_saved_and_loaded_the_head_is_the_same_and_its_digest_is_the_files(tmp_path):
    rows, gold = data()
    head = LogisticHead.fit("coverage", FEATURES, rows, gold, 1.0)
    digest = head.save(tmp_path / "coverage")
    written = (tmp_path / "coverage" / MODEL_FILE).read_bytes()
    assert digest == hashlib.sha256(written).hexdigest()
    assert LogisticHead.load(tmp_path / "coverage") == head
    # The file's layout is what the shipped heads were written in (their hashes are recorded).
    assert written.decode() == json.dumps(head.to_dict(), indent=1) + "\n"
    assert list(json.loads(written)) == ["task", "features", "mean", "scale", "weights", "intercept"]


@pytest.mark.parametrize("detector_name", ["alignment_classifier", "alignment_classifier_tuned", "stacked"])
@pytest.mark.parametrize("error_type", ["hallucination", "coverage"])
def test_a_shipped_head_saved_again_is_the_same_file(tmp_path, detector_name, error_type):
    shipped = shipped_weights(detector_name) / error_type
    LogisticHead.load(shipped).save(tmp_path)
    assert (tmp_path / MODEL_FILE).read_bytes() == (shipped / MODEL_FILE).read_bytes()
