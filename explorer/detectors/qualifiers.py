"""Qualifier check: a given argument stated with more certainty than the argument has.

Chang et al. 2024 count *partial hallucination* among the ambiguous errors: the answer
states the argument but adds to it, often one word ("will" for "may", "guarantees", "the only
reliable"). Support detectors find such a sentence supported, as all its other words are given.
Not in the paper as a detector.

1. The tuned matcher's alignment (`semantic_tuned`'s claims and argument sentences) gives each
   checked claim the argument it states best, when its similarity reaches
   `explorer.detectors.ops.alignment.STATES`.
2. `explorer.text.qualifiers.strengthened` lists the claim's certainty words that argument does not
   license (an absolute whose family the argument does not use, or "will"/"would" where the
   argument hedges).
3. A claim with k such words scores `1 - 0.5 ** k`: one word .5, two .75.

Scores: `hallucination` is the highest claim score (every claim marks at least one word, so it is
also the highest word score); a perspective's coverage error the highest
score of a claim stating one of its arguments (the argument is there, its qualifier is not);
the strengthening words carry their claim's score (a stop word's, "only" or "will", goes to the word
it qualifies, the next content word), every other word 0, so the word view points at "guarantees"
itself; an argument's words carry the score of the claim that strengthens it.
"""

from __future__ import annotations

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import DetectorResult, Progress
from explorer.detectors.ops.alignment import STATES
from explorer.detectors.semantic_tuned import SemanticTunedDetector
from explorer.text.claims import Span
from explorer.text.qualifiers import strengthened
from explorer.text.words import DEFAULT_SEGMENTER


def claim_score(count: int) -> float:
    """A claim's score from how many certainty words it adds: 0, .5, .75, ..."""
    return 1.0 - 0.5**count


def marked_words(words, start: int, end: int, claim: Span) -> list[int]:
    """Indices of the content words a certainty word at [start, end) marks: itself when it is one
    ("guarantees"), else the content word it qualifies, the next one in its claim ("only" ->
    "reliable", "will" -> "help"), or the one before it when it ends the claim ("... it will.")."""
    inside = [i for i, w in enumerate(words) if w.start < end and start < w.end]
    if inside:
        return inside
    after = [i for i, w in enumerate(words) if end <= w.start and w.end <= claim[1]]
    before = [i for i, w in enumerate(words) if claim[0] <= w.start and w.end <= start]
    return after[:1] or before[-1:]


class QualifierDetector(SemanticTunedDetector):
    name = "qualifiers"
    title = "Qualifier check (tuned matcher)"
    version = "1"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        assessment = self.assess(example)
        alignment = assessment.alignment
        texts = {(p, a): text for p, a, text in example.arguments()}
        words = DEFAULT_SEGMENTER.content_words(example.response)
        word_scores = [0.0] * len(words)
        by_argument: dict[tuple[int, int], float] = {}
        support, best = alignment.raw_support, alignment.raw_best_argument
        for c in assessment.checked:
            if support[c] < STATES:
                continue
            claim, key = alignment.claims[int(c)], alignment.arguments[int(best[c])]
            found = strengthened(claim.text, texts[key])
            if not found:
                continue
            score = claim_score(len(found))
            by_argument[key] = max(by_argument.get(key, 0.0), score)
            for item in found:
                for i in marked_words(words, claim.start + item.span[0], claim.start + item.span[1], claim.span):
                    word_scores[i] = max(word_scores[i], score)
        units = [(w.start, w.end, score) for w, score in zip(words, word_scores)]
        errors = {key: by_argument.get(key, 0.0) for key in alignment.arguments}
        return DetectorResult.from_units(
            self, example, units, errors, details={details.ALIGNMENT.key: alignment.to_dict()}
        )
