"""The alignment classifier retrained on Perspectrum-built examples with the tuned matcher's
alignment (`explorer.training.tuned_alignment_classifier`); scores as `alignment_classifier`."""

from __future__ import annotations

from pathlib import Path

from explorer.detectors.alignment_classifier import AlignmentClassifierDetector
from explorer.detectors.base import DetectorError
from explorer.models.encoder import SentenceEncoder
from explorer.models.matcher import MatcherNotFoundError, shared_matcher_encoder


class AlignmentClassifierTunedDetector(AlignmentClassifierDetector):
    name = "alignment_classifier_tuned"
    title = "Alignment classifier (tuned matcher)"
    version = "1"

    def __init__(self, *, encoder: SentenceEncoder | None = None, adapter_dir: str | Path | None = None):
        try:
            self.encoder = encoder or shared_matcher_encoder(adapter_dir)
        except MatcherNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.models = self.trained_models()
