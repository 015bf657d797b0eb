"""The scores file: what `explorer score` writes, one JSON line per example, and reading it back
(for `explorer eval --scores` and the dataset page's precomputed scores), checked line by line
like an example file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.data.example import Example
from explorer.data.jsonl import DuplicateKeyError, FormatError, loads
from explorer.detectors.base import DetectorResult
from explorer.files import MAX_INPUT_BYTES, read_regular
from explorer.scoring.runner import ScoredExample

_SHAPE = (
    "not a record of `explorer score` output (expected id, scores{detector: {hallucination, coverage, "
    "per_perspective}}, words)"
)


@dataclass
class ScoresFile:
    """What a scores file holds: results by example id and detector, recorded failures, and one
    error per line that was left out (the line and field, as for examples)."""

    results: dict[str, dict[str, DetectorResult]] = field(default_factory=dict)
    failures: dict[str, dict[str, str]] = field(default_factory=dict)
    errors: list[FormatError] = field(default_factory=list)


def parse_scores(source: str | bytes | Path, examples: Sequence[Example] | None = None) -> ScoresFile:
    """Read `explorer score` output, checking every line as example lines are checked.

    A line is left out, with an error naming it, when it is not JSON, not a record of the
    format, repeats an earlier line's id, or holds a score that is not a number in [0, 1]. With
    the `examples` the scores are for, also when its id is none of theirs, or its scores do not
    fit the example (another example's perspectives, word spans outside the text:
    `DetectorResult.problem`).
    """
    data = read_regular(source, MAX_INPUT_BYTES) if isinstance(source, Path) else source
    if isinstance(data, str):
        data = data.encode("utf-8")
    by_id = {example.id: example for example in examples} if examples is not None else None
    read = ScoresFile()
    first_line_of: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            example_id, results, failures = _record(raw, by_id)
        except _LineError as error:
            read.errors.append(FormatError(error.field, str(error), number))
            continue
        if example_id in first_line_of:
            read.errors.append(
                FormatError("id", f"{example_id!r} was already used on line {first_line_of[example_id]}", number)
            )
            continue
        first_line_of[example_id] = number
        if results:
            read.results[example_id] = results
        if failures:
            read.failures[example_id] = failures
    return read


class _LineError(ValueError):
    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


def _record(raw: bytes, by_id: dict[str, Example] | None) -> tuple[str, dict[str, DetectorResult], dict[str, str]]:
    try:
        record = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise _LineError("", f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at byte {error.start + 1})") from None
    except DuplicateKeyError as error:
        raise _LineError("", error.msg) from None
    except json.JSONDecodeError as error:
        raise _LineError("", f"invalid JSON: {error.msg} (column {error.colno})") from None
    try:
        example_id, scores, words = record["id"], record["scores"], record.get("words", {})
        if not isinstance(example_id, str) or not isinstance(scores, dict) or not isinstance(words, dict):
            raise TypeError("id must be a string, scores and words objects")
        results, failures = {}, {}
        for detector_name, given in scores.items():
            if isinstance(given, dict) and "error" in given:
                failures[detector_name] = str(given["error"])
                continue
            results[detector_name] = DetectorResult.from_dict(
                {
                    "detector": detector_name,
                    "scores": given,
                    "words": words.get(detector_name, {"response": [], "arguments": []}),
                }
            )
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise _LineError("", f"{_SHAPE}: {type(error).__name__} {error}") from None
    example = None
    if by_id is not None:
        example = by_id.get(example_id)
        if example is None:
            raise _LineError("id", f"{example_id!r} is the id of no example in the input")
    for detector_name, result in results.items():
        # NaN, Infinity or text would break the ROC curves and tables much later.
        problem = result.problem(example, detector_name)
        if problem:
            field_name, _, message = problem.partition(": ")
            raise _LineError(field_name, message)
    return example_id, results, failures


def read_scores(source: str | bytes | Path) -> tuple[dict[str, dict[str, DetectorResult]], dict[str, dict[str, str]]]:
    """Results by example id and detector, and recorded failures (`parse_scores` without the
    examples); raises `ValueError` naming the line and field of the first problem."""
    read = parse_scores(source)
    if read.errors:
        raise ValueError(str(read.errors[0]))
    return read.results, read.failures


def output_record(scored: ScoredExample) -> dict[str, Any]:
    """One line of `explorer score`'s output."""
    scores: dict[str, Any] = {name: result.scores_dict() for name, result in scored.results.items()}
    scores.update({name: {"error": message} for name, message in scored.errors.items()})
    return {
        "id": scored.example.id,
        "scores": scores,
        "words": {name: result.words_dict() for name, result in scored.results.items()},
    }
