"""Scoring a dataset: every example by every chosen detector, through the result cache.

Scoring one example is the detector's job (`Detector.score`); this module runs many, keeps
going when one example fails (the failure is recorded, not raised), and turns results into
the CLI's output records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.scoring.cache import ResultCache


@dataclass
class ScoredExample:
    example: Example
    results: dict[str, DetectorResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    computed: set[str] = field(default_factory=set)


def cached_result(detector: Detector, example: Example, cache: ResultCache | None) -> DetectorResult | None:
    if cache is None or not detector.cache_results:
        return None
    return cache.get(detector, example)


def score_example(
    example: Example,
    detectors: Sequence[Detector],
    cache: ResultCache | None = None,
    progress: Progress | None = None,
) -> ScoredExample:
    scored = ScoredExample(example)
    for detector in detectors:
        result = cached_result(detector, example, cache)
        if result is None:
            try:
                result = detector.score(example, progress=progress)
            except DetectorError as error:
                scored.errors[detector.name] = str(error)
                continue
            scored.computed.add(detector.name)
            if cache is not None and detector.cache_results:
                cache.put(detector, example, result)
        scored.results[detector.name] = result
    return scored


def score_examples(
    examples: Iterable[Example],
    detectors: Sequence[Detector],
    cache: ResultCache | None = None,
    on_done: Callable[[ScoredExample], None] | None = None,
) -> Iterator[ScoredExample]:
    for example in examples:
        scored = score_example(example, detectors, cache)
        if on_done is not None:
            on_done(scored)
        yield scored
