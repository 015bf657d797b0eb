"""Calibrations refitted on the user's own labels: `explorer calibrate` and the dataset page's button.

The method is the shipped calibrations' (`calibration.fit`: Platt scaling per detector and error
type, the same likely / unclear / unlikely bands); what differs is where the labels come from
and what comes with the fit:

- a refusal (`TooFewLabels`) for an error type with fewer than `MIN_PER_CLASS` labelled answers
  with that error or without it: two parameters fitted on a handful of answers would move the
  threshold from one answer to the next. The other error type is still refitted, and keeps the
  shipped calibration where it cannot be;
- bootstrap intervals of the threshold, the two band edges and the ROC AUC: the labelled answers
  resampled with replacement question by question (`calibration.resampled`), refitted each time,
  the percentiles of what comes out (a resample whose fit does not rank errors higher has no cut
  points and is counted apart, `informative`);
- the file: `calibration.json`'s format (so `calibration.read` reads it) with the number of
  labelled answers and, per error type, its `intervals`.

In force (`merged`), a refit replaces the shipped calibration of its detectors and error types
only, and names itself ("your 212 labels") wherever the shipped data would be named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation import calibration
from explorer.evaluation.calibration import Calibration, Calibrations, cluster_of, dev_label
from explorer.files import MAX_INPUT_BYTES, read_regular, write_text

MIN_PER_CLASS = 20
CUTS = ("threshold", "unlikely_below", "likely_from")
FORMAT = "rag-error-explorer calibration on own labels"


class TooFewLabels(ValueError):
    """No error type of any detector has `MIN_PER_CLASS` labelled answers of each class."""


@dataclass(frozen=True)
class Spread:
    """Bootstrap intervals of one fit: per cut point and `auc`, (low, high); `informative` the
    share of resamples that ranked errors higher (the cut points come from those)."""

    intervals: Mapping[str, tuple[float, float]]
    informative: float

    def to_dict(self) -> dict[str, Any]:
        return {"intervals": {k: list(v) for k, v in self.intervals.items()}, "informative_resamples": self.informative}


@dataclass(frozen=True)
class Refit:
    """The calibrations fitted on the user's labels (`calibrations.data` names them), how many
    labelled answers they came from, each fit's `Spread`, and the error types refused (why)."""

    calibrations: Calibrations
    labels: int
    spreads: Mapping[str, Mapping[str, Spread]] = field(default_factory=dict)
    refused: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.calibrations.data

    def to_dict(self) -> dict[str, Any]:
        record = self.calibrations.to_dict()
        for detector, by_type in self.spreads.items():
            for error_type, spread in by_type.items():
                record["detectors"][detector][error_type].update(spread.to_dict())
        for detector, by_type in self.refused.items():
            record["detectors"].setdefault(detector, {})["refused"] = dict(by_type)
        return {"format": FORMAT, "labels": self.labels, **record}


def named(labels: int, source: str = "") -> str:
    """What a refit is called on screen: "your 212 labels (labels.jsonl)"."""
    return f"your {labels} labels" + (f" ({source})" if source else "")


def spread(fitted: Calibration, n_bootstrap: int, seed: int = 0, confidence: float = 0.95) -> Spread:
    """Percentile intervals of `fitted`'s cut points and ROC AUC over `n_bootstrap` resamples."""
    tail = 100 * (1 - confidence) / 2
    refits = calibration.resampled(fitted, n_bootstrap, seed)
    kept = [r for r in refits if r.informative]
    intervals = {}
    if kept:
        for cut in CUTS:
            values = [getattr(r, cut) for r in kept]
            intervals[cut] = (float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail)))
    if refits:
        aucs = [r.auc for r in refits]
        intervals["auc"] = (float(np.percentile(aucs, tail)), float(np.percentile(aucs, 100 - tail)))
    return Spread(intervals=intervals, informative=len(kept) / len(refits) if refits else 0.0)


def fit_labels(
    examples: Sequence[Example],
    results: Mapping[str, Mapping[str, DetectorResult]],
    *,
    source: str = "",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> Refit:
    """Each detector of `results` (detector -> example id -> result) refitted per error type on
    the labelled answers of `examples` it scored (ambiguous and unlabelled ones left out, as for
    the shipped fits). `TooFewLabels` when nothing could be fitted."""
    fitted: dict[str, tuple[Mapping[str, Any], dict[str, Calibration]]] = {}
    spreads: dict[str, dict[str, Spread]] = {}
    refused: dict[str, dict[str, str]] = {}
    used: set[str] = set()
    clusters: dict[str, int] = {}
    for detector, by_id in results.items():
        if not by_id:
            continue
        for error_type in ERROR_TYPES:
            pairs = [
                (e.id, label, by_id[e.id].score(error_type), clusters.setdefault(cluster_of(e), len(clusters)))
                for e in examples
                if e.id in by_id and (label := dev_label(e, error_type)) is not None
            ]
            errors = sum(label for _, label, _, _ in pairs)
            if min(errors, len(pairs) - errors) < MIN_PER_CLASS:
                refused.setdefault(detector, {})[error_type] = (
                    f"{errors} labelled answer(s) with a {error_type} error and {len(pairs) - errors} without; "
                    f"at least {MIN_PER_CLASS} of each are needed"
                )
                continue
            fit = calibration.fit([p[1] for p in pairs], [p[2] for p in pairs], [p[3] for p in pairs])
            info = next(iter(by_id.values())).info
            fitted.setdefault(detector, (info, {}))[1][error_type] = fit
            spreads.setdefault(detector, {})[error_type] = spread(fit, n_bootstrap, seed)
            used.update(p[0] for p in pairs)
    if not fitted:
        reasons = "; ".join(f"{d} {t}: {why}" for d, by_type in refused.items() for t, why in by_type.items())
        raise TooFewLabels(f"nothing to calibrate: {reasons or 'no detector scored a labelled answer'}")
    name = named(len(used), source)
    calibrations = Calibrations(data=name, detectors=fitted, fitted_on={detector: name for detector in fitted})
    return Refit(calibrations=calibrations, labels=len(used), spreads=spreads, refused=refused)


def merged(base: Calibrations, own: Calibrations) -> Calibrations:
    """`base` with `own`'s fits in place of its own, detector by detector and error type by type;
    a detector with some error types refitted names both sources."""
    detectors: dict[str, tuple[Mapping[str, Any], Mapping[str, Calibration]]] = dict(base.detectors)
    fitted_on = {name: base.data_of(name) for name in base.detectors}
    for name, (info, by_type) in own.detectors.items():
        before = base.detectors.get(name)
        kept = {t: c for t, c in before[1].items() if t not in by_type} if before and before[0] == info else {}
        detectors[name] = (info, {**kept, **by_type})
        fitted_on[name] = own.data_of(name)
        if kept:
            fitted_on[name] = "; ".join(
                [f"{own.data_of(name)} ({', '.join(by_type)})", f"{base.data_of(name)} ({', '.join(kept)})"]
            )
    return Calibrations(data=base.data, detectors=detectors, fitted_on=fitted_on)


def write(refit: Refit, path: Path) -> None:
    write_text(Path(path), calibration.dumps(refit.to_dict()))


def _spreads(entry: Mapping[str, Any]) -> dict[str, Spread]:
    return {
        t: Spread({k: tuple(v) for k, v in entry[t]["intervals"].items()}, entry[t].get("informative_resamples", 1.0))
        for t in ERROR_TYPES
        if t in entry and "intervals" in entry[t]
    }


class CalibrationFileError(ValueError):
    """A calibration file that is not one `write` (or `bench/calibrate.py`) wrote; says what is wrong."""


def read(path: Path) -> Refit:
    """A calibration file: one `explorer calibrate` wrote, or one in `calibration.json`'s format.
    `OSError` when it cannot be read, `CalibrationFileError` when it is not such a file."""
    text = read_regular(Path(path), MAX_INPUT_BYTES).decode("utf-8", errors="replace")
    return parse(text, Path(path).name)


def parse(text: str, source: str) -> Refit:
    """A calibration file's text (`source` names it in errors and on screen)."""
    try:
        record = json.loads(text)
        detectors = {}
        for name, entry in record["detectors"].items():
            by_type = {t: calibration.from_entry(entry[t]) for t in ERROR_TYPES if t in entry}
            if by_type:
                detectors[name] = (entry["info"], by_type)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise CalibrationFileError(f"{source} is not a calibration file ({type(error).__name__}: {error})") from error
    if not detectors:
        raise CalibrationFileError(f"{source} calibrates no detector")
    labels = record.get("labels")
    data = str(record.get("data") or (named(labels, source) if isinstance(labels, int) else source))
    spreads = {
        name: {
            t: Spread(
                {k: tuple(v) for k, v in entry[t]["intervals"].items()}, entry[t].get("informative_resamples", 1.0)
            )
            for t in ERROR_TYPES
            if t in entry and "intervals" in entry[t]
        }
        for name, entry in record["detectors"].items()
    }
    calibrations = Calibrations(data=data, detectors=detectors, fitted_on={name: data for name in detectors})
    return Refit(calibrations=calibrations, labels=labels if isinstance(labels, int) else 0, spreads=spreads)
