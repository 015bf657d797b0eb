"""A coverage head per argument: each given argument's P(dropped) from its own words' scores.

The stacked detector's coverage head reads example scores and was fitted mostly on short answers;
over a long answer with many arguments the closeness signals it weighs most find every argument
near some piece. Here each argument is a row: the highest and the mean score of its words by each
of `COMPONENTS`, the log of the answer's argument count and of its words, and each score times
each of those two sizes, so that how far a score is trusted follows the answer's size (without
the products dev_v3's R slice read 2.3 points lower: docs/development/models.md, "A coverage head
per argument"). A logistic regression on standardized rows, not class-balanced: its P is joined to
the verdict's by noisy-or (`explorer.detectors.stacked.ARGUMENT_WEIGHT`), so it must stay a
probability, not a ranking. Kept as `FILE` beside the coverage head's `model.json`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.detectors.ops.logistic_head import LogisticHead

COMPONENTS = ("tagger_coverage", "matching", "meaning", "polarity", "alignment_classifier_tuned", "semantic_tuned")
SCORES = tuple(f"{component} {how}" for component in COMPONENTS for how in ("highest", "mean"))
SIZES = ("log arguments", "log words")
FEATURES = (*SCORES, *SIZES, *(f"{score} x {size}" for size in SIZES for score in SCORES))
FILE = "arguments.json"
# Chosen with the features by `bench/argument_head.py` (C .1 and 1 alike on the selection sets).
STRENGTH = 0.1
Key = tuple[int, int]


def rows(example: Example, results: Mapping[str, DetectorResult]) -> tuple[list[Key], np.ndarray]:
    """Each argument of `example` (perspective, argument) and its row of `FEATURES`; NaN where a
    component did not read the example or scored none of the argument's words."""
    keys = [(p, a) for p, a, _ in example.arguments()]
    if not keys:
        return keys, np.zeros((0, len(FEATURES)))
    columns = []
    for name in COMPONENTS:
        words: dict[Key, list[float]] = {}
        for word in results[name].argument_words if name in results else ():
            words.setdefault((word.perspective, word.argument), []).append(word.score)
        columns.append([max(words[k]) if k in words else math.nan for k in keys])
        columns.append([float(np.mean(words[k])) if k in words else math.nan for k in keys])
    scores = np.array(columns, dtype=float).T
    sizes = np.tile([math.log(len(keys)), math.log(max(len(example.response.split()), 1))], (len(keys), 1))
    return keys, np.hstack([scores, sizes, scores * sizes[:, [0]], scores * sizes[:, [1]]])


def fit(
    rows: np.ndarray, gold: Sequence[int], strength: float = STRENGTH, features: Sequence[str] = FEATURES
) -> LogisticHead:
    """The head on `rows` whose columns are `features` (a missing value at its column's mean) and
    whether each argument is dropped."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    filled = np.where(np.isnan(rows), np.nanmean(rows, axis=0), rows)
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=strength, max_iter=2000))
    return LogisticHead.from_pipeline("coverage", features, pipeline.fit(filled, gold))


def dropped(head: LogisticHead, example: Example, results: Mapping[str, DetectorResult]) -> dict[Key, float]:
    """Each argument's P(dropped); a missing feature takes its training mean."""
    keys, found = rows(example, results)
    if not keys:
        return {}
    return dict(zip(keys, (float(p) for p in head.p_error(np.where(np.isnan(found), head.mean, found)))))


def load(folder: Path) -> LogisticHead | None:
    """The head kept in `folder`, or None where the coverage head there has none (one fitted by
    `explorer train --detector stacked`)."""
    if not (Path(folder) / FILE).is_file():
        return None
    head = LogisticHead.load(folder, FILE)
    if head.features != FEATURES:
        raise ValueError(f"{Path(folder) / FILE} was fitted on other features than this version computes")
    return head
