"""Matching check: each argument paired with its own piece of the response, one to one.

A coverage detector that takes each argument's best match over the response finds an argument
covered when a sentence resembles it, even when that sentence already states another argument
closer to it: an argument added to the input that the answer never states ("World hunger can be
fixed by going vegetarian" beside a stated "Vegetarianism will not end hunger") borrows its
neighbour's statement. A faithful answer states each argument once, so here no piece of the
response may state two arguments. Not in the paper as a detector.

1. The response is cut finer than claims (`explorer.text.claims.piece_spans`: at every comma,
   semicolon, colon and "and that"), so that a sentence listing three arguments ("note that X,
   that Y and that Z") gives three pieces.
2. The tuned matcher (`explorer.models.matcher`) embeds the pieces and each argument's sentences;
   an argument's similarity to a piece is its best sentence's.
3. Arguments and pieces are paired one to one so that the pairs' similarities add up to the most
   (the assignment problem: `explorer.detectors.ops.alignment.pair`); pieces left over are framing,
   lead-ins or content no argument gives, which this check does not judge.

Scores: an argument's coverage error is `1 - max(0, similarity)` to its piece, 1 when the answer
has fewer pieces than arguments; a perspective's is its worst argument's. No hallucination signal
(0 everywhere): a piece left over is as often framing as invented content.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.ops.alignment import TooLongError, argument_units, fitted, pair, texts_of_units
from explorer.detectors.semantic_tuned import tuned_encoder
from explorer.models.encoder import SentenceEncoder
from explorer.text.claims import Span, piece_spans


class MatchingDetector(Detector):
    name = "matching"
    title = "Matching check (tuned matcher)"
    version = "1"

    def __init__(self, *, encoder: SentenceEncoder | None = None, adapter_dir: str | Path | None = None):
        self.encoder = encoder or tuned_encoder(adapter_dir)

    def model_identity(self) -> str:
        return self.encoder.identity()

    def _texts(self, example: Example) -> tuple[list[Span], list, list[str], list[str]]:
        """The response's pieces, the arguments' sentence units, and the texts of both."""
        try:
            pieces = fitted(self.encoder, example.response, piece_spans(example.response))
            units = [u for u in argument_units(example, self.encoder) if u.is_sentence]
        except TooLongError as error:
            raise DetectorError(str(error)) from error
        return pieces, units, [example.response[s:e] for s, e in pieces], texts_of_units(example, units)

    def prepare(self, examples: Sequence[Example]) -> None:
        texts: list[str] = []
        for example in examples:
            try:
                _, _, piece_texts, unit_texts = self._texts(example)
            except DetectorError:
                continue  # refused again, with its reason, when scored
            texts += piece_texts + unit_texts
        self.encoder.encode(texts)

    def similarities(self, example: Example) -> tuple[list[Span], list[tuple[int, int]], np.ndarray]:
        """The response's pieces, the arguments as (perspective, argument), and each argument's
        similarity to each piece (its best sentence's; -1 where there is nothing to compare)."""
        pieces, units, piece_texts, unit_texts = self._texts(example)
        arguments = [(p, a) for p, a, _ in example.arguments()]
        row_of = {key: r for r, key in enumerate(arguments)}
        similarity = np.full((len(arguments), len(pieces)), -1.0)
        if pieces and units:
            unit_similarity = self.encoder.encode(unit_texts) @ self.encoder.encode(piece_texts).T
            for unit, row in zip(units, unit_similarity):
                r = row_of[(unit.perspective, unit.argument)]
                similarity[r] = np.maximum(similarity[r], row)
        return pieces, arguments, similarity

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        pieces, arguments, similarity = self.similarities(example)
        columns = pair(similarity)  # no pieces: every argument unpaired (-1)
        matched = np.array([similarity[r, c] if c >= 0 else -1.0 for r, c in enumerate(columns)])
        errors = 1.0 - np.clip(matched, 0.0, 1.0)
        return DetectorResult.from_units(
            self, example, [(s, e, 0.0) for s, e in pieces], {key: float(err) for key, err in zip(arguments, errors)}
        )
