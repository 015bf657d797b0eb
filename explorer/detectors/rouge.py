"""ROUGE-1 detector (Chang et al. 2024, §3.1 and §5.3).

Unigram overlap on content words (stop words dropped, Porter stems), with clipped counts as in
Lin (2004) and Google's `rouge_score`:

    P   = |response ∩ all arguments| / |response|         hallucination = 1 - P
    R_p = |response ∩ arguments of perspective p| / |p|   coverage = 1 - min_p R_p

Word level (§5.3): a response word scores 1 when its stem occurs in no argument, an argument
word scores 1 when its stem does not occur in the response, else 0.

Where the paper is silent: a response without content words has nothing unsupported (P = 1);
a perspective without content words has nothing to cover (R = 1).
"""

from __future__ import annotations

from collections import Counter

from explorer.data.example import Example
from explorer.detectors.base import ArgumentWordScore, Detector, DetectorResult, Progress, ResponseWordScore
from explorer.text.words import DEFAULT_SEGMENTER, Segmenter


def _clipped_overlap(candidate: Counter, reference: Counter) -> int:
    return sum(min(count, reference[stem]) for stem, count in candidate.items())


class RougeDetector(Detector):
    name = "rouge"
    version = "2"  # 2: soft hyphens and zero-width joiners no longer split words
    cache_results = False

    def __init__(self, segmenter: Segmenter = DEFAULT_SEGMENTER):
        self.segmenter = segmenter

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        response_words = self.segmenter.content_words(example.response)
        argument_words = {(p, a): self.segmenter.content_words(text) for p, a, text in example.arguments()}
        argument_stems = {(p, a): self.segmenter.content_stems(text) for p, a, text in example.arguments()}
        response_stems = self.segmenter.content_stems(example.response)
        all_argument_stems = sum(argument_stems.values(), Counter())

        precision = (
            _clipped_overlap(response_stems, all_argument_stems) / len(response_words) if response_words else 1.0
        )
        per_perspective = {}
        for p, perspective in enumerate(example.perspectives):
            stems = sum((found for (q, _), found in argument_stems.items() if q == p), Counter())
            count = stems.total()
            recall = _clipped_overlap(stems, response_stems) / count if count else 1.0
            per_perspective[perspective.name] = 1.0 - recall

        return DetectorResult(
            detector=self.name,
            hallucination=1.0 - precision,
            coverage=max(per_perspective.values()),
            per_perspective=per_perspective,
            response_words=tuple(
                ResponseWordScore(w.start, w.end, 0.0 if w.stem in all_argument_stems else 1.0) for w in response_words
            ),
            argument_words=tuple(
                ArgumentWordScore(p, a, w.start, w.end, 0.0 if w.stem in response_stems else 1.0)
                for (p, a), words in argument_words.items()
                for w in words
            ),
            info=self.info(),
        )
