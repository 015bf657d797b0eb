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
seen here; the judge reads those. `details.FINDINGS` keeps, per turned argument, the piece that
turns it most surely and its turning words, as the meaning check keeps its misstatements: shown
as cards when the check is chosen. Not passed on by the stacked detector: on faithful answers
they are too often wrong (docs/development/models.md).
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
    kept = (details.FINDINGS.key,)

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        assessment = self.assess(example)
        alignment = assessment.alignment
        texts = {(p, a): text for p, a, text in example.arguments()}
        words = DEFAULT_SEGMENTER.content_words(example.response)
        word_scores = [0.0] * len(words)
        findings: dict[tuple[int, int], dict] = {}
        for c in assessment.checked:
            claim = alignment.claims[int(c)]
            for row in np.flatnonzero(alignment.similarity[:, c] >= STATES):
                key = alignment.arguments[int(row)]
                start, end = _closest_piece(claim.text, texts[key])
                turns = turned(claim.text[start:end], texts[key])
                if not turns:
                    continue
                score = float(min(1.0, alignment.similarity[row, c]))
                spans = [(claim.start + start + t.span[0], claim.start + start + t.span[1]) for t in turns]
                for span in spans:  # a negation, a stop word, marks the word it negates
                    for i in marked_words(words, *span, claim.span):
                        word_scores[i] = max(word_scores[i], score)
                if score > findings.get(key, {}).get("misstated", -1.0):
                    findings[key] = _finding(key, (claim.start + start, claim.start + end), score, turns, spans)
        units = [(w.start, w.end, score) for w, score in zip(words, word_scores)]
        errors = {key: findings[key]["misstated"] if key in findings else 0.0 for key in alignment.arguments}
        kept = {
            details.ALIGNMENT.key: alignment.to_dict(),
            details.FINDINGS.key: sorted(findings.values(), key=lambda f: -f["misstated"]),
        }
        return DetectorResult.from_units(self, example, units, errors, details=kept)


def _finding(key: tuple[int, int], piece: tuple[int, int], score: float, turns, spans) -> dict:
    """A misstatement as the meaning check writes one (`details.FINDINGS`): here `misstated` is the
    claim's closeness to the argument it turns, not a probability, and `how` names the turns."""
    return {
        "finding": "misstates",
        "by": PolarityDetector.name,
        "argument": list(key),
        "piece": list(piece),
        "misstated": score,
        "measure": "closeness",
        "how": sorted({t.kind for t in turns}),
        "turning": {"response": [[s, e, 1.0] for s, e in spans], "argument": []},
    }
