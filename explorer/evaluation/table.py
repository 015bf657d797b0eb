"""The dataset table: one row per example with its gold labels and every detector's scores;
the lab's table of how each score moved with an edit (`score_changes`).

`scores_frame` is the one table the dataset page shows, the exports write and other metrics
(e.g. faithfulness scores) join onto: it is indexed by example id, so `frame.join(other)` adds
columns for the same examples. Filters, threshold outcomes and per-topic / per-perspective
summaries are computed here, free of Streamlit, so the page only lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation import auc, slices, statistics
from explorer.evaluation.auc import Results
from explorer.evaluation.calibration import Calibrations, active
from explorer.training.data import roc_auc

GOLD_CATEGORIES = ("error-free", "hallucination", "coverage error", "both errors", "unlabelled")
NOT_AMBIGUOUS = "not ambiguous"
NO_TOPIC = "(no topic)"
OUTCOMES = ("false negative", "false positive", "true positive", "true negative")
TRUST_TRAP = "trust trap"  # the column `explorer.evaluation.trust.trust_frame` flags trust traps in
LABEL_COLUMNS = ("topic", "split", "kind", "gold", "ambiguous_type", "hallucination", "coverage_error")


def score_column(detector_name: str, error_type: str) -> str:
    """Name of a detector's score column, e.g. `rouge.hallucination`."""
    return f"{detector_name}.{error_type}"


def gold_category(example: Example) -> str:
    labels = example.labels
    if labels.hallucination is None and labels.coverage_error is None:
        return "unlabelled"
    if labels.hallucination and labels.coverage_error:
        return "both errors"
    if labels.hallucination:
        return "hallucination"
    if labels.coverage_error:
        return "coverage error"
    return "error-free"


def scores_frame(examples: Sequence[Example], results: Results, detector_names: Sequence[str]) -> pd.DataFrame:
    """One row per example (index `id`, input order): labels, then `<detector>.<error type>` scores.

    A score is NaN where the detector has no result for the example (not computed yet, or the
    detector could not score it).
    """
    rows = []
    for example in examples:
        labels = example.labels
        row = {
            "id": example.id,
            "topic": example.topic,
            "split": example.split,
            "kind": labels.kind,
            "gold": gold_category(example),
            "ambiguous_type": labels.ambiguous_type,
            "hallucination": labels.hallucination,
            "coverage_error": labels.coverage_error,
        }
        example_results = results.get(example.id, {})
        for detector_name in detector_names:
            result = example_results.get(detector_name)
            for error_type in ERROR_TYPES:
                row[score_column(detector_name, error_type)] = np.nan if result is None else result.score(error_type)
        rows.append(row)
    columns = ["id", *LABEL_COLUMNS] + [score_column(m, t) for m in detector_names for t in ERROR_TYPES]
    frame = pd.DataFrame(rows, columns=columns).set_index("id")
    for column in ("topic", "split", "kind", "ambiguous_type"):
        frame[column] = frame[column].astype("string")
    for column in ("hallucination", "coverage_error"):
        frame[column] = frame[column].astype("boolean")
    return frame


@dataclass(frozen=True)
class Filters:
    """Which rows to keep; an empty choice keeps everything."""

    topics: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    golds: tuple[str, ...] = ()
    ambiguous_types: tuple[str, ...] = ()
    score_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    trust_traps_only: bool = False


def _in(column: pd.Series, chosen: tuple[str, ...], missing: str) -> pd.Series:
    return column.fillna(missing).isin(chosen)


def apply_filters(frame: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """Rows matching every filter. A score range narrower than [0, 1] drops unscored rows."""
    keep = pd.Series(True, index=frame.index)
    if filters.topics:
        keep &= _in(frame["topic"], filters.topics, NO_TOPIC)
    if filters.splits:
        keep &= _in(frame["split"], filters.splits, "")
    if filters.kinds:
        keep &= _in(frame["kind"], filters.kinds, "organic")
    if filters.golds:
        keep &= frame["gold"].isin(filters.golds)
    if filters.ambiguous_types:
        keep &= _in(frame["ambiguous_type"], filters.ambiguous_types, NOT_AMBIGUOUS)
    if filters.trust_traps_only:
        keep &= frame[TRUST_TRAP].fillna(False).astype(bool)
    for column, (low, high) in filters.score_ranges.items():
        if (low, high) != (0.0, 1.0):
            keep &= frame[column].between(low, high)
    return frame[keep.astype(bool)]


def choices(frame: pd.DataFrame, column: str) -> list[str]:
    """The distinct values of a label column, as the filters name them."""
    missing = {"topic": NO_TOPIC, "kind": "organic", "ambiguous_type": NOT_AMBIGUOUS, "split": ""}[column]
    return sorted({missing if pd.isna(v) else str(v) for v in frame[column]} - {""})


def outcomes(
    examples: Sequence[Example],
    results: Results,
    detector_name: str,
    error_type: str,
    slice_name: str,
    threshold: float,
) -> pd.Series:
    """Each slice member's outcome at `threshold` (score >= threshold = predicted error).

    Indexed by example id; examples outside the slice or without a score are absent.
    """
    found = {}
    for example, label in slices.slice_members(examples, error_type, slice_name):
        result = results.get(example.id, {}).get(detector_name)
        if result is None:
            continue
        predicted = result.score(error_type) >= threshold
        found[example.id] = {
            (True, True): "true positive",
            (True, False): "false negative",
            (False, True): "false positive",
            (False, False): "true negative",
        }[(label, predicted)]
    return pd.Series(found, dtype="string", name="outcome")


def best_detector(
    examples: Sequence[Example], results: Results, detector_names: Sequence[str], error_type: str, slice_name: str
) -> str | None:
    """The detector with the highest ROC AUC on the slice (the table's ★), None when none has one.
    Ties keep the earlier detector."""
    members = slices.slice_members(examples, error_type, slice_name)
    labels, scores = auc.slice_scores(members, results, detector_names, error_type)
    found = {}
    for detector_name in detector_names:
        gold = [labels[i] for i in scores[detector_name]]
        if len(set(gold)) == 2:
            found[detector_name] = roc_auc(gold, list(scores[detector_name].values()))
    return max(found, key=lambda m: found[m]) if found else None


@dataclass(frozen=True)
class Thresholds:
    """Where a detector's threshold slider starts on a slice, and the slice's own optimum.

    `calibrated`: the threshold of the detector's verdict (P(error) = 0.5 on its calibration data,
    `resources/calibration.json`), clipped to the slider's [0, 1]; None when no calibration fits
    the detector's results. `optimum`: Youden's J on this slice; None without both classes.
    """

    calibrated: float | None
    optimum: float | None
    calibrated_on: str = ""

    @property
    def start(self) -> float | None:
        """The verdict's threshold where there is one, so the failures listed are what the verdict flags."""
        return self.calibrated if self.calibrated is not None else self.optimum


def thresholds(
    examples: Sequence[Example],
    results: Results,
    detector_name: str,
    error_type: str,
    slice_name: str,
    calibrations: Calibrations | None = None,
) -> Thresholds:
    """The calibrated threshold and the slice's optimum of `detector_name` (both to two decimals, the slider's step)."""
    calibrations = calibrations or active()
    members = slices.slice_members(examples, error_type, slice_name)
    labels, scores = auc.slice_scores(members, results, [detector_name], error_type)
    gold = [labels[i] for i in scores[detector_name]]
    optimum = None
    if len(set(gold)) == 2:
        optimum = int(statistics.youden_threshold(gold, list(scores[detector_name].values())) * 100) / 100
    calibrated = None
    # Every result of a detector on one page comes from the same detector settings: one answers for all.
    result = next((r[detector_name] for r in results.values() if detector_name in r), None)
    calibration = calibrations.get(result, error_type) if result is not None else None
    if calibration is not None and calibration.informative:
        calibrated = round(min(max(calibration.threshold, 0.0), 1.0), 2)
    on = calibrations.data_of(detector_name) if calibrated is not None else ""
    return Thresholds(calibrated=calibrated, optimum=optimum, calibrated_on=on)


def topic_summary(examples: Sequence[Example], results: Results, detector_names: Sequence[str]) -> pd.DataFrame:
    """Per topic: gold error counts and rates, and each detector's mean scores; most errors first."""
    frame = scores_frame(examples, results, detector_names)
    frame["topic"] = frame["topic"].fillna(NO_TOPIC)
    labelled = frame["hallucination"].notna() & frame["coverage_error"].notna()
    grouped = frame.assign(
        labelled=labelled,
        hallucinated=frame["hallucination"].fillna(False).astype(bool),
        uncovered=frame["coverage_error"].fillna(False).astype(bool),
    ).groupby("topic", sort=True)
    summary = pd.DataFrame(
        {
            "examples": grouped.size(),
            "labelled": grouped["labelled"].sum(),
            "hallucinations": grouped["hallucinated"].sum(),
            "coverage errors": grouped["uncovered"].sum(),
        }
    )
    summary["hallucination rate"] = summary["hallucinations"] / summary["labelled"].where(summary["labelled"] > 0)
    summary["coverage error rate"] = summary["coverage errors"] / summary["labelled"].where(summary["labelled"] > 0)
    for detector_name in detector_names:
        for error_type in ERROR_TYPES:
            column = score_column(detector_name, error_type)
            summary[f"mean {column}"] = grouped[column].mean()
    summary.index.name = "topic"
    return summary.sort_values(["hallucination rate", "coverage error rate"], ascending=False, na_position="last")


def perspective_summary(examples: Sequence[Example], results: Results, detector_names: Sequence[str]) -> pd.DataFrame:
    """Per perspective name (e.g. pro / con): how often its arguments are uncovered.

    Gold: examples with at least one uncovered argument of the perspective, and uncovered
    arguments out of all of its arguments (in coverage-labelled examples). Each detector: its mean
    per-perspective coverage error score. Hallucinations belong to no perspective, so they are
    summarised per topic only.
    """
    rows = []
    for example in examples:
        labelled = example.labels.coverage_error is not None
        uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
        for p, perspective in enumerate(example.perspectives):
            dropped = sum(1 for a in range(len(perspective.arguments)) if (p, a) in uncovered)
            row = {
                "perspective": perspective.name,
                "labelled": labelled,
                "arguments": len(perspective.arguments) if labelled else 0,
                "uncovered arguments": dropped if labelled else 0,
                "uncovered in": labelled and dropped > 0,
            }
            for detector_name in detector_names:
                result = results.get(example.id, {}).get(detector_name)
                row[f"mean {detector_name}.coverage"] = (
                    np.nan if result is None else result.per_perspective.get(perspective.name, np.nan)
                )
            rows.append(row)
    if not rows:
        return pd.DataFrame()
    grouped = pd.DataFrame(rows).groupby("perspective", sort=True)
    summary = pd.DataFrame(
        {
            "examples": grouped.size(),
            "labelled": grouped["labelled"].sum(),
            "uncovered in": grouped["uncovered in"].sum(),
            "arguments": grouped["arguments"].sum(),
            "uncovered arguments": grouped["uncovered arguments"].sum(),
        }
    )
    summary["uncovered rate"] = summary["uncovered in"] / summary["labelled"].where(summary["labelled"] > 0)
    summary["uncovered argument rate"] = summary["uncovered arguments"] / summary["arguments"].where(
        summary["arguments"] > 0
    )
    for detector_name in detector_names:
        summary[f"mean {detector_name}.coverage"] = grouped[f"mean {detector_name}.coverage"].mean()
    return summary.sort_values("uncovered rate", ascending=False, na_position="last")


def score_names(result: DetectorResult) -> dict[str, float]:
    """A result's example-level scores by display name."""
    scores = {"hallucination": result.hallucination, "coverage": result.coverage}
    scores.update({f"coverage · {name}": value for name, value in result.per_perspective.items()})
    return scores


def score_changes(
    before: Mapping[str, DetectorResult], after: Mapping[str, DetectorResult], detector_names: Sequence[str]
) -> pd.DataFrame:
    """One row per detector and score: before, after and the change (after - before).

    A score only one side has (a perspective added or removed, a detector still computing on
    one side) shows with an empty other side and no change.
    """
    rows = []
    for detector_name in detector_names:
        old = score_names(before[detector_name]) if detector_name in before else {}
        new = score_names(after[detector_name]) if detector_name in after else {}
        for score in dict.fromkeys([*old, *new]):
            was, now = old.get(score), new.get(score)
            change = now - was if was is not None and now is not None else None
            rows.append({"detector": detector_name, "score": score, "before": was, "after": now, "change": change})
    return pd.DataFrame(rows, columns=["detector", "score", "before", "after", "change"])
