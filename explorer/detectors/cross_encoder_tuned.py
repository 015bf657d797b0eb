"""The cross-encoder retrained on Perspectrum-built examples (`explorer.training.tuned_cross_encoder`):
the same model and scores as `cross_encoder`, with adapters learned from human paraphrases."""

from __future__ import annotations

from explorer.detectors.cross_encoder import CrossEncoderDetector


class CrossEncoderTunedDetector(CrossEncoderDetector):
    name = "cross_encoder_tuned"
    version = "1"
