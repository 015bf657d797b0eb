"""Scoring a whole dataset with one detector in the background, without Streamlit.

The dataset page serves what the result cache holds at once and hands the rest to one job per
detector and dataset (`explorer.scoring.jobs`); a job's `stop` event lets the page pause it when
the user looks elsewhere, and it resumes from the cache.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from explorer.data.example import Example
from explorer.detectors import Detector, DetectorResult
from explorer.scoring.cache import ResultCache
from explorer.scoring.jobs import Job
from explorer.scoring.runner import ScoredExample, score_example


def fingerprint(examples: Sequence[Example]) -> str:
    """Identifies a dataset's content: ids and what detectors read."""
    digest = hashlib.sha256()
    for example in examples:
        digest.update(f"{example.id}\t{example.content_hash()}\n".encode())
    return digest.hexdigest()[:20]


@dataclass
class DatasetScores:
    """Results by example id and detector, and for each detector what is still missing and why."""

    results: dict[str, dict[str, DetectorResult]]
    jobs: dict[str, Job] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    failures: dict[str, dict[str, str]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)

    def scored(self, detector_name: str) -> int:
        return sum(1 for by_detector in self.results.values() if detector_name in by_detector)


def record(scored: ScoredExample, detector_name: str, results: dict, failures: dict) -> None:
    """File one example's result (or refusal) for `detector_name` under its id."""
    if detector_name in scored.results:
        results[scored.example.id] = scored.results[detector_name]
    if detector_name in scored.errors:
        failures[scored.example.id] = scored.errors[detector_name]


def background_work(detector: Detector, examples: Sequence[Example], stop: threading.Event, cache: ResultCache):
    """A job's work: score `examples` one by one through the cache until done or `stop` is set;
    returns (results, failures) by example id."""

    def work(progress):
        results, failures = {}, {}
        for done, example in enumerate(examples):
            if stop.is_set():
                break
            record(score_example(example, [detector], cache), detector.name, results, failures)
            progress(done + 1, len(examples))
        return results, failures

    return work


# Stop signals of dataset jobs by job key. Module-level, like the job runner, because a job
# outlives the session rerun that started it.
STOPS: dict[str, threading.Event] = {}


def job_key(detector_name: str, model: str, dataset_key: str) -> str:
    return f"dataset:{detector_name}:{model}:{dataset_key}"
