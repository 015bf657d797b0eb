"""Evaluating detectors against gold labels: Chang et al. 2024, §4.3 and §5 (Tables 1-3).

**Example level** (Table 1). For each error type T (hallucination, coverage) and each slice, the
ROC AUC of each detector's example score for T (`DetectorResult.hallucination` / `.coverage`),
with scikit-learn. The slices follow the paper's test sets:

| slice                    | negatives (error-free¹) of kind | positives: a T error of kind                |
|--------------------------|---------------------------------|---------------------------------------------|
| full organic             | organic                         | organic, full (not ambiguous)               |
| unparaphrased synthetic  | organic                         | synthetic, full                             |
| paraphrased synthetic    | paraphrased                     | synthetic_paraphrased, full                 |
| ambiguous organic        | organic                         | organic, ambiguous (any `ambiguous_type`)   |

¹ error-free: `labels.hallucination is False` and `labels.coverage_error is False` and not
ambiguous (`labels.ambiguous` true or an `ambiguous_type` set make an example ambiguous).

- An example with an error of the other type only (e.g. a coverage error and no hallucination)
  is in none of T's slices: it is neither a T error nor error-free. An example with both errors
  is a positive for both types.
- An example without `labels.kind` counts as organic: responses collected from a chatbot are
  organic, and a user's own labelled file should not come out empty.
- Examples without labels (`hallucination` or `coverage_error` unset) are in no slice; error-free
  examples of kind synthetic / synthetic_paraphrased are in no slice either (the paper's
  synthetic sets hold only errors, their negatives are the organic / paraphrased clean ones).
- A slice with no positives or no negatives has no AUC; it is reported as such, never as 0.5.

**Significance.** Within each cell (error type x slice), the best method (highest AUC) is compared
with each other one on the examples both scored, by DeLong's test for two correlated ROC curves
(DeLong, DeLong & Clarke-Pearson 1988, *Biometrics* 44:837-845), computed with the midrank
algorithm of Sun & Xu 2014 (*IEEE Signal Processing Letters* 21:1389-1393). The paper uses
Hanley & McNeil 1983 instead, which needs the correlation of the two methods' scores looked up
in a table; DeLong's test estimates the same covariance nonparametrically. P-values are
Bonferroni-corrected for the number of comparisons in the cell (methods - 1).

**Confidence intervals**: percentile bootstrap, resampling positives and negatives separately
(stratified, so every resample has both classes), with a fixed seed so reports are reproducible.

**Word level** (§5.3): response words against `hallucinated_spans` (hallucination) and argument
words against `uncovered` (coverage; an entry without spans marks the whole argument), non-stop
words only (`explorer.words`), pooled over the examples of each slice. A word is positive when
it overlaps a gold span. An error example without spans says nothing about which words are
wrong and is skipped at word level. Words of one example are not independent, so word-level
cells get no bootstrap interval or significance test (resampling words would understate the
uncertainty); they report AUC and counts.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats
from sklearn.metrics import roc_auc_score, roc_curve

from explorer.detectors.base import DetectorResult
from explorer.example import Example, Labels, Span, loads
from explorer.words import DEFAULT_SEGMENTER, Segmenter, Word

ERROR_TYPES = ("hallucination", "coverage")
ERROR_TITLES = {"hallucination": "Hallucination", "coverage": "Coverage error"}

Results = Mapping[str, Mapping[str, DetectorResult]]
"""Detector results by example id, then by detector name."""


@dataclass(frozen=True)
class Slice:
    name: str
    title: str
    negative_kind: str
    positive_kind: str
    ambiguous_positives: bool

    def describe(self, error_type: str) -> str:
        error = "hallucination" if error_type == "hallucination" else "coverage error"
        which = "an ambiguous" if self.ambiguous_positives else "a full (not ambiguous)"
        return (
            f"{self.title}: error-free {self.negative_kind} examples vs "
            f"{self.positive_kind} examples with {which} {error}"
        )


SLICES = (
    Slice("full_organic", "Full organic", "organic", "organic", ambiguous_positives=False),
    Slice("unparaphrased_synthetic", "Unparaphrased synthetic", "organic", "synthetic", ambiguous_positives=False),
    Slice(
        "paraphrased_synthetic",
        "Paraphrased synthetic",
        "paraphrased",
        "synthetic_paraphrased",
        ambiguous_positives=False,
    ),
    Slice("ambiguous_organic", "Ambiguous organic", "organic", "organic", ambiguous_positives=True),
)
SLICES_BY_NAME = {s.name: s for s in SLICES}


def kind_of(labels: Labels) -> str:
    return labels.kind or "organic"


def is_ambiguous(labels: Labels) -> bool:
    return bool(labels.ambiguous) or labels.ambiguous_type is not None


def is_error_free(labels: Labels) -> bool:
    return labels.hallucination is False and labels.coverage_error is False and not is_ambiguous(labels)


def has_error(labels: Labels, error_type: str) -> bool:
    flag = labels.hallucination if error_type == "hallucination" else labels.coverage_error
    return flag is True


def slice_label(labels: Labels, error_type: str, slice_name: str) -> bool | None:
    """True: a positive of the slice; False: a negative; None: not in the slice."""
    chosen = SLICES_BY_NAME[slice_name]
    kind = kind_of(labels)
    if is_error_free(labels):
        return False if kind == chosen.negative_kind else None
    if kind == chosen.positive_kind and is_ambiguous(labels) == chosen.ambiguous_positives:
        return True if has_error(labels, error_type) else None
    return None


def slice_members(examples: Sequence[Example], error_type: str, slice_name: str) -> list[tuple[Example, bool]]:
    """The slice's examples with their gold label (True = has the error), in input order."""
    members = []
    for example in examples:
        label = slice_label(example.labels, error_type, slice_name)
        if label is not None:
            members.append((example, label))
    return members


def left_out_reasons(examples: Sequence[Example], error_type: str) -> dict[str, int]:
    """Why examples are in none of `error_type`'s slices, with counts (for the report)."""
    other = "coverage" if error_type == "hallucination" else "hallucination"
    reasons: Counter[str] = Counter()
    for example in examples:
        labels = example.labels
        if any(slice_label(labels, error_type, s.name) is not None for s in SLICES):
            continue
        if labels.hallucination is None or labels.coverage_error is None:
            reasons["unlabelled"] += 1
        elif has_error(labels, other) and not has_error(labels, error_type):
            reasons[f"{ERROR_TITLES[other].lower()} only"] += 1
        elif is_ambiguous(labels) and not has_error(labels, error_type):
            reasons["ambiguous without this error"] += 1
        else:
            reasons[f"error-free or error of kind {kind_of(labels)} (no slice for it)"] += 1
    return dict(reasons)


def example_score(result: DetectorResult, error_type: str) -> float:
    return result.hallucination if error_type == "hallucination" else result.coverage


# --- statistics -----------------------------------------------------------------------------


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """Area under the ROC curve (scikit-learn); ties count one half, as in Mann-Whitney U."""
    return float(roc_auc_score(np.asarray(labels, dtype=bool), np.asarray(scores, dtype=float)))


@dataclass(frozen=True)
class RocCurve:
    """Points of a ROC curve; `thresholds[i]` gives `(fpr[i], tpr[i])` (first one is +inf)."""

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    auc: float


def roc(labels: Sequence[bool], scores: Sequence[float]) -> RocCurve:
    fpr, tpr, thresholds = roc_curve(np.asarray(labels, dtype=bool), np.asarray(scores, dtype=float))
    return RocCurve(fpr, tpr, thresholds, roc_auc(labels, scores))


def _midranks(values: np.ndarray) -> np.ndarray:
    return stats.rankdata(values, method="average", axis=-1)


def delong_covariance(labels: Sequence[bool], scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUCs of k methods on the same examples and their DeLong covariance matrix.

    `scores`: shape (k, n_examples); `labels`: shape (n_examples,). Returns `aucs` (k,) and
    `covariance` (k, k). Structural components (DeLong et al. 1988, eq. 3-5) through midranks
    (Sun & Xu 2014, eq. 8-13): for positives X (m) and negatives Y (n) of method r,
    `V10 = (rank of X_i among X and Y - rank among X) / n`,
    `V01 = 1 - (rank of Y_j among X and Y - rank among Y) / m`,
    `S = cov(V10) / m + cov(V01) / n`.
    """
    labels = np.asarray(labels, dtype=bool)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    positives, negatives = scores[:, labels], scores[:, ~labels]
    m, n = positives.shape[1], negatives.shape[1]
    if m < 2 or n < 2:
        raise ValueError(f"DeLong's covariance needs two positives and two negatives, got {m} and {n}")
    combined = _midranks(np.concatenate([positives, negatives], axis=1))
    within_positives, within_negatives = _midranks(positives), _midranks(negatives)
    aucs = (combined[:, :m].sum(axis=1) - m * (m + 1) / 2) / (m * n)
    v10 = (combined[:, :m] - within_positives) / n
    v01 = 1.0 - (combined[:, m:] - within_negatives) / m
    covariance = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
    return aucs, covariance


@dataclass(frozen=True)
class PairedTest:
    auc_a: float
    auc_b: float
    z: float
    p_value: float


def delong_test(labels: Sequence[bool], scores_a: Sequence[float], scores_b: Sequence[float]) -> PairedTest:
    """Two-sided DeLong test that two methods scored on the same examples have equal AUC.

    `z = (AUC_a - AUC_b) / sqrt(S_aa + S_bb - 2 S_ab)`, p from the standard normal. When the
    variance of the difference is zero (e.g. both methods separate the classes perfectly) the
    difference is exact: p = 1 if the AUCs are equal, else 0.
    """
    aucs, covariance = delong_covariance(labels, np.vstack([scores_a, scores_b]))
    difference = aucs[0] - aucs[1]
    variance = covariance[0, 0] + covariance[1, 1] - 2 * covariance[0, 1]
    if variance <= 1e-15:
        z = 0.0 if abs(difference) < 1e-12 else math.copysign(math.inf, difference)
    else:
        z = difference / math.sqrt(variance)
    p_value = float(2 * stats.norm.sf(abs(z)))
    return PairedTest(float(aucs[0]), float(aucs[1]), float(z), p_value)


def _auc_statistic(positives: np.ndarray, negatives: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mann-Whitney AUC over the last axis, vectorized over leading axes (bootstrap batches)."""
    positives, negatives = np.moveaxis(positives, axis, -1), np.moveaxis(negatives, axis, -1)
    batch = np.broadcast_shapes(positives.shape[:-1], negatives.shape[:-1])
    m, n = positives.shape[-1], negatives.shape[-1]
    both = np.concatenate([np.broadcast_to(positives, batch + (m,)), np.broadcast_to(negatives, batch + (n,))], axis=-1)
    ranks = _midranks(both)
    return (ranks[..., :m].sum(axis=-1) - m * (m + 1) / 2) / (m * n)


def bootstrap_ci(
    labels: Sequence[bool],
    scores: Sequence[float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the AUC, positives and negatives resampled separately.

    None when either class has fewer than two examples (no spread to resample). The AUC of a
    resample is computed from ranks (equal to scikit-learn's `roc_auc_score`, and vectorized,
    which makes 1,000 resamples take milliseconds).
    """
    labels = np.asarray(labels, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    positives, negatives = scores[labels], scores[~labels]
    if len(positives) < 2 or len(negatives) < 2 or n_resamples < 1:
        return None
    result = stats.bootstrap(
        (positives, negatives),
        _auc_statistic,
        vectorized=True,
        n_resamples=n_resamples,
        batch=200,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def bonferroni(p_value: float, comparisons: int) -> float:
    return min(1.0, p_value * max(comparisons, 1))


@dataclass(frozen=True)
class Confusion:
    """Counts at a threshold; an example is predicted an error when its score >= threshold."""

    threshold: float
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    def matrix(self) -> list[list[int]]:
        """Rows: gold error / gold no error; columns: predicted error / predicted no error."""
        return [[self.true_positives, self.false_negatives], [self.false_positives, self.true_negatives]]

    @property
    def true_positive_rate(self) -> float | None:
        positives = self.true_positives + self.false_negatives
        return self.true_positives / positives if positives else None

    @property
    def false_positive_rate(self) -> float | None:
        negatives = self.false_positives + self.true_negatives
        return self.false_positives / negatives if negatives else None

    @property
    def precision(self) -> float | None:
        predicted = self.true_positives + self.false_positives
        return self.true_positives / predicted if predicted else None


def confusion(labels: Sequence[bool], scores: Sequence[float], threshold: float) -> Confusion:
    labels = np.asarray(labels, dtype=bool)
    predicted = np.asarray(scores, dtype=float) >= threshold
    return Confusion(
        threshold=float(threshold),
        true_positives=int(np.sum(predicted & labels)),
        false_positives=int(np.sum(predicted & ~labels)),
        false_negatives=int(np.sum(~predicted & labels)),
        true_negatives=int(np.sum(~predicted & ~labels)),
    )


def youden_threshold(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """The ROC threshold maximizing TPR - FPR (Youden's J), a starting point for the slider."""
    curve = roc(labels, scores)
    best = int(np.argmax(curve.tpr - curve.fpr))
    threshold = curve.thresholds[best]
    return float(min(threshold, 1.0)) if np.isfinite(threshold) else 1.0


# --- word-level labels --------------------------------------------------------------------


def overlaps(span: Span, spans: Sequence[Span]) -> bool:
    """Whether the character span `span` shares a character with any of `spans` (e.g. gold spans)."""
    start, end = span
    return any(start < other_end and other_start < end for other_start, other_end in spans)


def response_word_labels(example: Example, segmenter: Segmenter = DEFAULT_SEGMENTER) -> list[tuple[Word, bool]]:
    """Each non-stop response word, True when it overlaps a gold hallucinated span."""
    spans = example.labels.hallucinated_spans
    return [(word, overlaps((word.start, word.end), spans)) for word in segmenter.content_words(example.response)]


def argument_word_labels(
    example: Example, segmenter: Segmenter = DEFAULT_SEGMENTER
) -> list[tuple[int, int, Word, bool]]:
    """Each non-stop argument word as `(perspective, argument, word, uncovered)`.

    An `uncovered` entry without spans marks every word of its argument.
    """
    gold: dict[tuple[int, int], list[Span] | None] = {}
    for uncovered in example.labels.uncovered:
        key = (uncovered.perspective, uncovered.argument)
        if uncovered.spans is None or gold.get(key, []) is None:
            gold[key] = None
        else:
            gold.setdefault(key, []).extend(uncovered.spans)
    labelled = []
    for p, a, text in example.arguments():
        spans = gold.get((p, a), [])
        for word in segmenter.content_words(text):
            labelled.append((p, a, word, spans is None or overlaps((word.start, word.end), spans)))
    return labelled


def has_word_labels(example: Example, error_type: str) -> bool:
    """Whether the gold labels say which words are wrong (error-free: none of them)."""
    if not has_error(example.labels, error_type):
        return True
    return bool(example.labels.hallucinated_spans if error_type == "hallucination" else example.labels.uncovered)


def word_units(
    example: Example, error_type: str, segmenter: Segmenter = DEFAULT_SEGMENTER
) -> dict[tuple, tuple[bool, tuple]]:
    """Word units of one example for `error_type`: unit key -> (gold label, score lookup key)."""
    if error_type == "hallucination":
        return {
            (example.id, "response", word.start, word.end): (label, (word.start, word.end))
            for word, label in response_word_labels(example, segmenter)
        }
    return {
        (example.id, "arguments", p, a, word.start, word.end): (label, (p, a, word.start, word.end))
        for p, a, word, label in argument_word_labels(example, segmenter)
    }


def word_scores(result: DetectorResult, error_type: str) -> dict[tuple, float]:
    if error_type == "hallucination":
        return {(w.start, w.end): w.score for w in result.response_words}
    return {(w.perspective, w.argument, w.start, w.end): w.score for w in result.argument_words}


# --- the evaluation -----------------------------------------------------------------------


@dataclass(frozen=True)
class AucCell:
    """One method's ROC AUC on one slice for one error type, at example or word level.

    `auc` is None when the slice cannot give one; `note` then says why. `p_value` compares the
    method with the cell's best by DeLong's test, Bonferroni-corrected; `significantly_worse`
    is `p_value < alpha`. `unscored` counts slice units the method gave no score for.
    """

    level: str
    error_type: str
    slice: str
    method: str
    positives: int
    negatives: int
    auc: float | None
    ci: tuple[float, float] | None = None
    note: str | None = None
    unscored: int = 0
    best: bool = False
    p_value: float | None = None
    p_value_uncorrected: float | None = None
    significantly_worse: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "error_type": self.error_type,
            "slice": self.slice,
            "method": self.method,
            "positives": self.positives,
            "negatives": self.negatives,
            "auc": self.auc,
            "ci_low": None if self.ci is None else self.ci[0],
            "ci_high": None if self.ci is None else self.ci[1],
            "note": self.note,
            "unscored": self.unscored,
            "best": self.best,
            "p_value_vs_best": self.p_value,
            "p_value_vs_best_uncorrected": self.p_value_uncorrected,
            "significantly_worse_than_best": self.significantly_worse,
        }


@dataclass(frozen=True)
class Settings:
    n_bootstrap: int = 1000
    confidence: float = 0.95
    alpha: float = 0.05
    seed: int = 0


def _no_auc_note(positives: int, negatives: int) -> str | None:
    if not positives and not negatives:
        return "no examples"
    if not positives:
        return "no positives"
    if not negatives:
        return "no negatives"
    return None


def compare_methods(
    level: str,
    error_type: str,
    slice_name: str,
    labels: Mapping[Hashable, bool],
    scores: Mapping[str, Mapping[Hashable, float]],
    settings: Settings = Settings(),
    *,
    with_inference: bool = True,
) -> list[AucCell]:
    """AUC cells of every method on one slice, the best marked and the others tested against it.

    `with_inference=False` leaves out bootstrap intervals and tests (word level: see above).
    Tests need two positives and two negatives scored by both methods (else `p_value` is None).

    `labels`: unit -> gold label for every unit of the slice; `scores[method]`: unit -> score for
    the units the method scored. Each method's AUC uses its scored units; each test uses the
    units both methods scored.
    """
    total_pos = sum(labels.values())
    total_neg = len(labels) - total_pos
    cells = []
    for method, method_scores in scores.items():
        units = [u for u in labels if u in method_scores and math.isfinite(method_scores[u])]
        gold = [labels[u] for u in units]
        values = [method_scores[u] for u in units]
        positives = sum(gold)
        negatives = len(gold) - positives
        note = _no_auc_note(positives, negatives)
        if note is None:
            auc = roc_auc(gold, values)
            ci = (
                bootstrap_ci(
                    gold, values, n_resamples=settings.n_bootstrap, confidence=settings.confidence, seed=settings.seed
                )
                if with_inference
                else None
            )
        else:
            auc, ci = None, None
            if (total_pos or total_neg) and not units:
                note = "no scores"
        cells.append(
            AucCell(
                level, error_type, slice_name, method, positives, negatives, auc, ci, note, len(labels) - len(units)
            )
        )
    scored = [c for c in cells if c.auc is not None]
    if not scored:
        return cells
    best = max(scored, key=lambda c: c.auc)
    comparisons = len(scored) - 1
    by_method = {}
    for cell in cells:
        if cell is best:
            by_method[cell.method] = replace(cell, best=True)
        elif cell.auc is not None and with_inference:
            common = [
                u
                for u in labels
                if u in scores[best.method]
                and u in scores[cell.method]
                and math.isfinite(scores[best.method][u])
                and math.isfinite(scores[cell.method][u])
            ]
            gold = [labels[u] for u in common]
            if 2 <= sum(gold) <= len(gold) - 2:
                test = delong_test(
                    gold, [scores[best.method][u] for u in common], [scores[cell.method][u] for u in common]
                )
                adjusted = bonferroni(test.p_value, comparisons)
                cell = replace(
                    cell,
                    p_value=adjusted,
                    p_value_uncorrected=test.p_value,
                    significantly_worse=adjusted < settings.alpha,
                )
            by_method[cell.method] = cell
        else:
            by_method[cell.method] = cell
    return [by_method[c.method] for c in cells]


@dataclass(frozen=True)
class Evaluation:
    """Every number of one evaluation run: example-level and word-level AUC cells and counts."""

    methods: tuple[str, ...]
    n_examples: int
    settings: Settings
    example_cells: tuple[AucCell, ...]
    word_cells: tuple[AucCell, ...]
    left_out: Mapping[str, Mapping[str, int]]
    failures: Mapping[str, int] = field(default_factory=dict)

    def cell(self, level: str, error_type: str, slice_name: str, method: str) -> AucCell:
        cells = self.example_cells if level == "example" else self.word_cells
        for cell in cells:
            if (cell.error_type, cell.slice, cell.method) == (error_type, slice_name, method):
                return cell
        raise KeyError((level, error_type, slice_name, method))

    def to_dict(self) -> dict[str, Any]:
        return {
            "methods": list(self.methods),
            "n_examples": self.n_examples,
            "settings": {
                "bootstrap_resamples": self.settings.n_bootstrap,
                "confidence": self.settings.confidence,
                "alpha": self.settings.alpha,
                "seed": self.settings.seed,
                "significance_test": "DeLong 1988 (paired), Bonferroni-corrected per cell, vs the cell's best method",
                "interval": "percentile bootstrap, positives and negatives resampled separately",
            },
            "slices": {error_type: {s.name: s.describe(error_type) for s in SLICES} for error_type in ERROR_TYPES},
            "left_out": {k: dict(v) for k, v in self.left_out.items()},
            "unscored_examples": dict(self.failures),
            "example_level": [c.to_dict() for c in self.example_cells],
            "word_level": [c.to_dict() for c in self.word_cells],
        }


def slice_scores(
    members: Sequence[tuple[Example, bool]], results: Results, methods: Sequence[str], error_type: str
) -> tuple[dict[str, bool], dict[str, dict[str, float]]]:
    """Example-level gold labels and each method's scores on one slice, keyed by example id."""
    labels = {example.id: label for example, label in members}
    scores = {
        method: {
            example.id: example_score(results[example.id][method], error_type)
            for example, _ in members
            if method in results.get(example.id, {})
        }
        for method in methods
    }
    return labels, scores


def slice_word_scores(
    members: Sequence[tuple[Example, bool]],
    results: Results,
    methods: Sequence[str],
    error_type: str,
    segmenter: Segmenter = DEFAULT_SEGMENTER,
) -> tuple[dict[tuple, bool], dict[str, dict[tuple, float]]]:
    """Word-level gold labels and each method's word scores on one slice (see module docstring)."""
    labels: dict[tuple, bool] = {}
    scores: dict[str, dict[tuple, float]] = {method: {} for method in methods}
    for example, _ in members:
        if not has_word_labels(example, error_type):
            continue
        units = word_units(example, error_type, segmenter)
        labels.update((unit, label) for unit, (label, _) in units.items())
        for method in methods:
            result = results.get(example.id, {}).get(method)
            if result is None:
                continue
            by_span = word_scores(result, error_type)
            scores[method].update((unit, by_span[key]) for unit, (_, key) in units.items() if key in by_span)
    return labels, scores


def evaluate(
    examples: Sequence[Example],
    results: Results,
    methods: Sequence[str],
    settings: Settings = Settings(),
    *,
    word_level: bool = True,
) -> Evaluation:
    """Table 1 (and the word-level table) for `methods` on `examples`."""
    example_cells: list[AucCell] = []
    word_cells: list[AucCell] = []
    for error_type in ERROR_TYPES:
        for chosen in SLICES:
            members = slice_members(examples, error_type, chosen.name)
            labels, scores = slice_scores(members, results, methods, error_type)
            example_cells += compare_methods("example", error_type, chosen.name, labels, scores, settings)
            if word_level:
                labels, scores = slice_word_scores(members, results, methods, error_type)
                word_cells += compare_methods(
                    "word", error_type, chosen.name, labels, scores, settings, with_inference=False
                )
    failures = {
        method: sum(1 for example in examples if method not in results.get(example.id, {})) for method in methods
    }
    return Evaluation(
        methods=tuple(methods),
        n_examples=len(examples),
        settings=settings,
        example_cells=tuple(example_cells),
        word_cells=tuple(word_cells),
        left_out={error_type: left_out_reasons(examples, error_type) for error_type in ERROR_TYPES},
        failures={method: count for method, count in failures.items() if count},
    )


def _not_a_number(method: str, result: DetectorResult) -> str | None:
    """The first score of `result` that is not a finite number, named by its field."""
    values = [(f"scores.{method}.hallucination", result.hallucination), (f"scores.{method}.coverage", result.coverage)]
    values += [(f"scores.{method}.per_perspective.{p}", v) for p, v in result.per_perspective.items()]
    values += [(f"words.{method}.response[{i}]", w.score) for i, w in enumerate(result.response_words)]
    values += [(f"words.{method}.arguments[{i}]", w.score) for i, w in enumerate(result.argument_words)]
    for name, value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{name}: must be a finite number, got {json.dumps(value)}"
    return None


def read_scores(source: str | bytes | Path) -> tuple[dict[str, dict[str, DetectorResult]], dict[str, dict[str, str]]]:
    """Read `explorer score` output: results by example id and method, and recorded failures.

    Raises `ValueError` naming the line and field of the first malformed record.
    """
    data = Path(source).read_text(encoding="utf-8") if isinstance(source, Path) else source
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    results: dict[str, dict[str, DetectorResult]] = {}
    failures: dict[str, dict[str, str]] = {}
    for number, line in enumerate(data.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
            example_id = record["id"]
            words = record.get("words", {})
            for method, scores in record["scores"].items():
                if "error" in scores:
                    failures.setdefault(example_id, {})[method] = scores["error"]
                    continue
                result = DetectorResult.from_dict(
                    {
                        "detector": method,
                        "scores": scores,
                        "words": words.get(method, {"response": [], "arguments": []}),
                    }
                )
                # NaN, Infinity or text would break the ROC curves and tables much later.
                problem = _not_a_number(method, result)
                if problem:
                    raise ValueError(f"line {number}: {problem}")
                results.setdefault(example_id, {})[method] = result
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: invalid JSON: {error.msg} (column {error.colno})") from error
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(
                f"line {number}: not a record of `explorer score` output (expected id, scores{{method: "
                f"{{hallucination, coverage, per_perspective}}}}, words): {type(error).__name__} {error}"
            ) from error
    return results, failures
