"""Known failure modes, measured: probe answers scored by the detectors, their verdicts recorded
(`bench/failure_modes.py` is the command).

`explorer/resources/probes.jsonl` holds one topic's faithful answer and variants of it, each with
one thing changed (an argument reversed or negated, an invented detail or argument, a stronger
claim, an argument in the other side's voice, a dropped argument) or with nothing wrong said
another way (other order, other words, another language); its labels say which errors it has.
Each detector scores every probe; its calibrated verdict per error type (`explorer.evaluation.
verdict`) goes into `resources/records/failure_modes.json`, from which the limits in the README,
the docs and the detector cards are written (`python -m explorer.docs`): when a detector
learns to catch a mode, rerunning both commands says so. Entries of detectors not named in a
run stay as they were.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer import detectors
from explorer.config import CHECKOUT, RESOURCES
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES
from explorer.docs.records import FAILURE_MODES_RECORD
from explorer.evaluation.calibration import LIKELY, UNLIKELY
from explorer.evaluation.verdict import verdicts
from explorer.files import write_text

PROBES = RESOURCES / "probes.jsonl"
CAUGHT, MISSED, PARTLY, PASSED, FALSE_ALARM, NO_VERDICT = (
    "caught",
    "missed",
    "unclear",
    "passed",
    "false alarm",
    "no verdict",
)


@dataclass(frozen=True)
class Probe:
    example: Example
    mode: str
    what: str

    @property
    def expected(self) -> dict[str, bool]:
        """Per error type, whether the probe has that error (ambiguous ones count: they are what the
        mode is about)."""
        labels = self.example.labels
        return {"hallucination": bool(labels.hallucination), "coverage": bool(labels.coverage_error)}


def load_probes(path: Path = PROBES) -> list[Probe]:
    loaded = parse_jsonl(path)
    if not loaded.ok:
        raise ValueError(f"{path}: {'; '.join(str(e) for e in loaded.errors)}")
    return [Probe(e, e.extra["probe"]["mode"], e.extra["probe"]["what"]) for e in loaded.examples]


def outcome(expected: Mapping[str, bool], found: Mapping[str, Mapping]) -> str:
    """What one detector's verdicts on one probe come to: an error probe is `caught` when an error
    type it has is judged likely, `missed` when every one it has is judged unlikely, `unclear`
    otherwise; a faithful probe `false alarm` when any error is judged likely, `unclear` when one
    is unclear, else `passed`. `no verdict` when the detector gives none for the error types
    concerned (no informative calibration: its dev ROC AUC is near chance)."""
    judged = {t: found[t]["verdict"] for t in ERROR_TYPES if found[t]["p"] is not None}
    if not judged:
        return NO_VERDICT
    if any(expected.values()):
        wanted = [judged[t] for t in ERROR_TYPES if expected[t] and t in judged]
        if not wanted:
            return NO_VERDICT
        if LIKELY in wanted:
            return CAUGHT
        return MISSED if all(v == UNLIKELY for v in wanted) else PARTLY
    if LIKELY in judged.values():
        return FALSE_ALARM
    return PASSED if all(v == UNLIKELY for v in judged.values()) else PARTLY


def judge(probe: Probe, detector: detectors.Detector) -> dict:
    """One detector's scores, calibrated P(error) and verdicts on one probe, with the piece quoted."""
    found = {}
    for error_type, verdict in verdicts(probe.example, detector.score(probe.example)).items():
        found[error_type] = {
            "score": round(verdict.score, 4),
            "p": None if verdict.probability is None else round(verdict.probability, 4),
            "verdict": verdict.verdict if verdict.probability is not None else None,
            "piece": verdict.piece.text if verdict.piece is not None else None,
        }
    return found


def measure(names: Sequence[str], probes: Sequence[Probe]) -> dict[str, dict[str, dict]]:
    """Per detector, per probe id, its judgement; each detector built once."""
    measured = {}
    for name in names:
        detector = detectors.create(name)
        measured[name] = {probe.example.id: judge(probe, detector) for probe in probes}
        print(f"{name}: " + ", ".join(f"{p.mode} {outcome(p.expected, measured[name][p.example.id])}" for p in probes))
    return measured


def write_record(measured: Mapping[str, dict], probes: Sequence[Probe], path: Path = FAILURE_MODES_RECORD) -> None:
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=CHECKOUT, capture_output=True, text=True)
    by_name = record.get("detectors", {})
    for name, judged in measured.items():
        by_name[name] = {"version": detectors.detector_class(name).version, "commit": found.stdout.strip(), **judged}
    record = {
        "command": "python bench/failure_modes.py",
        "probes": [
            {
                "id": p.example.id,
                "mode": p.mode,
                "what": p.what,
                "expected": p.expected,
                "query": p.example.query,
                "perspectives": {q.name: list(q.arguments) for q in p.example.perspectives},
                "response": p.example.response,
            }
            for p in probes
        ],
        "detectors": {name: by_name[name] for name in detectors.names() if name in by_name},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
