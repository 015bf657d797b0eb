"""Error rates over a log of answers, with intervals that carry the calibration's own uncertainty.

What share of the answers have a hallucination, and a coverage error, overall and per group
(topic, or any field of the records)? The answers have no labels; a detector scores them, and
its calibration (fitted on labelled answers: the shipped dev set's, or the user's own) says how
its scores relate to errors.

**Estimator: adjusted mean probability** (probabilistic adjusted classify-and-count, Bella et
al. 2010). With `P(s)` the calibrated P(error) of score `s`, `q` the mean of `P` over the log's
answers, and `m1`, `m0` its mean over the calibration set's answers with and without the error:

    rate = (q - m0) / (m1 - m0), clipped to [0, 1]

The plain mean of `P` is right only when the log has the calibration set's share of errors:
Platt scaling learns that share as its prior, so on a log with 10% errors it reads too high,
with 80% too low. The adjustment assumes instead that the scores of an answer *with* the error
are distributed as in the calibration set, and those *without* it too (label shift, Saerens et
al. 2002), whatever their mix: then `q = rate * m1 + (1 - rate) * m0` exactly, in expectation.
Adjusted classify-and-count at the P = 0.5 threshold assumes the same, but throws away how far
each score is from the threshold: on the foreign dev set its intervals came out wider.

**Interval** (`alpha` 0.05: 95%): a percentile bootstrap over both sources of error at once. In
each of `n_bootstrap` rounds the calibration is refitted on a resample of its labelled answers
(`calibration.resampled`: whole questions drawn, answers to one question being alike), which moves
`P`, `m1` and `m0`; the log's answers are resampled within each group, question by question when
it holds several, which moves `q`; the rate is recomputed. The
point estimate uses the calibration as fitted and the log as given.

An error type is refused when the calibration cannot carry a rate: it does not rank errors
higher, or the two classes' mean P(error) differ by less than `MIN_SEPARATION`.

What it assumes: the log's questions are exchangeable within a group (answers to one question
are resampled together, `calibration.cluster_of`), and each class's scores look like the
calibration set's. A log from another recipe
breaks the second: an answer of another length or style, or errors of a kind the calibration
set lacks, score differently, and no interval drawn from the calibration set covers that. Label
a few hundred answers of the log itself and calibrate on them (`explorer calibrate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.evaluation import calibration
from explorer.evaluation.calibration import Calibration

ALL = "all answers"
# The least difference of mean calibrated P(error) between the calibration's answers with the error
# and without it that a rate is estimated from: below it, a shift of 0.01 in the log's mean (a few
# answers, or answers to other questions scoring a little higher) moves the rate by over ten
# points, and the bootstrap understates how much (on the second foreign dev recipe the verdict's
# hallucination scores separate by 0.06, and the held-out half's 50% subset read 0%).
MIN_SEPARATION = 0.1
NO_GROUP = "(none)"
MAX_CELLS = 2_000_000  # bootstrap rounds x answers held in memory at once


class RateError(ValueError):
    """A calibration a rate cannot come from (not informative, or written without its sample)."""


@dataclass(frozen=True)
class Settings:
    n_bootstrap: int = 1000
    alpha: float = 0.05
    seed: int = 0


@dataclass(frozen=True)
class Rate:
    """The estimated share of `answers` with the error, its interval, and the plain mean of the
    calibrated P(error) (what the estimate corrects)."""

    error_type: str
    group: str
    answers: int
    rate: float
    low: float
    high: float
    mean_probability: float

    def to_dict(self) -> dict:
        return asdict(self)


def probabilities(fit: Calibration, scores: np.ndarray) -> np.ndarray:
    """`fit.probability` of every score, vectorized (shape of `scores`)."""
    return _platt(np.asarray(scores, dtype=float), fit.coef, fit.mean, fit.scale, fit.intercept)


def _platt(scores: np.ndarray, coef, mean, scale, intercept) -> np.ndarray:
    z = coef * (scores - mean) / scale + intercept
    return 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))


def _class_means(fit: Calibration) -> tuple[float, float]:
    """Mean calibrated P(error) over the calibration set's answers with the error and without."""
    return (
        float(probabilities(fit, np.asarray(fit.sample.positives)).mean()),
        float(probabilities(fit, np.asarray(fit.sample.negatives)).mean()),
    )


def _adjusted(q, high, low):
    return np.clip((q - low) / (high - low), 0.0, 1.0)


def usable(fit: Calibration | None, error_type: str) -> Calibration:
    """`fit` when a rate can come from it; else a `RateError` that says why."""
    if fit is None:
        raise RateError(f"no calibration of this detector for {error_type} (another version or settings)")
    if fit.sample is None:
        raise RateError(
            f"the calibration for {error_type} was written without the scores it was fitted on, so its own "
            "uncertainty cannot be carried into an interval; refit it (explorer calibrate, or bench/calibrate.py)"
        )
    if not fit.informative:
        raise RateError(
            f"the detector's {error_type} scores rank errors little better than chance (ROC AUC {fit.auc:.2f})"
        )
    high, low = _class_means(fit)
    if high - low < MIN_SEPARATION:
        raise RateError(
            f"on its calibration set the answers with a {error_type} error have a mean P(error) of {high:.2f} and "
            f"those without {low:.2f}: a difference under {MIN_SEPARATION} says too little for a rate "
            "(label answers like the log's and calibrate on them, or use another detector)"
        )
    return fit


def estimate(
    scores: Sequence[float],
    groups: Sequence[str],
    fit: Calibration,
    error_type: str,
    settings: Settings = Settings(),
    clusters: Sequence[str] | None = None,
) -> list[Rate]:
    """The rate of `error_type` over all answers and per group (`groups[i]` is answer i's), from
    each answer's score and the detector's calibration `fit` (see the module's docstring).
    `clusters[i]` names answer i's question (`calibration.cluster_of`): within a group of several
    questions, whole questions are resampled."""
    fit = usable(fit, error_type)
    values = np.asarray(scores, dtype=float)
    labels = np.asarray(groups, dtype=object)
    questions = np.asarray(clusters if clusters is not None else range(len(values)), dtype=object)
    members = {ALL: np.arange(len(values))}
    if len(set(groups)) > 1 or (groups and groups[0] != ALL):
        members.update({name: np.flatnonzero(labels == name) for name in sorted(set(groups))})
    refits = calibration.resampled(fit, settings.n_bootstrap, settings.seed)
    # Each round's fit as columns, so that a chunk of rounds is computed at once.
    params = np.array([[r.coef, r.mean, r.scale, r.intercept, *_class_means(r)] for r in refits]).reshape(-1, 6)
    rng = np.random.default_rng(settings.seed + 1)
    tail = 100 * settings.alpha / 2
    found = []
    for name, where in members.items():
        if len(where) == 0:
            continue
        own = values[where]
        mean_probability = float(probabilities(fit, own).mean())
        point = float(_adjusted(mean_probability, *_class_means(fit)))
        rounds = _rounds(own, questions[where], params, rng)
        low, high = np.percentile(rounds, [tail, 100 - tail]) if len(rounds) else (point, point)
        found.append(Rate(error_type, name, len(own), point, float(low), float(high), mean_probability))
    return found


def _rounds(scores: np.ndarray, questions: np.ndarray, params: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The rate in each bootstrap round: round b's refitted calibration (`params[b]`: coef, mean,
    scale, intercept, m1, m0) read over a resample of the answers, whole questions drawn when
    there are several (else answers one by one)."""
    _, cluster = np.unique(questions.astype(str), return_inverse=True)
    if cluster.max() == 0:  # one question: its answers are what varies
        cluster = np.arange(len(scores))
    order = np.argsort(cluster, kind="stable")
    scores, cluster = scores[order], cluster[order]
    starts = np.flatnonzero(np.r_[True, cluster[1:] != cluster[:-1]])
    sizes = np.diff(np.r_[starts, len(scores)])
    k = len(starts)
    found = []
    step = max(1, MAX_CELLS // max(len(scores), k))
    for first in range(0, len(params), step):
        chunk = params[first : first + step]
        coef, mean, scale, intercept, high, low = (chunk[:, i : i + 1] for i in range(6))
        sums = np.add.reduceat(_platt(scores[None, :], coef, mean, scale, intercept), starts, axis=1)
        weights = np.zeros((len(chunk), k))
        np.add.at(weights, (np.repeat(np.arange(len(chunk)), k), rng.integers(0, k, len(chunk) * k)), 1)
        q = (weights * sums).sum(1) / (weights * sizes).sum(1)
        found.append(_adjusted(q, high[:, 0], low[:, 0]))
    return np.concatenate(found) if found else np.empty(0)


def group_of(example: Example, field: str | None) -> str:
    """The group of an answer: its field `field` (`topic`, `split`, or any field of the record
    the format does not name), as text; None: one group."""
    if field is None:
        return ALL
    value = getattr(example, field) if field in _OWN_FIELDS else example.extra.get(field)
    return NO_GROUP if value is None or value == "" else str(value)


_OWN_FIELDS = ("id", "topic", "query", "split")


def estimate_all(
    scores: Mapping[str, Sequence[float]],
    groups: Sequence[str],
    fits: Mapping[str, Calibration | None],
    settings: Settings = Settings(),
    clusters: Sequence[str] | None = None,
) -> tuple[list[Rate], dict[str, str]]:
    """`estimate` for each error type of `scores` (error type -> scores); the error types that
    gave no rate, with why."""
    rates, refused = [], {}
    for error_type in ERROR_TYPES:
        if error_type not in scores:
            continue
        try:
            rates += estimate(scores[error_type], groups, fits.get(error_type), error_type, settings, clusters)
        except RateError as error:
            refused[error_type] = str(error)
    return rates, refused
