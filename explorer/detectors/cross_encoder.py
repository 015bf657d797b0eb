"""Cross-encoder detector: all-MiniLM-L6-v2 with LoRA adapters trained on synthetic errors.

A learned alternative to the prompt-tuned classifier (`classifier`), trained on the same data
(`explorer train --method cross_encoder`); see `explorer.cross_encoder` for the model. Scores:

- `hallucination`: the highest P(unsupported) of a response sentence given all arguments;
- `per_perspective[name]`: the highest P(uncovered) of the perspective's arguments given the
  response; `coverage`: the highest over perspectives (the paper's min-over-perspectives rule);
- words: a response word takes its sentence's P(unsupported), an argument word its argument's
  P(uncovered).

The adapters ship in the package; one the user trained (in the cache) for the same encoder comes
first. About 20 sentence and argument pairs an example, 1-2 s on one CPU thread; results are
kept in memory per example, so the app's reruns do not recompute them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from explorer import cross_encoder, training_data
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.embeddings import default_model_path
from explorer.example import Example


class CrossEncoderDetector(Detector):
    name = "cross_encoder"
    title = "Cross-encoder (MiniLM)"
    version = "1"
    response_word_meaning = "P(the word's sentence is not backed by the arguments)"
    argument_word_meaning = "P(the word's argument is not stated in the response)"
    remembered = 256

    def __init__(self, *, encoder_path: str | Path | None = None):
        path = Path(encoder_path) if encoder_path else default_model_path()
        identity = cross_encoder.encoder_identity(path)
        try:
            adapters = {task: cross_encoder.find_adapter(identity, task) for task in training_data.TASKS}
        except training_data.TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.model = cross_encoder.CrossEncoder(adapters, path)
        self._results: OrderedDict[str, DetectorResult] = OrderedDict()
        self._lock = threading.Lock()

    def config(self) -> dict:
        return {"adapters": dict(self.model.digests)}

    def model_identity(self) -> str:
        adapters = ",".join(f"{task}:{digest[:16]}" for task, digest in sorted(self.model.digests.items()))
        return f"{self.model.identity}+adapters({adapters})"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        key = example.content_hash()
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
        result = self._score(example)
        with self._lock:
            self._results[key] = result
            while len(self._results) > self.remembered:
                self._results.popitem(last=False)
        return result

    def _score(self, example: Example) -> DetectorResult:
        try:
            sentences = cross_encoder.units(example, "hallucination")
            arguments = cross_encoder.units(example, "coverage")
            unsupported = self.model.p_error(sentences, "hallucination")
            uncovered = self.model.p_error(arguments, "coverage")
        except cross_encoder.PairTooLongError as error:
            raise DetectorError(str(error)) from error
        return DetectorResult.from_units(
            self,
            example,
            [(unit.key[1], unit.key[2], float(value)) for unit, value in zip(sentences, unsupported)],
            {unit.key[1:]: float(value) for unit, value in zip(arguments, uncovered)},
        )
