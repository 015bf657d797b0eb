"""Calibrated verdicts: each detector's error score mapped to P(error) on a labelled dev set.

Detectors' scales differ wildly (on an error-free sample salience gives 0.92, semantic
alignment 0.10), so a raw score says little on its own. Platt scaling (Platt 1999: a logistic
regression of the gold label on the score, here scikit-learn's on the standardized score with
its default L2 penalty, so a dev set the detector separates perfectly still gives a finite
slope) turns a score into P(error) for one detector and error type. From it come three cut
points on the detector's own scale, shown beside its score:

- `threshold`: P(error) = 0.5, the operating point;
- `unlikely_below` / `likely_from`: P(error) = `UNLIKELY_BELOW` / `LIKELY_FROM`, the bands of
  the verdict (`unlikely`, `unclear`, `likely`).

Calibrations are fitted by `bench/calibrate.py` on a labelled dev split (the Perspectrum-built
examples' for the detectors it could score there, else the sample data's; never a test split;
each entry says which) and shipped in `resources/calibration.json` with the detector's `info` (version, model,
config): a result made by other code, weights or settings gets no calibrated verdict. P(error)
depends on the dev set's share of errors (recorded with each calibration). Each fit keeps the
scores it was fitted on (`Sample`), so what is computed from it later (an error rate over a
log, `explorer.evaluation.rates`) can carry the calibration's own uncertainty by resampling them.

A user's own labels refit the same calibrations (`explorer.evaluation.refit`); which ones are in
force is `active()`: the shipped ones unless an app session, a command or an API call chose others
(`using`), so every verdict, threshold and report of that run reads the same ones.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from explorer.config import RESOURCES
from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES, is_ambiguous
from explorer.detectors.base import DetectorResult
from explorer.files import write_text

CALIBRATION_FILE = RESOURCES / "calibration.json"
LIKELY, UNCLEAR, UNLIKELY = "likely", "unclear", "unlikely"
LIKELY_FROM = 0.7
UNLIKELY_BELOW = 0.3
# Below this dev ROC AUC a detector's score says little about an error: no verdict, and the app
# says so beside the score instead of showing a threshold.
NEAR_CHANCE_AUC = 0.6
_LABEL_FIELDS = {"hallucination": "hallucination", "coverage": "coverage_error"}


@dataclass(frozen=True)
class Sample:
    """The scores a calibration was fitted on, by gold class (sorted, rounded to `SAMPLE_DIGITS`),
    and, when known, the cluster of each (an index: answers to one question, `cluster_of`), so
    that a resample can draw whole questions (`resampled`)."""

    positives: tuple[float, ...]
    negatives: tuple[float, ...]
    positive_clusters: tuple[int, ...] = ()
    negative_clusters: tuple[int, ...] = ()

    @classmethod
    def of(cls, labels: Sequence[bool], scores: Sequence[float], clusters: Sequence[int] | None = None) -> Sample:
        given = clusters if clusters is not None else [0] * len(labels)
        rows = [(round(float(s), SAMPLE_DIGITS), c, bool(y)) for y, s, c in zip(labels, scores, given)]

        def kept(wanted: bool) -> list[tuple[float, int]]:
            return sorted((score, cluster) for score, cluster, y in rows if y == wanted)

        positives, negatives = kept(True), kept(False)
        return cls(
            positives=tuple(score for score, _ in positives),
            negatives=tuple(score for score, _ in negatives),
            positive_clusters=tuple(int(c) for _, c in positives) if clusters is not None else (),
            negative_clusters=tuple(int(c) for _, c in negatives) if clusters is not None else (),
        )

    def to_dict(self) -> dict[str, list]:
        found: dict[str, list] = {"positives": list(self.positives), "negatives": list(self.negatives)}
        if self.positive_clusters:
            found.update(positive_clusters=list(self.positive_clusters), negative_clusters=list(self.negative_clusters))
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sample:
        return cls(
            tuple(data["positives"]),
            tuple(data["negatives"]),
            tuple(data.get("positive_clusters", ())),
            tuple(data.get("negative_clusters", ())),
        )


def cluster_of(example: Example) -> str:
    """What ties answers together: their question (the topic, else the query). Answers to one
    question share its arguments and often its difficulty, so they are resampled together."""
    return example.topic or example.query


# Scores are kept to 6 decimals: a resampled fit moves far more than the rounding does.
SAMPLE_DIGITS = 6


@dataclass(frozen=True)
class Calibration:
    """P(error) of one detector and error type: `1 / (1 + exp(-(coef * (score - mean) / scale + intercept)))`.

    `coef <= 0` means the detector did not rank errors above error-free examples on the dev
    set, and a dev ROC AUC under `NEAR_CHANCE_AUC` that it ranked them little better than a coin:
    either way it gives no verdict (`informative` is false). Cut points outside [0, 1] mean the
    detector's scores never reach that band.
    """

    mean: float
    scale: float
    coef: float
    intercept: float
    positives: int
    negatives: int
    auc: float
    sample: Sample | None = None  # what it was fitted on; None in files written before samples were kept

    @property
    def near_chance(self) -> bool:
        return self.auc < NEAR_CHANCE_AUC

    @property
    def informative(self) -> bool:
        return self.coef > 0 and not self.near_chance

    def probability(self, score: float) -> float:
        z = self.coef * (score - self.mean) / self.scale + self.intercept
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def score_at(self, probability: float) -> float:
        """The score where P(error) = `probability` (informative calibrations only)."""
        logit = math.log(probability / (1.0 - probability))
        return self.mean + self.scale * (logit - self.intercept) / self.coef

    @property
    def threshold(self) -> float:
        return self.score_at(0.5)

    @property
    def likely_from(self) -> float:
        return self.score_at(LIKELY_FROM)

    @property
    def unlikely_below(self) -> float:
        return self.score_at(UNLIKELY_BELOW)

    def verdict(self, score: float) -> str:
        if not self.informative:
            return UNCLEAR
        p = self.probability(score)
        return LIKELY if p >= LIKELY_FROM else UNLIKELY if p < UNLIKELY_BELOW else UNCLEAR

    def to_dict(self) -> dict[str, Any]:
        """The fit's figures (its `sample` is written beside them by `Calibrations.to_dict`)."""
        found = {name: value for name, value in asdict(self).items() if name != "sample"}
        if self.informative:
            found.update(threshold=self.threshold, unlikely_below=self.unlikely_below, likely_from=self.likely_from)
        return found


def fit(labels: Sequence[bool], scores: Sequence[float], clusters: Sequence[int] | None = None) -> Calibration:
    """Platt scaling of `scores` against gold `labels` (both classes needed); `clusters` (an index
    per score: `cluster_of`) are kept with the sample."""
    y = np.asarray(labels, dtype=bool)
    x = np.asarray(scores, dtype=float)
    if y.all() or not y.any():
        raise ValueError(f"calibration needs errors and error-free examples, got {int(y.sum())} and {int((~y).sum())}")
    # Imported here: scikit-learn takes seconds to import, and only fitting needs it (the app's
    # first page waited for it before drawing anything).
    from sklearn.linear_model import LogisticRegression

    from explorer.training.data import roc_auc

    mean = float(x.mean())
    scale = float(x.std()) or 1.0
    model = LogisticRegression().fit(((x - mean) / scale)[:, None], y)
    return Calibration(
        mean=mean,
        scale=scale,
        coef=float(model.coef_[0, 0]),
        intercept=float(model.intercept_[0]),
        positives=int(y.sum()),
        negatives=int((~y).sum()),
        auc=roc_auc(y, x),
        sample=Sample.of(y.tolist(), x.tolist(), clusters),
    )


def resampled(fitted: Calibration, n: int, seed: int = 0) -> list[Calibration]:
    """`fitted` refitted on `n` bootstrap resamples of its `sample`: how far its figures would
    move on other labelled answers like these. With clusters, whole clusters are drawn (a cluster
    bootstrap: answers to one question are not independent, and resampling them one by one
    understates how much the fit depends on which questions were labelled), redrawn in the rare
    case one class is left out; without, each class is resampled on its own. A `ValueError` for a
    fit that kept no sample."""
    sample = fitted.sample
    if sample is None:
        raise ValueError("this calibration was written without the scores it was fitted on; refit it to resample it")
    rng = np.random.default_rng(seed)
    positives, negatives = np.asarray(sample.positives), np.asarray(sample.negatives)
    if sample.positive_clusters:
        clusters = np.asarray(sample.positive_clusters), np.asarray(sample.negative_clusters)
        names = np.unique(np.concatenate(clusters))
        members = [(positives[clusters[0] == name], negatives[clusters[1] == name]) for name in names]
    found = []
    # A few hundred numbers a fit: BLAS threads only wait on each other (10x slower beside another job).
    with threadpool_limits(1):
        while len(found) < n:
            if sample.positive_clusters:
                drawn = [members[i] for i in rng.integers(0, len(members), len(members))]
                ones, zeros = np.concatenate([p for p, _ in drawn]), np.concatenate([z for _, z in drawn])
                if not len(ones) or not len(zeros):
                    continue
            else:
                ones, zeros = rng.choice(positives, len(positives)), rng.choice(negatives, len(negatives))
            found.append(fit([True] * len(ones) + [False] * len(zeros), np.concatenate([ones, zeros])))
    return found


def dev_label(example: Example, error_type: str) -> bool | None:
    """Gold label of `example` for calibration: None (left out) when ambiguous or unlabelled."""
    if is_ambiguous(example.labels):
        return None
    return getattr(example.labels, _LABEL_FIELDS[error_type])


def fit_detector(examples: Sequence[Example], results: Mapping[str, DetectorResult]) -> dict[str, Calibration]:
    """One detector's calibration per error type from its results (by example id) on labelled examples."""
    found = {}
    clusters: dict[str, int] = {}
    for error_type in ERROR_TYPES:
        rows = [
            (label, results[e.id].score(error_type), clusters.setdefault(cluster_of(e), len(clusters)))
            for e in examples
            if e.id in results and (label := dev_label(e, error_type)) is not None
        ]
        found[error_type] = fit([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    return found


@dataclass(frozen=True)
class Calibrations:
    """The shipped calibrations: per detector, the `info` they were fitted with and one
    `Calibration` per error type; `data` says what they were fitted on, `fitted_on` per detector
    where detectors were fitted on different data (a detector missing there: `data`)."""

    data: str
    detectors: Mapping[str, tuple[Mapping[str, Any], Mapping[str, Calibration]]]
    fitted_on: Mapping[str, str] = field(default_factory=dict)

    def data_of(self, name: str) -> str:
        """What detector `name`'s calibration was fitted on."""
        return self.fitted_on.get(name, self.data)

    def data_of_all(self, names: Iterable[str]) -> list[str]:
        """What the calibrations of the detectors `names` were fitted on, each data set once."""
        return sorted({self.data_of(name) for name in names if name in self.detectors})

    def get(self, result: DetectorResult, error_type: str) -> Calibration | None:
        """The calibration for `result`'s detector and error type, if fitted on the same code, weights and settings."""
        entry = self.detectors.get(result.detector)
        if entry is None or _comparable(entry[0]) != _comparable(result.info):
            return None
        return entry[1].get(error_type)

    def to_dict(self) -> dict[str, Any]:
        return {
            "data": self.data,
            "bands": {"unlikely_below": UNLIKELY_BELOW, "likely_from": LIKELY_FROM},
            "detectors": {
                name: {"info": dict(info), "data": self.data_of(name), **{t: _entry(c) for t, c in by_type.items()}}
                for name, (info, by_type) in self.detectors.items()
            },
        }


def ranking(calibrations: Calibrations, source: str, among: Collection[str] | None = None) -> list[tuple[str, float]]:
    """Detectors whose calibration was fitted on `source` (its data starts so), `among` those
    named when given, by mean dev ROC AUC over the error types, best first: the evidence for
    which detector gives the verdict."""
    found = [
        (name, sum(c.auc for c in by_type.values()) / len(by_type))
        for name, (_, by_type) in calibrations.detectors.items()
        if calibrations.data_of(name).startswith(source) and by_type and (among is None or name in among)
    ]
    return sorted(found, key=lambda item: -item[1])


def _entry(fit: Calibration) -> dict[str, Any]:
    return fit.to_dict() | ({"sample": fit.sample.to_dict()} if fit.sample is not None else {})


def _comparable(info: Mapping[str, Any]) -> str:
    return json.dumps(info, sort_keys=True, ensure_ascii=False)


_FIELDS = ("mean", "scale", "coef", "intercept", "positives", "negatives", "auc")


def read(path: Path = CALIBRATION_FILE) -> Calibrations:
    """Calibrations written by `bench/calibrate.py`; none when the file is missing."""
    if not path.is_file():
        return Calibrations(data="", detectors={})
    data = json.loads(path.read_text(encoding="utf-8"))
    detectors = {
        name: (entry["info"], {t: from_entry(entry[t]) for t in ERROR_TYPES if t in entry})
        for name, entry in data["detectors"].items()
    }
    fitted_on = {name: entry["data"] for name, entry in data["detectors"].items() if "data" in entry}
    return Calibrations(data=data["data"], detectors=detectors, fitted_on=fitted_on)


def from_entry(entry: Mapping[str, Any]) -> Calibration:
    """One error type's entry of a calibration file (its figures and, when kept, its sample)."""
    sample = entry.get("sample")
    return Calibration(
        **{f: entry[f] for f in _FIELDS},
        sample=Sample.from_dict(sample) if sample else None,
    )


@lru_cache(maxsize=1)
def shipped() -> Calibrations:
    return read()


# A context variable, not a global: the app serves many sessions from one process, each run on
# its own thread, and each session may have calibrated on its own labels.
_ACTIVE: ContextVar[Calibrations | None] = ContextVar("calibrations", default=None)


def active() -> Calibrations:
    """The calibrations in force: those `using` set for this run, else the shipped ones."""
    return _ACTIVE.get() or shipped()


@contextlib.contextmanager
def using(calibrations: Calibrations | None) -> Iterator[Calibrations]:
    """Within the block, `active()` is `calibrations` (None: the shipped ones)."""
    token = _ACTIVE.set(calibrations)
    try:
        yield active()
    finally:
        _ACTIVE.reset(token)


def use(calibrations: Calibrations | None) -> None:
    """Set `active()` for the rest of this context (a Streamlit run: its thread ends with it)."""
    _ACTIVE.set(calibrations)


def write(calibrations: Calibrations, path: Path = CALIBRATION_FILE) -> None:
    """Write atomically: an interrupted run leaves the old file, never half a new one."""
    write_text(path, dumps(calibrations.to_dict()), owned=True)


# A list of numbers as `json.dumps(indent=2)` writes it: one number a line.
_NUMBERS = re.compile(r"\[\n\s+([-+0-9.eE,\s]+?)\n\s*\]")


def dumps(record: Mapping[str, Any]) -> str:
    """`record` as indented JSON with each list of numbers (a sample) on one line, so a file of
    calibrations stays readable and a refit's diff short."""
    text = json.dumps(record, indent=2, ensure_ascii=False)
    return _NUMBERS.sub(lambda match: "[" + " ".join(match.group(1).split()) + "]", text) + "\n"
