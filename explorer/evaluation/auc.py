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

**Significance.** Within each cell (error type x slice), the best detector (highest AUC) is compared
with each other one on the examples both scored, by DeLong's test for two correlated ROC curves
(DeLong, DeLong & Clarke-Pearson 1988, *Biometrics* 44:837-845), computed with the midrank
algorithm of Sun & Xu 2014 (*IEEE Signal Processing Letters* 21:1389-1393). The paper uses
Hanley & McNeil 1983 instead, which needs the correlation of the two detectors' scores looked up
in a table; DeLong's test estimates the same covariance nonparametrically. P-values are
Bonferroni-corrected for the number of comparisons in the cell (detectors - 1).

**Confidence intervals**: percentile bootstrap, resampling positives and negatives separately
(stratified, so every resample has both classes), with a fixed seed so reports are reproducible.

**Word level** (§5.3): response words against `hallucinated_spans` (hallucination) and argument
words against `uncovered` (coverage; an entry without spans marks the whole argument), non-stop
words only (`explorer.text.words`), pooled over the examples of each slice. A word is positive when
it overlaps a gold span. An error example without spans says nothing about which words are
wrong and is skipped at word level. Words of one example are not independent, so word-level
cells get no bootstrap interval or significance test (resampling words would understate the
uncertainty); they report AUC and counts.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation.slices import SLICES, left_out_reasons, slice_members, variant_slices
from explorer.evaluation.spans import SpanCell, span_cells
from explorer.evaluation.statistics import bonferroni, bootstrap_ci, delong_test
from explorer.evaluation.word_level import has_word_labels, word_scores, word_units
from explorer.text.words import DEFAULT_SEGMENTER, Segmenter
from explorer.training.data import roc_auc

Results = Mapping[str, Mapping[str, DetectorResult]]
"""Detector results by example id, then by detector name."""


# --- statistics -----------------------------------------------------------------------------


# --- word-level labels --------------------------------------------------------------------


# --- the evaluation -----------------------------------------------------------------------


@dataclass(frozen=True)
class AucCell:
    """One detector's ROC AUC on one slice for one error type, at example or word level.

    `auc` is None when the slice cannot give one; `note` then says why. `p_value` compares the
    detector with the cell's best by DeLong's test, Bonferroni-corrected; `significantly_worse`
    is `p_value < alpha`. `unscored` counts slice units the detector gave no score for.
    """

    level: str
    error_type: str
    slice: str
    detector: str
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
            "method": self.detector,  # REPORT.json keeps its field names: saved reports stay readable
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


def compare_detectors(
    level: str,
    error_type: str,
    slice_name: str,
    labels: Mapping[Hashable, bool],
    scores: Mapping[str, Mapping[Hashable, float]],
    settings: Settings = Settings(),
    *,
    with_inference: bool = True,
) -> list[AucCell]:
    """AUC cells of every detector on one slice, the best marked and the others tested against it.

    `with_inference=False` leaves out bootstrap intervals and tests (word level: see above).
    Tests need two positives and two negatives scored by both detectors (else `p_value` is None).

    `labels`: unit -> gold label for every unit of the slice; `scores[detector_name]`: unit -> score for
    the units the detector scored. Each detector's AUC uses its scored units; each test uses the
    units both detectors scored.
    """
    total_pos = sum(labels.values())
    total_neg = len(labels) - total_pos
    cells = []
    for detector_name, detector_scores in scores.items():
        units = [u for u in labels if u in detector_scores and math.isfinite(detector_scores[u])]
        gold = [labels[u] for u in units]
        values = [detector_scores[u] for u in units]
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
                level,
                error_type,
                slice_name,
                detector_name,
                positives,
                negatives,
                auc,
                ci,
                note,
                len(labels) - len(units),
            )
        )
    scored = [c for c in cells if c.auc is not None]
    if not scored:
        return cells
    best = max(scored, key=lambda c: c.auc)
    comparisons = len(scored) - 1
    by_detector = {}
    for cell in cells:
        if cell is best:
            by_detector[cell.detector] = replace(cell, best=True)
        elif cell.auc is not None and with_inference:
            common = [
                u
                for u in labels
                if u in scores[best.detector]
                and u in scores[cell.detector]
                and math.isfinite(scores[best.detector][u])
                and math.isfinite(scores[cell.detector][u])
            ]
            gold = [labels[u] for u in common]
            if 2 <= sum(gold) <= len(gold) - 2:
                test = delong_test(
                    gold, [scores[best.detector][u] for u in common], [scores[cell.detector][u] for u in common]
                )
                adjusted = bonferroni(test.p_value, comparisons)
                cell = replace(
                    cell,
                    p_value=adjusted,
                    p_value_uncorrected=test.p_value,
                    significantly_worse=adjusted < settings.alpha,
                )
            by_detector[cell.detector] = cell
        else:
            by_detector[cell.detector] = cell
    return [by_detector[c.detector] for c in cells]


@dataclass(frozen=True)
class Evaluation:
    """Every number of one evaluation run: example-level and word-level AUC cells and counts."""

    detectors: tuple[str, ...]
    n_examples: int
    settings: Settings
    example_cells: tuple[AucCell, ...]
    word_cells: tuple[AucCell, ...]
    left_out: Mapping[str, Mapping[str, int]]
    failures: Mapping[str, int] = field(default_factory=dict)
    span_cells: tuple[SpanCell, ...] = ()
    variant_cells: tuple[AucCell, ...] = ()  # slice "variant:<name>" (`slices.variant_slices`)

    def cell(self, level: str, error_type: str, slice_name: str, detector_name: str) -> AucCell:
        cells = self.example_cells if level == "example" else self.word_cells
        for cell in cells:
            if (cell.error_type, cell.slice, cell.detector) == (error_type, slice_name, detector_name):
                return cell
        raise KeyError((level, error_type, slice_name, detector_name))

    def to_dict(self) -> dict[str, Any]:
        return {
            "methods": list(self.detectors),  # REPORT.json's field name, kept for saved reports
            "n_examples": self.n_examples,
            "settings": {
                "bootstrap_resamples": self.settings.n_bootstrap,
                "confidence": self.settings.confidence,
                "alpha": self.settings.alpha,
                "seed": self.settings.seed,
                "significance_test": "DeLong 1988 (paired), Bonferroni-corrected per cell, vs the cell's best detector",
                "interval": "percentile bootstrap, positives and negatives resampled separately",
            },
            "slices": {error_type: {s.name: s.describe(error_type) for s in SLICES} for error_type in ERROR_TYPES},
            "left_out": {k: dict(v) for k, v in self.left_out.items()},
            "unscored_examples": dict(self.failures),
            "example_level": [c.to_dict() for c in self.example_cells],
            "word_level": [c.to_dict() for c in self.word_cells],
            "span_level": [c.to_dict() for c in self.span_cells],
            "variant_level": [c.to_dict() for c in self.variant_cells],
        }


def slice_scores(
    members: Sequence[tuple[Example, bool]], results: Results, detector_names: Sequence[str], error_type: str
) -> tuple[dict[str, bool], dict[str, dict[str, float]]]:
    """Example-level gold labels and each detector's scores on one slice, keyed by example id."""
    labels = {example.id: label for example, label in members}
    scores = {
        detector_name: {
            example.id: results[example.id][detector_name].score(error_type)
            for example, _ in members
            if detector_name in results.get(example.id, {})
        }
        for detector_name in detector_names
    }
    return labels, scores


def slice_word_scores(
    members: Sequence[tuple[Example, bool]],
    results: Results,
    detector_names: Sequence[str],
    error_type: str,
    segmenter: Segmenter = DEFAULT_SEGMENTER,
) -> tuple[dict[tuple, bool], dict[str, dict[tuple, float]]]:
    """Word-level gold labels and each detector's word scores on one slice (see module docstring)."""
    labels: dict[tuple, bool] = {}
    scores: dict[str, dict[tuple, float]] = {detector_name: {} for detector_name in detector_names}
    for example, _ in members:
        if not has_word_labels(example, error_type):
            continue
        units = word_units(example, error_type, segmenter)
        labels.update((unit, label) for unit, (label, _) in units.items())
        for detector_name in detector_names:
            result = results.get(example.id, {}).get(detector_name)
            if result is None:
                continue
            by_span = word_scores(result, error_type)
            scores[detector_name].update((unit, by_span[key]) for unit, (_, key) in units.items() if key in by_span)
    return labels, scores


def evaluate(
    examples: Sequence[Example],
    results: Results,
    detector_names: Sequence[str],
    settings: Settings = Settings(),
    *,
    word_level: bool = True,
) -> Evaluation:
    """Table 1 (and the word-level table) for `detector_names` on `examples`."""
    example_cells: list[AucCell] = []
    word_cells: list[AucCell] = []
    for error_type in ERROR_TYPES:
        for chosen in SLICES:
            members = slice_members(examples, error_type, chosen.name)
            labels, scores = slice_scores(members, results, detector_names, error_type)
            example_cells += compare_detectors("example", error_type, chosen.name, labels, scores, settings)
            if word_level:
                labels, scores = slice_word_scores(members, results, detector_names, error_type)
                word_cells += compare_detectors(
                    "word", error_type, chosen.name, labels, scores, settings, with_inference=False
                )
    variant_cells: list[AucCell] = []
    for error_type in ERROR_TYPES:
        for variant, members in variant_slices(examples, error_type):
            labels, scores = slice_scores(members, results, detector_names, error_type)
            variant_cells += compare_detectors("example", error_type, f"variant:{variant}", labels, scores, settings)
    failures = {
        detector_name: sum(1 for example in examples if detector_name not in results.get(example.id, {}))
        for detector_name in detector_names
    }
    return Evaluation(
        detectors=tuple(detector_names),
        n_examples=len(examples),
        settings=settings,
        example_cells=tuple(example_cells),
        word_cells=tuple(word_cells),
        left_out={error_type: left_out_reasons(examples, error_type) for error_type in ERROR_TYPES},
        failures={detector_name: count for detector_name, count in failures.items() if count},
        span_cells=tuple(span_cells(examples, results, detector_names)) if word_level else (),
        variant_cells=tuple(variant_cells),
    )
