"""The alignment classifier retrained on Perspectrum-built examples with the tuned matcher's
alignment (`explorer.training.tuned_alignment_classifier`); scores as `alignment_classifier`."""

from __future__ import annotations

from pathlib import Path

from explorer.detectors.alignment_classifier import AlignmentClassifierDetector
from explorer.detectors.semantic_tuned import tuned_encoder
from explorer.models.encoder import SentenceEncoder


class AlignmentClassifierTunedDetector(AlignmentClassifierDetector):
    name = "alignment_classifier_tuned"
    title = "Alignment classifier (tuned matcher)"
    version = "1"

    def __init__(self, *, encoder: SentenceEncoder | None = None, adapter_dir: str | Path | None = None):
        self.encoder = encoder or tuned_encoder(adapter_dir)
        self.models = self.trained_models()
