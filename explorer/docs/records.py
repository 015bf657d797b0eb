"""Every record a detector card reads, found in one place.

- the registry (`explorer.detectors`): title, summary, word meanings, cost;
- each learned detector's training records (`resources/<detector>/<task>/training.json`);
- the calibration (`resources/calibration.json`): the dev ROC AUC the verdict rests on;
- the evaluation record (`resources/records/dev_sets.json`, `bench/dev_sets.py`): ROC AUC with
  intervals per evaluation set, error type and slice;
- the speed record (`resources/records/speed.json`, `bench/speed.py --record`);
- the failure-mode record (`resources/records/failure_modes.json`, `python bench/failure_modes.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from explorer import detectors
from explorer.config import RESOURCES

RECORDS = RESOURCES / "records"
DEV_SETS_RECORD = RECORDS / "dev_sets.json"
SPEED_RECORD = RECORDS / "speed.json"
FAILURE_MODES_RECORD = RECORDS / "failure_modes.json"


@dataclass(frozen=True)
class EvaluationSet:
    """One set `bench/dev_sets.py` evaluates on; `variants` names the recipe variants its records
    mark (top-level `variant`), which `explorer eval` reports as slices of their own."""

    title: str
    file: str
    split: str | None
    about: str
    variants: Mapping[str, str] = field(default_factory=dict)


EVALUATION_SETS = {
    "foreign": EvaluationSet(
        "foreign dev",
        "npov_foreign/dev.jsonl",
        None,
        "answers on Perspectrum dev claims written outside the team in chat-assistant styles, with organic "
        "and synthetic errors. Every shipped choice (steps, features, calibrations) was made on it, so the "
        "figures of a detector chosen there are optimistic",
    ),
    "foreign_v3": EvaluationSet(
        "foreign dev, second recipe",
        "npov_foreign/dev_v3.jsonl",
        None,
        "answers on other Perspectrum dev claims, written outside the team in other shapes (FAQs, tables, "
        "debates) over up to five arguments a side, each variant against the faithful answers. A selection set "
        "like the first",
        {
            "R": "an argument's meaning changed",
            "N": "an invention",
            "C": "an argument lost",
            "F": "both",
            "S1": "synthetic hallucination",
            "S2": "synthetic coverage error",
        },
    ),
    "perspectrum": EvaluationSet(
        "Perspectrum dev",
        "perspectrum.jsonl (explorer build-data, seed 0)",
        "dev",
        "human paraphrases of Perspectrum dev perspectives as answers, with the paper's synthetic errors; "
        "it chose only the cross-encoder's step and the tuned alignment classifier's C",
    ),
    "sample": EvaluationSet(
        "sample test",
        "explorer/resources/samples/synthetic.jsonl",
        "test",
        "the hand-written demo topics the app opens with and their synthetic errors: small, so wide intervals",
    ),
}


@dataclass(frozen=True)
class Records:
    """The records under one resources folder (the package's, or a copy in a test), read as JSON.

    `training[detector][task]` is a `training.json` (task "" for weights without task folders);
    `weights_bytes[detector]` the size of its shipped weight files; the three measured records
    are empty dicts when missing (the cards then say what command writes them).
    """

    root: Path
    calibration: Mapping[str, Any]
    training: Mapping[str, Mapping[str, Mapping[str, Any]]]
    weights_bytes: Mapping[str, int]
    dev_sets: Mapping[str, Any]
    speed: Mapping[str, Any]
    failure_modes: Mapping[str, Any]


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def load(root: Path = RESOURCES) -> Records:
    """Every record under `root` the cards read."""
    training: dict[str, dict[str, dict]] = {}
    sizes: dict[str, int] = {}
    for name in detectors.names():
        weights = detectors.spec(name).weights
        if weights is None:
            continue
        folder = root / weights.folder
        training[name] = {
            ("" if found.parent == folder else found.parent.name): _json(found)
            for found in sorted(folder.glob("**/training.json"))
        }
        sizes[name] = sum(f.stat().st_size for f in folder.glob("**/*") if f.is_file() and f.name != "training.json")
    return Records(
        root=root,
        calibration=_json(root / "calibration.json"),
        training=training,
        weights_bytes=sizes,
        dev_sets=_json(root / DEV_SETS_RECORD.relative_to(RESOURCES)),
        speed=_json(root / SPEED_RECORD.relative_to(RESOURCES)),
        failure_modes=_json(root / FAILURE_MODES_RECORD.relative_to(RESOURCES)),
    )


@lru_cache(maxsize=1)
def shipped() -> Records:
    """The package's own records, read once per process (the app's sidebar reads them on every run)."""
    return load()
