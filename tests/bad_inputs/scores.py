"""Scores files that `explorer eval --scores` must check line by line, as it checks examples
(issue 14, problem 9): each file holds a good line for `good-first` and one bad line, for the
examples in `scores/examples.jsonl`. A case states the ids whose scores are kept and every
problem reported, as the user sees it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.bad_inputs.builders import FIRST, FOLDER, LAST, good, lines

SCORES_FOLDER = FOLDER / "scores"
EXAMPLES = SCORES_FOLDER / "examples.jsonl"
EXAMPLES_DATA = lines(good(FIRST), good(LAST))


def scores_line(example_id: str, **changes: Any) -> dict[str, Any]:
    """One line of `explorer score --detectors rouge` output for a corpus example, with `changes`
    to its scores (`hallucination`, `per_perspective`...) or words (`response`, `arguments`)."""
    scores = {"hallucination": 0.2, "coverage": 0.3, "per_perspective": {"pro": 0.3, "con": 0.1}}
    words = {"response": [[0, 5, 0.0]], "arguments": [[0, 0, 0, 5, 0.0]]}
    for key, value in changes.items():
        (words if key in words else scores)[key] = value
    return {"id": example_id, "scores": {"rouge": scores}, "words": {"rouge": words}}


@dataclass(frozen=True)
class ScoresCase:
    name: str
    what: str
    bad_line: dict[str, Any] | str
    error: str
    kept: tuple[str, ...] = (FIRST,)

    @property
    def data(self) -> bytes:
        return lines(scores_line(FIRST), self.bad_line)

    @property
    def path(self) -> Path:
        return SCORES_FOLDER / f"{self.name}.jsonl"


SCORES_CASES: tuple[ScoresCase, ...] = (
    ScoresCase(
        "score-above-one",
        "a score of 5.0",
        scores_line(LAST, hallucination=5.0),
        "line 2: scores.rouge.hallucination: must be a number in [0, 1], got 5.0",
    ),
    ScoresCase(
        "negative-word-score",
        "a word score below 0",
        scores_line(LAST, response=[[0, 5, -0.5]]),
        "line 2: words.rouge.response[0]: must be a number in [0, 1], got -0.5",
    ),
    ScoresCase(
        "span-outside-the-response",
        "a response word past the end of the response",
        scores_line(LAST, response=[[90, 120, 0.5]]),
        "line 2: words.rouge.response[0]: [90, 120] is not a span inside the response",
    ),
    ScoresCase(
        "unknown-perspective",
        "coverage of a perspective the example does not have",
        scores_line(LAST, per_perspective={"pro": 0.3, "con": 0.1, "perspective 77": 0.9}),
        "line 2: scores.rouge.per_perspective: 'perspective 77' is not a perspective of example 'good-last'",
    ),
    ScoresCase(
        "missing-perspective",
        "coverage of only one of the example's two perspectives",
        scores_line(LAST, per_perspective={"pro": 0.3}),
        "line 2: scores.rouge.per_perspective: misses the perspective 'con'",
    ),
    ScoresCase(
        "argument-of-perspective-77",
        "an argument word in perspective 77",
        scores_line(LAST, arguments=[[77, 0, 0, 5, 0.5]]),
        "line 2: words.rouge.arguments[0]: there is no argument 0 in perspective 77",
    ),
    ScoresCase(
        "duplicate-id",
        "the same example's scores twice",
        scores_line(FIRST, hallucination=0.9),
        "line 2: id: 'good-first' was already used on line 1",
    ),
    ScoresCase(
        "unknown-id",
        "scores for an example the input does not have",
        scores_line("nobody"),
        "line 2: id: 'nobody' is the id of no example in the input",
    ),
    ScoresCase(
        "not-a-scores-record",
        "a line without coverage",
        {"id": LAST, "scores": {"rouge": {"hallucination": 0.1}}},
        "line 2: not a record of `explorer score` output (expected id, scores{detector: {hallucination, coverage, "
        "per_perspective}}, words): KeyError 'coverage'",
    ),
    ScoresCase(
        "duplicate-key",
        "a key given twice",
        '{"id": "good-last", "id": "good-first", "scores": {}}',
        "line 2: duplicate key 'id': an object gives it twice, and JSON would keep only the last value",
    ),
)


def write_scores() -> None:
    SCORES_FOLDER.mkdir(exist_ok=True)
    EXAMPLES.write_bytes(EXAMPLES_DATA)
    for case in SCORES_CASES:
        case.path.write_bytes(case.data)
