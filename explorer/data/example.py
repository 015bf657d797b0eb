"""The `Example` data model: one query, its perspectives, the response and optional gold labels.

One example is a query on a controversial topic, the retrieved perspectives (each a list of
arguments), the chatbot's response, and optional gold labels. The format is fixed because
other tools and test sets already use it:

    {"id": str, "topic": str?, "query": str,
     "perspectives": [{"name": "pro", "arguments": [str, ...]}, ...],
     "response": str,
     "labels": {"hallucination": bool, "coverage_error": bool, "kind": str, "ambiguous": bool,
                "ambiguous_type": str | null, "hallucinated_spans": [[start, end], ...],
                "uncovered": [{"perspective": int, "argument": int, "spans": [[start, end]]}]}?,
     "split": "train" | "dev" | "test"?}

Spans are Python character offsets, `[start, end)`. Reading and writing the format (with
per-line errors) lives in `explorer.data.jsonl`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

KINDS = ("organic", "paraphrased", "synthetic", "synthetic_paraphrased")
AMBIGUOUS_TYPES = ("partial_hallucination", "partial_coverage", "repetition", "perspective_confusion")
SPLITS = ("train", "dev", "test")

Span = tuple[int, int]


@dataclass(frozen=True)
class Perspective:
    name: str
    arguments: tuple[str, ...]


@dataclass(frozen=True)
class UncoveredArgument:
    """A given argument the response leaves out; `spans=None` means the whole argument."""

    perspective: int
    argument: int
    spans: tuple[Span, ...] | None = None


@dataclass(frozen=True)
class Labels:
    """Gold labels; every field is optional (`None` = not annotated)."""

    hallucination: bool | None = None
    coverage_error: bool | None = None
    kind: str | None = None
    ambiguous: bool | None = None
    ambiguous_type: str | None = None
    hallucinated_spans: tuple[Span, ...] = ()
    uncovered: tuple[UncoveredArgument, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return self == Labels()

    def summary(self) -> str:
        """A short human description, e.g. "hallucination (partial_hallucination)"."""
        if self.hallucination is None and self.coverage_error is None:
            return "unlabelled"
        errors = [
            name
            for name, flag in (("hallucination", self.hallucination), ("coverage error", self.coverage_error))
            if flag
        ]
        text = " + ".join(errors) if errors else "error-free"
        if self.ambiguous_type:
            text += f" ({self.ambiguous_type.replace('_', ' ')})"
        elif self.ambiguous:
            text += " (ambiguous)"
        return text


@dataclass(frozen=True)
class Example:
    id: str
    query: str
    perspectives: tuple[Perspective, ...]
    response: str
    topic: str | None = None
    labels: Labels = Labels()
    split: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def arguments(self) -> Iterator[tuple[int, int, str]]:
        """Every argument as `(perspective index, argument index, text)`."""
        for p, perspective in enumerate(self.perspectives):
            for a, argument in enumerate(perspective.arguments):
                yield p, a, argument

    def argument_name(self, perspective: int, argument: int) -> str:
        """ "con argument 2": the perspective's name and the argument's place in it, counted from 1."""
        return f"{self.perspectives[perspective].name} argument {argument + 1}"

    def content_hash(self) -> str:
        """Hash of what detectors read (query, perspectives, response): a result-cache key."""
        content = {
            "query": self.query,
            "perspectives": [[p.name, list(p.arguments)] for p in self.perspectives],
            "response": self.response,
        }
        encoded = json.dumps(content, ensure_ascii=False, sort_keys=True).encode("utf-8")
        return hashlib.sha256(encoded).hexdigest()

    def replace(self, **changes: Any) -> Example:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The example in the JSON Lines format (RefChecker input comes back in this format)."""
        record: dict[str, Any] = {"id": self.id}
        if self.topic is not None:
            record["topic"] = self.topic
        record["query"] = self.query
        record["perspectives"] = [{"name": p.name, "arguments": list(p.arguments)} for p in self.perspectives]
        record["response"] = self.response
        if not self.labels.is_empty():
            record["labels"] = _labels_to_dict(self.labels)
        if self.split is not None:
            record["split"] = self.split
        record.update(self.extra)
        return record


def _labels_to_dict(labels: Labels) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name in ("hallucination", "coverage_error", "kind", "ambiguous", "ambiguous_type"):
        value = getattr(labels, name)
        if value is not None:
            record[name] = value
    if labels.hallucinated_spans:
        record["hallucinated_spans"] = [list(span) for span in labels.hallucinated_spans]
    if labels.uncovered:
        record["uncovered"] = [
            {"perspective": u.perspective, "argument": u.argument}
            | ({} if u.spans is None else {"spans": [list(span) for span in u.spans]})
            for u in labels.uncovered
        ]
    record.update(labels.extra)
    return record
