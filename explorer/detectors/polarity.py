"""Polarity check: a given argument stated with its meaning turned by a negation or an opposite word.

"This system decreases voter engagement" is as close to the argument "Increasing voter
engagement" as a faithful paraphrase is, so every detector built on closeness finds it stated.
Not in the paper as a detector; the rule-based twin of the meaning check's judge
(`explorer.detectors.meaning`), which reads the same pairs with a model.

1. The tuned matcher's alignment (`semantic_tuned`'s claims and argument sentences) gives each
   checked claim the arguments it may state: those whose similarity to it reaches
   `explorer.detectors.ops.alignment.STATES` (a sentence often states two).
2. Of the claim's pieces (`explorer.text.claims.piece_spans`: cut at commas, semicolons and "and
   that"), the one sharing most of the argument's content words stands for it, so that a
   negation in a clause stating another argument is not read against this one;
   `explorer.text.polarity.turned` lists that piece's words that turn the argument: a negation
   one of the two lacks, an opposite word ("decreases" for "increasing", "minority" for
   "majority"), counted so that two turns cancel ("does not respect" for "violates").
3. A turned claim scores its similarity to the argument: the closer the rest of it, the surer
   that it is this argument, turned.

Scores: `hallucination` is the highest claim score; a perspective's coverage error the highest
score of a claim turning one of its arguments (the argument is not stated with its meaning); the
turning words carry their claim's score, every other word 0; an argument's words carry the
score of the claim that turns it. Roles or cause and effect swapped keep every word and are not
seen here; the judge reads those.
"""

from __future__ import annotations

import numpy as np

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import DetectorResult, Progress
from explorer.detectors.ops.alignment import STATES
from explorer.detectors.qualifiers import marked_words
from explorer.detectors.semantic_tuned import SemanticTunedDetector
from explorer.text.claims import piece_spans
from explorer.text.polarity import turned
from explorer.text.words import DEFAULT_SEGMENTER


def _closest_piece(claim: str, argument: str) -> tuple[int, int]:
    """The piece of `claim` sharing most of the argument's content stems (the whole claim when it
    has one piece)."""
    wanted = DEFAULT_SEGMENTER.content_stems(argument)
    return max(
        piece_spans(claim) or ((0, len(claim)),),
        key=lambda span: sum((DEFAULT_SEGMENTER.content_stems(claim[span[0] : span[1]]) & wanted).values()),
    )


class PolarityDetector(SemanticTunedDetector):
    name = "polarity"
    title = "Polarity check (tuned matcher)"
    version = "1"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        assessment = self.assess(example)
        alignment = assessment.alignment
        texts = {(p, a): text for p, a, text in example.arguments()}
        words = DEFAULT_SEGMENTER.content_words(example.response)
        word_scores = [0.0] * len(words)
        by_argument: dict[tuple[int, int], float] = {}
        for c in assessment.checked:
            claim = alignment.claims[int(c)]
            for row in np.flatnonzero(alignment.similarity[:, c] >= STATES):
                key = alignment.arguments[int(row)]
                start, end = _closest_piece(claim.text, texts[key])
                turns = turned(claim.text[start:end], texts[key])
                if not turns:
                    continue
                score = float(min(1.0, alignment.similarity[row, c]))
                by_argument[key] = max(by_argument.get(key, 0.0), score)
                for turn in turns:  # a negation, a stop word, marks the word it negates
                    span = (claim.start + start + turn.span[0], claim.start + start + turn.span[1])
                    for i in marked_words(words, *span, claim.span):
                        word_scores[i] = max(word_scores[i], score)
        units = [(w.start, w.end, score) for w, score in zip(words, word_scores)]
        errors = {key: by_argument.get(key, 0.0) for key in alignment.arguments}
        return DetectorResult.from_units(
            self, example, units, errors, details={details.ALIGNMENT.key: alignment.to_dict()}
        )
