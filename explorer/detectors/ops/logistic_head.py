"""A logistic regression head on standardized features, kept as JSON: what the alignment
classifier (one row per claim or argument) and the stacked detector (one row per example) score
with.

Fitted as scikit-learn's `make_pipeline(StandardScaler(), LogisticRegression(...))` and saved as
its numbers (means, scales, coefficients, intercept: a few hundred bytes, no pickle); scored as
the logistic function of the standardized features, which is the pipeline's `predict_proba`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.files import write_text

MODEL_FILE = "model.json"


@dataclass(frozen=True)
class LogisticHead:
    """P(error) for `error_type` from the columns `features`, standardized by `mean` and `scale`."""

    error_type: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    def pushes(self, rows: np.ndarray) -> np.ndarray:
        """What each feature adds to the log-odds (weight x standardized value), in the shape of `rows`."""
        return (rows - np.asarray(self.mean)) / np.asarray(self.scale) * np.asarray(self.weights)

    def p_error(self, rows: np.ndarray) -> np.ndarray:
        """P(error) of rows `(n, len(features))` as shape `(n,)`, or of one row `(len(features),)`
        as a scalar: the logistic function of the pushes plus the intercept."""
        logits = self.pushes(rows).sum(axis=-1) + self.intercept
        return 1.0 / (1.0 + np.exp(-logits))

    def to_dict(self) -> dict[str, Any]:
        """The JSON of `MODEL_FILE`, fields in this order. The error type is stored as "task", the
        field name of the shipped models and of training records."""
        return {
            "task": self.error_type,
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LogisticHead:
        fields = {"error_type" if key == "task" else key: value for key, value in data.items()}
        return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()})

    @classmethod
    def from_pipeline(cls, error_type: str, features: Sequence[str], pipeline) -> LogisticHead:
        """The head of a fitted `make_pipeline(StandardScaler(), LogisticRegression())` whose
        columns are `features`."""
        scaler, regression = pipeline[0], pipeline[-1]
        return cls(
            error_type=error_type,
            features=tuple(features),
            mean=tuple(float(v) for v in scaler.mean_),
            scale=tuple(float(v) for v in scaler.scale_),
            weights=tuple(float(v) for v in regression.coef_[0]),
            intercept=float(regression.intercept_[0]),
        )

    @classmethod
    def fit(
        cls, error_type: str, features: Sequence[str], rows: np.ndarray, gold: Sequence[int], strength: float
    ) -> LogisticHead:
        """scikit-learn's class-balanced logistic regression with regularization C = `strength`,
        on rows whose columns are `features`, standardized."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        regression = LogisticRegression(C=strength, class_weight="balanced", max_iter=1000)
        return cls.from_pipeline(error_type, features, make_pipeline(StandardScaler(), regression).fit(rows, gold))

    def save(self, directory: Path, file: str = MODEL_FILE) -> str:
        """Write `file` to `directory`; returns the file's sha256 (for a training record)."""
        text = json.dumps(self.to_dict(), indent=1) + "\n"
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        write_text(directory / file, text)
        return hashlib.sha256(text.encode()).hexdigest()

    @classmethod
    def load(cls, directory: Path, file: str = MODEL_FILE) -> LogisticHead:
        return cls.from_dict(json.loads((Path(directory) / file).read_text(encoding="utf-8")))
