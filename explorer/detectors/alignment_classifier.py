"""Alignment classifier: a logistic regression trained on synthetic errors that reads the
semantic alignment (`explorer.alignment_classifier` describes the model). Scores:

- `hallucination`: the highest P(unsupported) of a claim of the response;
- `per_perspective[name]`: the highest P(dropped) of the perspective's arguments;
  `coverage`: the highest over perspectives (the paper's min-over-perspectives rule);
- words: a response word takes its claim's P(unsupported), an argument word its argument's
  P(dropped).

The trained models ship in the package (`explorer/resources/alignment_classifier/`); one the
user trained (`explorer train --method alignment_classifier`) for the same encoder comes first.
"""

from __future__ import annotations

from explorer import alignment_classifier, training_data
from explorer.alignment import TooLongError, align
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.embeddings import SentenceEncoder, shared_encoder
from explorer.example import Example


class AlignmentClassifierDetector(Detector):
    name = "alignment_classifier"
    title = "Alignment classifier"
    version = "1"
    response_word_meaning = "P(the word's claim states something the arguments do not), learned"
    argument_word_meaning = "P(the word's argument is dropped from the response), learned"

    def __init__(self, *, encoder: SentenceEncoder | None = None, encoder_path: str | None = None):
        self.encoder = encoder or shared_encoder(encoder_path)
        try:
            self.models = {
                task: alignment_classifier.load(alignment_classifier.find_model(self.encoder.identity(), task))
                for task in training_data.TASKS
            }
        except training_data.TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error

    def config(self) -> dict:
        return {
            task: {"weights": list(model.weights), "intercept": model.intercept} for task, model in self.models.items()
        }

    def model_identity(self) -> str:
        return self.encoder.identity()

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        try:
            alignment = align(example, self.encoder)
        except TooLongError as error:
            raise DetectorError(str(error)) from error
        unsupported, dropped = (
            self.models[task].p_error(alignment_classifier.features(example, alignment, task))
            for task in training_data.TASKS
        )
        return DetectorResult.from_units(
            self,
            example,
            [(claim.start, claim.end, float(p)) for claim, p in zip(alignment.claims, unsupported)],
            {key: float(p) for key, p in zip(alignment.arguments, dropped)},
        )
