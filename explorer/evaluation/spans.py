"""Hallucinated-span precision, recall and F1 by character overlap, as LettuceDetect reports on RAGTruth.

A detector's predicted spans are its response words scored at or above `threshold`, adjacent
flagged words joined into one span (the space between them counts). Gold and predicted spans
are compared on the non-space characters of the response, pooled over a slice's examples: a
flagged word of an error-free example is a false positive, a missed gold character a false
negative. A slice with no gold character has no recall (None), one with no flagged character
no precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.data.example import Example, Span
from explorer.detectors.base import DetectorResult
from explorer.evaluation.slices import SLICES, slice_members

THRESHOLD = 0.5


def predicted_spans(result: DetectorResult, threshold: float = THRESHOLD) -> list[Span]:
    """The response words scored at or above `threshold`, joined where only spaces and
    punctuation part two flagged words (no unflagged word between them)."""
    words = sorted((w.start, w.end, w.score) for w in result.response_words)
    spans: list[list[int]] = []
    previous_flagged = False
    for start, end, score in words:
        flagged = score >= threshold
        if flagged and previous_flagged and spans:
            spans[-1][1] = end
        elif flagged:
            spans.append([start, end])
        previous_flagged = flagged
    return [(start, end) for start, end in spans]


def _characters(text: str, spans: Sequence[Span]) -> set[int]:
    return {i for start, end in spans for i in range(start, min(end, len(text))) if not text[i].isspace()}


@dataclass(frozen=True)
class SpanCell:
    """One detector's span precision, recall and F1 on one slice (None where undefined)."""

    slice: str
    detector: str
    examples: int
    precision: float | None
    recall: float | None
    f1: float | None
    threshold: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "slice": self.slice,
            "method": self.detector,  # REPORT.json keeps its field names: saved reports stay readable
            "examples": self.examples,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "threshold": self.threshold,
        }


def span_cell(
    slice_name: str,
    detector_name: str,
    pairs: Sequence[tuple[Example, DetectorResult]],
    threshold: float = THRESHOLD,
) -> SpanCell:
    true_positive = predicted_total = gold_total = 0
    for example, result in pairs:
        gold = _characters(example.response, example.labels.hallucinated_spans)
        predicted = _characters(example.response, predicted_spans(result, threshold))
        true_positive += len(gold & predicted)
        predicted_total += len(predicted)
        gold_total += len(gold)
    precision = true_positive / predicted_total if predicted_total else None
    recall = true_positive / gold_total if gold_total else None
    f1 = None
    if precision is not None and recall is not None:
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return SpanCell(slice_name, detector_name, len(pairs), precision, recall, f1, threshold)


def span_cells(
    examples: Sequence[Example], results, detector_names: Sequence[str], threshold: float = THRESHOLD
) -> list[SpanCell]:
    """Every detector's span cell on each hallucination slice (its error-free and hallucinated examples)."""
    cells = []
    for chosen in SLICES:
        members = slice_members(examples, "hallucination", chosen.name)
        for detector_name in detector_names:
            pairs = [(e, results[e.id][detector_name]) for e, _ in members if detector_name in results.get(e.id, {})]
            if pairs:
                cells.append(span_cell(chosen.name, detector_name, pairs, threshold))
    return cells
