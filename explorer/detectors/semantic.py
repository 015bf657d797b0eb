"""Semantic alignment detector: claims and argument sentences compared by sentence embeddings.

Not one of the paper's three detectors (Chang et al. 2024 use ROUGE-1, salience and a
prompt-tuned classifier); it replaces word overlap with meaning, in the paper's frame:

- the response is split into claims (sentences, and clauses where a sentence joins several
  arguments: `explorer.detectors.ops.alignment.align`) and each argument into its sentences;
- all-MiniLM-L6-v2 (the packaged copy, offline) embeds both, and the cosine similarity fills
  an argument x claim matrix (best sentence of the argument per cell);
- a claim's support is its best match over arguments, an argument's coverage its best match
  over claims; errors are `1 - max(0, similarity)`;
- example level, like the paper's ROUGE-1 (§3.1): hallucination pools the claims' errors,
  a perspective's coverage error pools its arguments' errors, and the example's coverage
  error is the worst perspective's (the paper's min over perspectives of a coverage score).
  The pool (mean or max) is a setting; the defaults were chosen on the sample data's train
  split (`bench/tune_semantic.py`).

Word level: a response word takes its claim's error; an argument word the error of the
smallest evidence unit holding it (a clause where the sentence has several, else the
sentence) against its best-matching claim, so a half-voiced argument shows which half is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.ops.alignment import Alignment, Settings, TooLongError, align, encode_ahead
from explorer.detectors.ops.assessment import Assessment, assess
from explorer.models.encoder import SentenceEncoder, shared_encoder
from explorer.text.words import DEFAULT_SEGMENTER

POOLS: dict[str, Callable[[np.ndarray], float]] = {"mean": np.mean, "max": np.max}


def errors(similarities: np.ndarray) -> np.ndarray:
    """Error scores in [0, 1] from cosine similarities: `1 - max(0, similarity)`."""
    return 1.0 - np.clip(similarities, 0.0, 1.0)


class SemanticDetector(Detector):
    name = "semantic"
    # 2: soft hyphens and zero-width joiners no longer split words; 3: each text encoded alone,
    # so an example's scores no longer depend on the texts encoded with it
    version = "3"

    def __init__(
        self,
        *,
        encoder: SentenceEncoder | None = None,
        encoder_path: str | None = None,
        settings: Settings | None = None,
        claim_pool: str = "max",
        argument_pool: str = "max",
    ):
        for setting, value in (("claim_pool", claim_pool), ("argument_pool", argument_pool)):
            if value not in POOLS:
                raise ValueError(f"{setting} must be one of {', '.join(POOLS)}, got {value!r}")
        self.encoder = encoder or shared_encoder(encoder_path)
        self.settings = settings or Settings()
        self.claim_pool = claim_pool
        self.argument_pool = argument_pool

    def config(self) -> dict:
        return {
            "settings": self.settings.to_dict(),
            "claim_pool": self.claim_pool,
            "argument_pool": self.argument_pool,
        }

    def model_identity(self) -> str:
        return self.encoder.identity()

    def prepare(self, examples: Sequence[Example]) -> None:
        encode_ahead(examples, self.encoder)

    def align(self, example: Example) -> Alignment:
        try:
            return align(example, self.encoder, self.settings)
        except TooLongError as error:
            raise DetectorError(str(error)) from error

    def assess(self, example: Example) -> Assessment:
        return assess(self.align(example), self.settings)

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        assessment = self.assess(example)
        alignment = assessment.alignment
        checked = assessment.checked
        claim_errors = errors(assessment.support)
        argument_errors = errors(assessment.coverage)
        hallucination = float(POOLS[self.claim_pool](claim_errors[checked])) if len(checked) else 0.0
        per_perspective = {}
        for p, perspective in enumerate(example.perspectives):
            rows = [r for r, (q, _) in enumerate(alignment.arguments) if q == p]
            per_perspective[perspective.name] = float(POOLS[self.argument_pool](argument_errors[rows])) if rows else 0.0

        # Framing claims are not checked, so their words carry no score.
        response_words = tuple(
            ResponseWordScore(claim.start + word.start, claim.start + word.end, float(claim_errors[claim.index]))
            for claim in (alignment.claims[c] for c in checked)
            for word in DEFAULT_SEGMENTER.content_words(claim.text)
        )
        return DetectorResult(
            detector=self.name,
            hallucination=hallucination,
            coverage=max(per_perspective.values()),
            per_perspective=per_perspective,
            response_words=response_words,
            argument_words=self._argument_words(example, assessment),
            info=self.info(),
            details={details.ALIGNMENT.key: alignment.to_dict()},
        )

    def _argument_words(self, example: Example, assessment: Assessment) -> tuple[ArgumentWordScore, ...]:
        """Each content word of an argument scored by the smallest evidence unit holding it.

        A unit's score is its best similarity to a claim the argument may credit (claims in
        another perspective's part, framing claims and claims that restate it do not count).
        """
        alignment = assessment.alignment
        row_of = {key: row for row, key in enumerate(alignment.arguments)}
        scores = []
        for p, a, text in example.arguments():
            row = row_of[(p, a)]
            credited_claims = np.flatnonzero(assessment.credited[row] > -1.0)
            units = alignment.units_of(p, a)
            for word in DEFAULT_SEGMENTER.content_words(text):
                holding = [
                    u for u in units if alignment.units[u].start <= word.start <= word.end <= alignment.units[u].end
                ]
                if not holding:
                    continue
                unit = min(holding, key=lambda u: alignment.units[u].end - alignment.units[u].start)
                best = alignment.unit_similarity[unit, credited_claims].max() if len(credited_claims) else 0.0
                scores.append(ArgumentWordScore(p, a, word.start, word.end, float(errors(np.float32(best)))))
        return tuple(scores)


def alignment_of(result: DetectorResult, example: Example) -> Alignment:
    """The alignment a semantic result was computed from (stored in its details)."""
    return Alignment.from_dict(details.ALIGNMENT.of(result), example.response)


def assessment_of(result: DetectorResult, example: Example) -> Assessment:
    """The reading a semantic result was computed from, with the settings it recorded."""
    return assess(alignment_of(result, example), Settings(**result.info["config"]["settings"]))
