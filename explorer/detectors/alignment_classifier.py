"""Alignment classifier: a logistic regression trained on synthetic errors that reads the
semantic alignment (`explorer.training.logistic` describes the model). Scores:

- `hallucination`: the highest P(unsupported) of a claim of the response;
- `per_perspective[name]`: the highest P(dropped) of the perspective's arguments;
  `coverage`: the highest over perspectives (the paper's min-over-perspectives rule);
- words: a response word takes its claim's P(unsupported), an argument word its argument's
  P(dropped).

The trained models ship in the package (`explorer/resources/alignment_classifier/`); one the
user trained (`explorer train --detector alignment_classifier`) for the same encoder comes first.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.ops.alignment import Alignment, TooLongError, align, encode_ahead
from explorer.detectors.ops.logistic_head import LogisticHead
from explorer.models.encoder import SentenceEncoder, shared_encoder
from explorer.models.trained import TrainedNotFoundError
from explorer.text.words import DEFAULT_SEGMENTER


class AlignmentClassifierDetector(Detector):
    name = "alignment_classifier"
    version = "2"  # 2: each text encoded alone, so an example's scores depend on it alone

    def __init__(self, *, encoder: SentenceEncoder | None = None, encoder_path: str | None = None):
        self.encoder = encoder or shared_encoder(encoder_path)
        self.models = self.trained_models()

    def trained_models(self) -> dict[str, LogisticHead]:
        """Each error type's model trained on this encoder (the registry's `weights` of this detector)."""
        from explorer.detectors import weights

        try:
            return {
                error_type: load(weights(self.name).find(self.encoder.identity(), error_type))
                for error_type in ERROR_TYPES
            }
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error

    def config(self) -> dict:
        return {
            error_type: {"weights": list(model.weights), "intercept": model.intercept}
            for error_type, model in self.models.items()
        }

    def model_identity(self) -> str:
        return self.encoder.identity()

    def prepare(self, examples: Sequence[Example]) -> None:
        encode_ahead(examples, self.encoder)

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        try:
            alignment = align(example, self.encoder)
        except TooLongError as error:
            raise DetectorError(str(error)) from error
        unsupported, dropped = (
            self.models[error_type].p_error(features(example, alignment, error_type)) for error_type in ERROR_TYPES
        )
        return DetectorResult.from_units(
            self,
            example,
            [(claim.start, claim.end, float(p)) for claim, p in zip(alignment.claims, unsupported)],
            {key: float(p) for key, p in zip(alignment.arguments, dropped)},
        )


FEATURES = {
    "hallucination": (
        "best argument similarity",
        "query similarity",
        "stems in the arguments",
        "stems in the best argument",
        "log content words",
        "opens or closes the response",
    ),
    "coverage": (
        "best claim similarity",
        "stems in the response",
        "stems in the best claim",
        "log content words",
    ),
}


def _share(stems: frozenset[str], found_in: frozenset[str]) -> float:
    """Share of `stems` in `found_in`; a unit without content words counts as found."""
    return len(stems & found_in) / len(stems) if stems else 1.0


def features(example: Example, alignment: Alignment, error_type: str) -> np.ndarray:
    """One row per unit (claims for hallucination, arguments for coverage), columns `FEATURES[error_type]`."""
    arguments = [frozenset(DEFAULT_SEGMENTER.content_stems(text)) for _, _, text in example.arguments()]
    claims = [frozenset(DEFAULT_SEGMENTER.content_stems(claim.text)) for claim in alignment.claims]
    if error_type == "hallucination":
        everything = frozenset().union(*arguments)
        last = len(claims) - 1
        rows = [
            [
                alignment.raw_support[c],
                alignment.query_similarity[c],
                _share(stems, everything),
                max((_share(stems, argument) for argument in arguments), default=0.0),
                np.log1p(len(stems)),
                float(c in (0, last)),
            ]
            for c, stems in enumerate(claims)
        ]
    else:
        response = frozenset(DEFAULT_SEGMENTER.content_stems(example.response))
        rows = [
            [
                alignment.similarity[row].max() if claims else -1.0,
                _share(stems, response),
                max((_share(stems, claim) for claim in claims), default=0.0),
                np.log1p(len(stems)),
            ]
            for row, stems in enumerate(arguments)
        ]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES[error_type]))


def load(directory: Path) -> LogisticHead:
    model = LogisticHead.load(directory)
    if model.features != FEATURES[model.error_type]:
        raise ValueError(f"{directory} was trained on other features ({', '.join(model.features)}); retrain it")
    return model
