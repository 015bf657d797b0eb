"""The one interface every detector implements, and the one result type they all return.

A detector reads an `Example` and returns a `DetectorResult`: example-level scores in [0, 1]
where higher means "more likely an error", per-perspective coverage scores, word-level scores
on the response and on the arguments (character spans from `explorer.text.words`), and `info`
recording what produced it. Pages, the CLI, the cache and the evaluation consume only this type.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.text.words import DEFAULT_SEGMENTER

Progress = Callable[[int, int], None]


class DetectorError(Exception):
    """A detector cannot score this example (e.g. it does not fit the model's context)."""


@dataclass(frozen=True)
class ResponseWordScore:
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class ArgumentWordScore:
    perspective: int
    argument: int
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class DetectorResult:
    """What one detector says about one example.

    `hallucination` and `coverage` are error scores in [0, 1]; `per_perspective` maps each
    perspective's name to its coverage error score (`coverage` is their maximum for detectors
    that follow the paper's min-over-perspectives rule). Word scores are error scores too:
    a response word's likelihood of being unsupported, an argument word's of being dropped.
    `details` holds detector-specific JSON data for richer views (e.g. a salience map), each
    declared once in `explorer.detectors.details` and read through it.
    """

    detector: str
    hallucination: float
    coverage: float
    per_perspective: Mapping[str, float]
    response_words: tuple[ResponseWordScore, ...]
    argument_words: tuple[ArgumentWordScore, ...]
    info: Mapping[str, Any]
    details: Mapping[str, Any] = field(default_factory=dict)

    def score(self, error_type: str) -> float:
        """The example's score of `error_type` (`hallucination` or `coverage`)."""
        if error_type not in ERROR_TYPES:
            raise ValueError(f"unknown error type {error_type!r}; one of {', '.join(ERROR_TYPES)}")
        return self.hallucination if error_type == "hallucination" else self.coverage

    def scores_dict(self) -> dict[str, Any]:
        return {
            "hallucination": self.hallucination,
            "coverage": self.coverage,
            "per_perspective": dict(self.per_perspective),
        }

    def words_dict(self) -> dict[str, list[list]]:
        return {
            "response": [[w.start, w.end, w.score] for w in self.response_words],
            "arguments": [[w.perspective, w.argument, w.start, w.end, w.score] for w in self.argument_words],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "detector": self.detector,
            "scores": self.scores_dict(),
            "words": self.words_dict(),
            "info": dict(self.info),
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DetectorResult:
        scores, words = data["scores"], data["words"]
        return cls(
            detector=data["detector"],
            hallucination=scores["hallucination"],
            coverage=scores["coverage"],
            per_perspective=dict(scores["per_perspective"]),
            response_words=tuple(ResponseWordScore(*w) for w in words["response"]),
            argument_words=tuple(ArgumentWordScore(*w) for w in words["arguments"]),
            info=dict(data.get("info", {})),
            details=dict(data.get("details", {})),
        )

    @classmethod
    def without_words(
        cls, detector: Detector, hallucination: float, coverage: float, per_perspective: Mapping[str, float]
    ) -> DetectorResult:
        """The result of a detector that reads the example as a whole (the LM classifiers): scores, no words."""
        return cls(
            detector=detector.name,
            hallucination=hallucination,
            coverage=coverage,
            per_perspective=per_perspective,
            response_words=(),
            argument_words=(),
            info=detector.info(),
        )

    @classmethod
    def from_units(
        cls,
        detector: Detector,
        example: Example,
        response_units: Sequence[tuple[int, int, float]],
        argument_errors: Mapping[tuple[int, int], float],
        details: Mapping[str, Any] | None = None,
    ) -> DetectorResult:
        """The result of a detector that scores pieces: response spans `(start, end, P(unsupported))`
        and `(perspective, argument) -> P(dropped)`. An example takes its worst piece (a
        perspective its worst argument, `coverage` the worst perspective) and each content word
        its piece's score."""
        response = example.response
        per_perspective = {
            perspective.name: max((argument_errors[(p, a)] for a in range(len(perspective.arguments))), default=0.0)
            for p, perspective in enumerate(example.perspectives)
        }
        return cls(
            detector=detector.name,
            hallucination=max((score for _, _, score in response_units), default=0.0),
            coverage=max(per_perspective.values()),
            per_perspective=per_perspective,
            response_words=tuple(
                ResponseWordScore(start + word.start, start + word.end, score)
                for start, end, score in response_units
                for word in DEFAULT_SEGMENTER.content_words(response[start:end])
            ),
            argument_words=tuple(
                ArgumentWordScore(p, a, word.start, word.end, argument_errors[(p, a)])
                for p, a, text in example.arguments()
                for word in DEFAULT_SEGMENTER.content_words(text)
            ),
            info=detector.info(),
            details=details or {},
        )

    def problem(self, example: Example | None = None, detector_name: str | None = None) -> str | None:
        """The first way this result is malformed or does not fit `example`, naming the field as
        `explorer score` writes it (under `detector_name` when given); None when there is none.

        Every score is a finite number in [0, 1]; with the example, `per_perspective` names
        exactly its perspectives and every word span lies inside its text. The cache and
        `eval --scores` use no result that fails this.
        """
        within = f"{detector_name}." if detector_name else ""
        numbers = [(f"scores.{within}hallucination", self.hallucination), (f"scores.{within}coverage", self.coverage)]
        numbers += [(f"scores.{within}per_perspective.{name}", v) for name, v in self.per_perspective.items()]
        numbers += [(f"words.{within}response[{i}]", w.score) for i, w in enumerate(self.response_words)]
        numbers += [(f"words.{within}arguments[{i}]", w.score) for i, w in enumerate(self.argument_words)]
        misfit = self._misfit(example, within) if example is not None else None
        if misfit:
            return misfit
        for where, value in numbers:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                return f"{where}: must be a number in [0, 1], got {json.dumps(value)}"  # NaN fails too
        return None

    def _misfit(self, example: Example, within: str) -> str | None:
        names = [p.name for p in example.perspectives]
        unknown = [name for name in self.per_perspective if name not in names]
        if unknown:
            return f"scores.{within}per_perspective: {unknown[0]!r} is not a perspective of example {example.id!r}"
        missing = [name for name in names if name not in self.per_perspective]
        if missing:
            return f"scores.{within}per_perspective: misses the perspective {missing[0]!r}"
        for i, word in enumerate(self.response_words):
            if not _is_span(word.start, word.end, example.response):
                span = _span_text(word.start, word.end)
                return f"words.{within}response[{i}]: {span} is not a span inside the response"
        for i, word in enumerate(self.argument_words):
            p, a = word.perspective, word.argument
            where = f"words.{within}arguments[{i}]"
            if not (_is_index(p, len(names)) and _is_index(a, len(example.perspectives[p].arguments))):
                return f"{where}: there is no argument {json.dumps(a)} in perspective {json.dumps(p)}"
            if not _is_span(word.start, word.end, example.perspectives[p].arguments[a]):
                span = _span_text(word.start, word.end)
                return f"{where}: {span} is not a span inside argument {a} of perspective {p}"
        return None

    def argument_word_scores(self, perspective: int, argument: int) -> list[ArgumentWordScore]:
        return [w for w in self.argument_words if w.perspective == perspective and w.argument == argument]


def _is_index(value: Any, length: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < length


def _is_span(start: Any, end: Any, text: str) -> bool:
    integers = all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end))
    return integers and 0 <= start < end <= len(text)


def _span_text(start: Any, end: Any) -> str:
    return f"[{json.dumps(start)}, {json.dumps(end)}]"


class Detector(abc.ABC):
    """Scores examples for hallucination and coverage errors.

    Subclasses set the class attributes and implement `score`. `version` changes whenever a
    change in code changes the output, so cached results of older code are not reused.
    """

    name: ClassVar[str]  # its registry name; the registry's `DetectorSpec` holds its title and help
    version: ClassVar[str]
    # Cheap detectors are recomputed rather than read back from disk.
    cache_results: ClassVar[bool] = True
    # The `details` keys every result holds: a cached result without one was written before the
    # detector kept it (an addition that leaves the scores, so `version`, as they were) and is
    # scored again.
    kept: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        """Score one example; slow detectors call `progress(done, total)` as they go."""

    def prepare(self, examples: Sequence[Example]) -> None:  # noqa: B027 (an optional hook: nothing to do by default)
        """Get ready to score these examples, e.g. encode all their texts in a few large batches.

        An optional speed-up for scoring many examples (`explorer.scoring.runner`): a result
        never depends on whether, or with which other examples, `prepare` was called.
        """

    def config(self) -> dict[str, Any]:
        """Settings that change the output (part of the cache key and of `info`)."""
        return {}

    def model_identity(self) -> str | None:
        """A stable name of the model weights used, or None for model-free detectors."""
        return None

    def parts(self) -> Mapping[str, Detector]:
        """The detectors whose results this one combines, by name: the result cache keys on their
        whole identities too, so a change in a part's settings or weights is never served stale."""
        return {}

    def info(self) -> dict[str, Any]:
        return {
            "detector": self.name,
            "version": self.version,
            "model": self.model_identity(),
            "config": self.config(),
        }
