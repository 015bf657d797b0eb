"""One account of the verdict and the claim view: where the two agree, where they differ, and the
facts that say why.

The verdict (`explorer.evaluation.verdict`) reads the verdict detector's scores: for a
hallucination the response sentence whose words it scores worst, for a coverage error the
argument it scores worst. The claim view (`explorer.evaluation.claim_level`) reads an alignment:
each claim against the arguments' sentences as a whole, each argument against the claims. The
two are different readings and can differ: a sentence close to an argument overall can still add
a detail no argument gives ("..., with turnout rising by 23 percent in 2016"), which a word-level
detector marks and a claim-level match passes. Shown side by side without a word, they read as a
contradiction. `account` puts what each says about the same piece of text in one record, which
the verdict line and the claim view both draw (`explorer.render.accounts`), so neither shows a
finding without the other's reading of it.

Only the readings' outputs are used (the verdict's piece and band, the detector's word scores,
the claim view's per-claim verdicts and flags), never how a detector computes them, so the
account stays true when the detectors or the claim view's wording change: any claim verdict
other than supported or framing (unsupported, or a contradiction) counts as the claim view
flagging the claim, and any flag that names an argument as not covered as flagging that argument.

A third reading joins them where the verdict detector keeps the meaning check's findings
(`explorer.detectors.details.misstatements`): an argument stated with its meaning turned keeps
the argument's words, so closeness (the claim view's match, most of the verdict's score) calls it
supported while the meaning check calls it misstated. Each misstated argument is both errors (a
statement not provided, an argument not given), so it is part of both accounts, and a verdict of
"unlikely" beside one is a disagreement the account names, not a silence.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.detectors.details import misstatements
from explorer.detectors.ops.assessment import COVERAGE_ERROR, FRAMING, SUPPORTED, Assessment
from explorer.evaluation.calibration import LIKELY, UNLIKELY
from explorer.evaluation.verdict import Verdict
from explorer.text.words import DEFAULT_SEGMENTER

TOP_WORDS = 3  # the verdict detector's highest-scored words named in an account
MARKED = 0.5  # a word score from which the detector marks a word (the highlights' midpoint)
MAX_NEW_WORDS = 6


@dataclass(frozen=True)
class ClaimReading:
    """The claim view's reading of one claim: its verdict, and the argument closest to it."""

    claim: int
    text: str
    verdict: str
    similarity: float  # its best match over the arguments (raw, as the claim cards show it)
    argument: tuple[int, int] | None  # (perspective, argument) of that best match
    word_score: float | None  # the verdict detector's highest word score inside it

    @property
    def flagged(self) -> bool:
        return self.verdict not in (SUPPORTED, FRAMING)


@dataclass(frozen=True)
class ArgumentReading:
    """The claim view's reading of one argument: the claim that covers it best, and whether it flags it."""

    argument: tuple[int, int]
    similarity: float  # its best credited match over the checked claims
    claim: int | None  # that claim
    flagged: bool
    word_score: float | None  # the verdict detector's highest word score in the argument


@dataclass(frozen=True)
class Account:
    """What the verdict and the claim view say about one error type of one example.

    `claims` are the claim view's readings of the claims in the verdict's sentence (for a
    hallucination), `argument` its reading of the verdict's argument (for a coverage error);
    `elsewhere` are the claims or arguments the claim view flags outside the verdict's piece.
    `words` are the verdict detector's highest word scores in its piece, `new_words` those of the
    piece's words it marks (score at least `MARKED`) that the other side never uses (for a
    sentence: no argument; for an argument: the response): the facts an explanation of a
    disagreement rests on.
    """

    error_type: str
    verdict: Verdict
    claims: tuple[ClaimReading, ...] = ()
    argument: ArgumentReading | None = None
    elsewhere: tuple[ClaimReading | ArgumentReading, ...] = ()
    words: tuple[tuple[str, float], ...] = ()
    new_words: tuple[str, ...] = ()
    match: float = 0.0  # the claim view's match threshold
    misstated: tuple[Mapping, ...] = ()  # the meaning check's misstated arguments the verdict keeps

    @property
    def misstates_piece(self) -> bool:
        """Whether a misstatement is the verdict's piece: its sentence holds the misstating words
        (a hallucination), or its argument is the one misstated (a coverage error)."""
        piece = self.verdict.piece
        if piece is None:
            return False
        if self.error_type == "hallucination":
            return any(f["piece"][0] < piece.end and piece.start < f["piece"][1] for f in self.misstated)
        return any(tuple(f["argument"]) == (piece.perspective, piece.argument) for f in self.misstated)

    @property
    def claim_view_flags_piece(self) -> bool:
        if self.error_type == "hallucination":
            return any(reading.flagged for reading in self.claims)
        return self.argument is not None and self.argument.flagged

    @property
    def closeness_misses_misstatement(self) -> bool:
        """The verdict says unlikely beside a misstatement the meaning check found: the case the
        account explains by what a turned argument keeps (its words)."""
        return bool(self.misstated) and self.verdict.verdict == UNLIKELY

    @property
    def agrees(self) -> bool | None:
        """True or False where the verdict takes a side (likely / unlikely) and the claim view's
        reading of the same text does or does not bear it out; None where the verdict is unclear
        or has no calibration (nothing for the claim view to contradict)."""
        band = self.verdict.verdict
        if band == LIKELY:
            return self.claim_view_flags_piece or self.misstates_piece
        if band == UNLIKELY:
            return not self.claim_view_flags_piece and not self.elsewhere and not self.misstated
        return None


def _highest(scores: list[float]) -> float | None:
    return max(scores) if scores else None


def _claim_reading(assessment: Assessment, claim: int, verdict: str, judge: DetectorResult) -> ClaimReading:
    alignment = assessment.alignment
    span = alignment.claims[claim]
    argument, similarity = None, 0.0
    if alignment.arguments:
        row = int(alignment.similarity[:, claim].argmax())
        argument, similarity = alignment.arguments[row], float(alignment.similarity[row, claim])
    inside = [w.score for w in judge.response_words if span.start <= w.start and w.end <= span.end]
    return ClaimReading(claim, span.text, verdict, similarity, argument, _highest(inside))


def _argument_reading(assessment: Assessment, row: int, flagged_rows: set[int], judge: DetectorResult):
    checked = assessment.checked
    claim = None
    if len(checked) and float(assessment.credited[row, checked].max()) >= 0:
        claim = int(checked[int(assessment.credited[row, checked].argmax())])
    key = assessment.alignment.arguments[row]
    words = [w.score for w in judge.argument_word_scores(*key)]
    return ArgumentReading(key, float(assessment.coverage[row]), claim, row in flagged_rows, _highest(words))


def _words(
    text: str, offset: int, scores: list[tuple[int, int, float]], other: Collection[str]
) -> tuple[tuple[tuple[str, float], ...], tuple[str, ...]]:
    """The highest-scored words of `text` (scores at offsets `offset` on), and the marked ones
    whose stem is not in `other`, highest first."""
    ranked = sorted(scores, key=lambda item: -item[2])
    stems = {(w.start, w.end): w.stem for w in DEFAULT_SEGMENTER.content_words(text)}
    top = tuple((text[start - offset : end - offset], score) for start, end, score in ranked[:TOP_WORDS])
    new = [
        text[start - offset : end - offset]
        for start, end, score in ranked
        if score >= MARKED and stems.get((start - offset, end - offset)) not in (None, *other)
    ]
    return top, tuple(dict.fromkeys(new))[:MAX_NEW_WORDS]


def account(
    example: Example, verdicts: Mapping[str, Verdict], judge: DetectorResult, assessment: Assessment
) -> dict[str, Account]:
    """Per error type, the verdict (`verdicts`, made from `judge`) beside the claim view's reading (`assessment`)."""
    alignment = assessment.alignment
    claim_verdicts = assessment.verdicts()
    misstated = tuple(misstatements(judge))
    found: dict[str, Account] = {}

    verdict = verdicts["hallucination"]
    piece = verdict.piece
    inside, elsewhere, words, new_words = [], [], (), ()
    for claim, claim_verdict in zip(alignment.claims, claim_verdicts):
        reading = _claim_reading(assessment, claim.index, claim_verdict, judge)
        if piece is not None and claim.start < piece.end and piece.start < claim.end:
            inside.append(reading)
        elif reading.flagged:
            elsewhere.append(reading)
    if piece is not None:
        scores = [(w.start, w.end, w.score) for w in judge.response_words if piece.start <= w.start < piece.end]
        given = frozenset().union(*(DEFAULT_SEGMENTER.content_stems(text) for _, _, text in example.arguments()))
        words, new_words = _words(piece.text, piece.start, scores, given)
    found["hallucination"] = Account(
        "hallucination",
        verdict,
        tuple(inside),
        None,
        tuple(elsewhere),
        words,
        new_words,
        assessment.settings.match,
        misstated,
    )

    verdict = verdicts["coverage"]
    piece = verdict.piece
    flagged_rows = {flag.argument for flag in assessment.flags() if flag.kind == COVERAGE_ERROR}
    argument, elsewhere, words, new_words = None, [], (), ()
    for row, key in enumerate(alignment.arguments):
        reading = _argument_reading(assessment, row, flagged_rows, judge)
        if piece is not None and key == (piece.perspective, piece.argument):
            argument = reading
        elif reading.flagged:
            elsewhere.append(reading)
    if piece is not None:
        scores = [(w.start, w.end, w.score) for w in judge.argument_word_scores(piece.perspective, piece.argument)]
        words, new_words = _words(piece.text, 0, scores, frozenset(DEFAULT_SEGMENTER.content_stems(example.response)))
    found["coverage"] = Account(
        "coverage", verdict, (), argument, tuple(elsewhere), words, new_words, assessment.settings.match, misstated
    )
    return found
