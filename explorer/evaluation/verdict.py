"""One example's verdict per error type: likely / unclear / unlikely, and where to look.

The verdict comes from one detector's score read through its calibration
(`explorer.evaluation.calibration`, fitted on a labelled dev split), so it says
"likely a hallucination" only where that detector's dev errors scored as high. With it comes
the piece of text responsible: for a hallucination the response sentence the detector scores
worst (highest word score, ties broken by the mean: for the semantic alignment that is the
sentence of its least supported claim), for a coverage error the argument it scores worst.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation.calibration import Calibration, Calibrations, shipped
from explorer.text.claims import split_sentences


@dataclass(frozen=True)
class Piece:
    """The text a verdict points at: a response sentence (`perspective` None, offsets into the
    response) or an argument (`perspective`, `argument`, offsets into that argument)."""

    text: str
    start: int
    end: int
    score: float
    perspective: int | None = None
    argument: int | None = None

    @property
    def anchor(self) -> str:
        """The HTML id of the piece in the verdict detector's highlights."""
        if self.perspective is None:
            return f"verdict-sentence-{self.start}"
        return f"verdict-argument-{self.perspective}-{self.argument}"


@dataclass(frozen=True)
class Verdict:
    error_type: str
    detector: str
    score: float
    calibration: Calibration | None  # None: no calibration fits this result (other model, version, settings)
    piece: Piece | None

    @property
    def verdict(self) -> str | None:
        return self.calibration.verdict(self.score) if self.calibration is not None else None

    @property
    def probability(self) -> float | None:
        if self.calibration is None or not self.calibration.informative:
            return None
        return self.calibration.probability(self.score)


def _rank(scores: list[float]) -> tuple[float, float]:
    return (max(scores), sum(scores) / len(scores)) if scores else (-1.0, -1.0)


def worst_sentence(example: Example, result: DetectorResult) -> Piece | None:
    """The response sentence with the highest word score (ties: highest mean); None without scored words."""
    best, best_rank = None, (-1.0, -1.0)
    for sentence in split_sentences(example.response):
        inside = [w.score for w in result.response_words if sentence.start <= w.start and w.end <= sentence.end]
        rank = _rank(inside)
        if inside and rank > best_rank:
            best, best_rank = Piece(sentence.text, sentence.start, sentence.end, rank[0]), rank
    return best


def worst_argument(example: Example, result: DetectorResult) -> Piece | None:
    """The argument with the highest word score (ties: highest mean); None without scored words."""
    best, best_rank = None, (-1.0, -1.0)
    for p, a, text in example.arguments():
        inside = [w.score for w in result.argument_word_scores(p, a)]
        rank = _rank(inside)
        if inside and rank > best_rank:
            best, best_rank = Piece(text, 0, len(text), rank[0], p, a), rank
    return best


def verdicts(example: Example, result: DetectorResult, calibrations: Calibrations | None = None) -> dict[str, Verdict]:
    """Per error type, the verdict of `result` on `example` and the piece responsible."""
    calibrations = calibrations or shipped()
    found = {}
    for error_type in ERROR_TYPES:
        piece = worst_sentence(example, result) if error_type == "hallucination" else worst_argument(example, result)
        found[error_type] = Verdict(
            error_type=error_type,
            detector=result.detector,
            score=getattr(result, error_type),
            calibration=calibrations.get(result, error_type),
            piece=piece,
        )
    return found


def thresholds(results: Mapping[str, DetectorResult], calibrations: Calibrations | None = None):
    """Per detector and error type, its calibration (None where none fits the result)."""
    calibrations = calibrations or shipped()
    return {
        name: {error_type: calibrations.get(result, error_type) for error_type in ERROR_TYPES}
        for name, result in results.items()
    }
