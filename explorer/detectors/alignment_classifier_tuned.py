"""The alignment classifier retrained on Perspectrum-built examples with the tuned matcher's
alignment (`explorer.training.tuned_alignment_classifier`); scores as `alignment_classifier`."""

from __future__ import annotations

from pathlib import Path

from explorer import alignment_classifier, training_data
from explorer.detectors.alignment_classifier import AlignmentClassifierDetector
from explorer.detectors.base import DetectorError
from explorer.embeddings import SentenceEncoder
from explorer.models.matcher import MatcherNotFoundError, shared_matcher_encoder

SHIPPED = Path(__file__).resolve().parents[1] / "resources" / "alignment_classifier_tuned"


class AlignmentClassifierTunedDetector(AlignmentClassifierDetector):
    name = "alignment_classifier_tuned"
    title = "Alignment classifier (tuned matcher)"
    version = "1"

    def __init__(self, *, encoder: SentenceEncoder | None = None, adapter_dir: str | Path | None = None):
        try:
            self.encoder = encoder or shared_matcher_encoder(adapter_dir)
            self.models = {
                task: alignment_classifier.load(
                    training_data.find_trained(alignment_classifier.METHOD, self.encoder.identity(), task, SHIPPED)
                )
                for task in training_data.TASKS
            }
        except (training_data.TrainedNotFoundError, MatcherNotFoundError) as error:
            raise DetectorError(str(error)) from error
