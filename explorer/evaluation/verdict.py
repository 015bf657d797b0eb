"""One example's verdict per error type: likely / unclear / unlikely, and where to look.

The verdict comes from one detector's score read through its calibration
(`explorer.evaluation.calibration`, fitted on a labelled dev split), so it says
"likely a hallucination" only where that detector's dev errors scored as high. With it comes
the piece of text responsible: for a hallucination the response sentence the detector scores
worst (highest word score, ties broken by the mean: for the semantic alignment that is the
sentence of its least supported claim), for a coverage error the argument it scores worst.

A sentence can run to several lines while the problem is one clause of it ("…, as London found
in 2003"), and a quote cut at its first characters hides it. So each piece also names its
`focus`: the clause the detector scores worst, and among equals (the verdict detector scores a
claim's words alike) the clause with the largest share of content words the other side never
uses (the arguments for a sentence, the response for an argument): ROUGE-1's notion of support.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from explorer import detectors
from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation.calibration import Calibration, Calibrations, active
from explorer.text.claims import is_heading, split_sentences
from explorer.text.words import DEFAULT_SEGMENTER

# Where a quote may cut a sentence into clauses: after a comma, semicolon, colon or dash, and
# around brackets. Finer than `explorer.text.claims.clause_spans` (which cuts only where two
# arguments could join): a quote needs the clause holding an invented detail, however joined.
_CUT = re.compile(r"[,;:\u2014\u2013(]\s+|\s+[\u2014\u2013(]|\)\s*")
MIN_FOCUS_WORDS = 3  # a clause with fewer content words ("letting buses") joins the one before


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
    focus: tuple[int, int] | None = None  # the least supported clause, offsets as `start`, `end`

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


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """`text[start:end]` cut into clauses (`_CUT`), each with at least `MIN_FOCUS_WORDS` content
    words where possible, surrounding spaces and the cut's punctuation left out."""
    pieces, cursor = [], start
    for cut in _CUT.finditer(text, start, end):
        pieces.append((cursor, cut.start()))
        cursor = cut.end()
    pieces.append((cursor, end))
    merged: list[tuple[int, int]] = []
    for left, right in pieces:
        if merged and (_count(text, merged[-1]) < MIN_FOCUS_WORDS or _count(text, (left, right)) < MIN_FOCUS_WORDS):
            merged[-1] = (merged[-1][0], right)
        else:
            merged.append((left, right))
    return [(left + len(text[left:right]) - len(text[left:right].lstrip()), right) for left, right in merged]


def _count(text: str, span: tuple[int, int]) -> int:
    return len(DEFAULT_SEGMENTER.content_words(text[span[0] : span[1]]))


def _focus(
    text: str, start: int, end: int, scores: Sequence[tuple[int, int, float]], other: Collection[str]
) -> tuple[int, int]:
    """The clause of `text[start:end]` with the worst detector scores (`scores`: word offsets
    and score), ties broken by the share of its content words whose stem is not in `other`."""

    def rank(span: tuple[int, int]) -> tuple[float, float]:
        inside = [score for left, right, score in scores if span[0] <= left and right <= span[1]]
        words = DEFAULT_SEGMENTER.content_words(text[span[0] : span[1]])
        unsupported = sum(word.stem not in other for word in words) / len(words) if words else 0.0
        return (sum(inside) / len(inside) if inside else -1.0, unsupported)

    return max(_clauses(text, start, end), key=rank)


def worst_sentence(example: Example, result: DetectorResult) -> Piece | None:
    """The response sentence with the highest word score (ties: highest mean); None without scored words."""
    best, best_rank = None, (-1.0, -1.0)
    for sentence in split_sentences(example.response):
        if is_heading(example.response, sentence.span):
            continue  # states nothing: never the sentence responsible
        inside = [w.score for w in result.response_words if sentence.start <= w.start and w.end <= sentence.end]
        rank = _rank(inside)
        if inside and rank > best_rank:
            best, best_rank = Piece(sentence.text, sentence.start, sentence.end, rank[0]), rank
    if best is None:
        return None
    words = [(w.start, w.end, w.score) for w in result.response_words]
    arguments = frozenset().union(*(DEFAULT_SEGMENTER.content_stems(text) for _, _, text in example.arguments()))
    return replace(best, focus=_focus(example.response, best.start, best.end, words, arguments))


def worst_argument(example: Example, result: DetectorResult) -> Piece | None:
    """The argument with the highest word score (ties: highest mean); None without scored words."""
    best, best_rank = None, (-1.0, -1.0)
    for p, a, text in example.arguments():
        inside = [w.score for w in result.argument_word_scores(p, a)]
        rank = _rank(inside)
        if inside and rank > best_rank:
            best, best_rank = Piece(text, 0, len(text), rank[0], p, a), rank
    if best is None:
        return None
    words = [(w.start, w.end, w.score) for w in result.argument_word_scores(best.perspective, best.argument)]
    return replace(
        best,
        focus=_focus(best.text, 0, len(best.text), words, DEFAULT_SEGMENTER.content_stems(example.response)),
    )


def verdicts(example: Example, result: DetectorResult, calibrations: Calibrations | None = None) -> dict[str, Verdict]:
    """Per error type, the verdict of `result` on `example` and the piece responsible."""
    calibrations = calibrations or active()
    found = {}
    for error_type in ERROR_TYPES:
        piece = worst_sentence(example, result) if error_type == "hallucination" else worst_argument(example, result)
        found[error_type] = Verdict(
            error_type=error_type,
            detector=result.detector,
            score=result.score(error_type),
            calibration=calibrations.get(result, error_type),
            piece=piece,
        )
    return found


def thresholds(results: Mapping[str, DetectorResult], calibrations: Calibrations | None = None):
    """Per detector and error type, its calibration (None where none fits the result)."""
    calibrations = calibrations or active()
    return {
        name: {error_type: calibrations.get(result, error_type) for error_type in ERROR_TYPES}
        for name, result in results.items()
    }


def neither_likely(example: Example, result: DetectorResult, calibrations: Calibrations | None = None) -> bool:
    """Whether `result` finds neither a likely hallucination nor a likely coverage error in
    `example`: calibrated P(error) < 0.5 for both (without an informative calibration: not)."""
    probabilities = [v.probability for v in verdicts(example, result, calibrations).values()]
    return all(p is not None and p < 0.5 for p in probabilities)


def answer_check() -> Callable[[Example], bool]:
    """Whether the verdict detector (`explorer.detectors.VERDICT_DETECTOR`) finds neither error
    likely in an answered example (`neither_likely`): the generator's detector-faithful count.
    The detector loads at the first answer checked."""
    loaded: list[detectors.Detector] = []

    def check(answered: Example) -> bool:
        if not loaded:
            loaded.append(detectors.create(detectors.VERDICT_DETECTOR))
        return neither_likely(answered, loaded[0].score(answered))

    return check
