"""Semantic alignment with the tuned argument matcher as its encoder.

The same detector as `semantic` (claims and argument sentences compared by cosine similarity;
same settings and pools), with all-MiniLM-L6-v2 + the LoRA adapter of `explorer.training.matcher`
(fine-tuned on ArgKP train's argument / key point matches) in place of the plain MiniLM.
"""

from __future__ import annotations

from pathlib import Path

from explorer.detectors.base import DetectorError
from explorer.detectors.semantic import SemanticDetector
from explorer.models.encoder import SentenceEncoder
from explorer.models.matcher import MatcherNotFoundError, shared_matcher_encoder


def tuned_encoder(adapter_dir: str | Path | None = None) -> SentenceEncoder:
    """The shared tuned-matcher encoder; `DetectorError` when no adapter is found."""
    try:
        return shared_matcher_encoder(adapter_dir)
    except MatcherNotFoundError as error:
        raise DetectorError(str(error)) from error


class SemanticTunedDetector(SemanticDetector):
    name = "semantic_tuned"
    title = "Semantic alignment (tuned matcher)"
    version = "1"

    def __init__(self, *, encoder: SentenceEncoder | None = None, adapter_dir: str | Path | None = None, **options):
        super().__init__(encoder=encoder or tuned_encoder(adapter_dir), **options)
