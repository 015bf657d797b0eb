"""Scoring a dataset: every example by every chosen detector, through the result cache.

Scoring one example is the detector's job (`Detector.score`); this module runs many, keeps
going when one example fails (the failure is recorded, not raised), and turns results into
the CLI's output records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.scoring.cache import ResultCache

# Examples scored together (`score_batch`): enough for the sentence encoder's batches of
# same-length texts to fill up, few enough that progress moves and memory stays flat.
CHUNK = 128


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
    return _score(example, detectors, cache, _cached(example, detectors, cache), progress)


def _cached(example: Example, detectors: Sequence[Detector], cache: ResultCache | None) -> dict[str, DetectorResult]:
    found = {detector.name: cached_result(detector, example, cache) for detector in detectors}
    return {name: result for name, result in found.items() if result is not None}


def _score(
    example: Example,
    detectors: Sequence[Detector],
    cache: ResultCache | None,
    found: dict[str, DetectorResult],
    progress: Progress | None = None,
) -> ScoredExample:
    scored = ScoredExample(example)
    for detector in detectors:
        result = found.get(detector.name)
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


def score_batch(
    requests: Sequence[tuple[Example, Sequence[Detector]]], cache: ResultCache | None = None
) -> list[ScoredExample]:
    """Score each example by its detectors, as `score_example` does, after each detector has
    prepared (`Detector.prepare`) for the examples it will compute: those the cache does not answer."""
    found = [_cached(example, detectors, cache) for example, detectors in requests]
    chosen = {id(d): d for _, detectors in requests for d in detectors}.values()
    for detector in chosen:
        to_compute = [
            example
            for (example, detectors), hits in zip(requests, found)
            if detector.name not in hits and any(d is detector for d in detectors)
        ]
        if to_compute:
            detector.prepare(to_compute)
    return [_score(example, detectors, cache, hits) for (example, detectors), hits in zip(requests, found)]


def score_requests(
    requests: Iterable[tuple[Example, Sequence[Detector]]],
    cache: ResultCache | None = None,
    chunk: int = CHUNK,
) -> Iterator[ScoredExample]:
    """Each example by its detectors, in order, `chunk` examples at a time (`score_batch`)."""
    remaining = iter(requests)
    while batch := list(itertools.islice(remaining, chunk)):
        yield from score_batch(batch, cache)


def score_examples(
    examples: Iterable[Example],
    detectors: Sequence[Detector],
    cache: ResultCache | None = None,
    on_done: Callable[[ScoredExample], None] | None = None,
    chunk: int = CHUNK,
) -> Iterator[ScoredExample]:
    """Every example by every detector, in order (`score_requests`)."""
    for scored in score_requests(((example, detectors) for example in examples), cache, chunk):
        if on_done is not None:
            on_done(scored)
        yield scored


def all_results(
    examples: Sequence[Example], detectors: Sequence[Detector], cache: ResultCache | None = None
) -> Iterator[dict[str, DetectorResult]]:
    """Each example's results by every detector (`score_examples`), for a caller that needs them all
    (`explorer.training.ScoreExamples`): the first example that fails raises `DetectorError`."""
    for scored in score_examples(examples, detectors, cache):
        if scored.errors:
            problem = "; ".join(f"{name}: {error}" for name, error in scored.errors.items())
            raise DetectorError(f"example {scored.example.id} could not be scored ({problem})")
        yield scored.results
