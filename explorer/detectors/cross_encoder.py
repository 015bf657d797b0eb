"""Cross-encoder detector: all-MiniLM-L6-v2 with LoRA adapters trained on synthetic errors.

A learned alternative to the prompt-tuned classifier (`classifier`), trained on the same data
(`explorer train --detector cross_encoder`); see `explorer.training.cross_encoder` for the model. Scores:

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.ops.recent import RecentResults
from explorer.models.encoder import default_model_path, encoder_identity, load_pair_classifier
from explorer.models.identity import folder_digest
from explorer.models.trained import TrainedNotFoundError
from explorer.text.claims import sentence_spans
from explorer.text.prompts import curly_braces_arguments


class CrossEncoderDetector(Detector):
    name = "cross_encoder"
    version = "1"
    remembered = 256

    def __init__(self, *, encoder_path: str | Path | None = None):
        from explorer.detectors import weights

        path = Path(encoder_path) if encoder_path else default_model_path()
        identity = encoder_identity(path)
        try:
            adapters = {error_type: weights(self.name).find(identity, error_type) for error_type in ERROR_TYPES}
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.model = CrossEncoder(adapters, path)
        self._recent = RecentResults(self.remembered)

    def config(self) -> dict:
        return {"adapters": dict(self.model.digests)}

    def model_identity(self) -> str:
        adapters = ",".join(f"{error_type}:{digest[:16]}" for error_type, digest in sorted(self.model.digests.items()))
        return f"{self.model.identity}+adapters({adapters})"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        return self._recent.get(example, self._score)

    def _score(self, example: Example) -> DetectorResult:
        try:
            sentences = units(example, "hallucination")
            arguments = units(example, "coverage")
            unsupported = self.model.p_error(sentences, "hallucination")
            uncovered = self.model.p_error(arguments, "coverage")
        except PairTooLongError as error:
            raise DetectorError(str(error)) from error
        return DetectorResult.from_units(
            self,
            example,
            [(unit.key[1], unit.key[2], float(value)) for unit, value in zip(sentences, unsupported)],
            {unit.key[1:]: float(value) for unit, value in zip(arguments, uncovered)},
        )


class PairTooLongError(ValueError):
    def __init__(self, tokens: int, limit: int, what: str):
        super().__init__(
            f"{what} and its context are {tokens} word pieces together, more than the cross-encoder's "
            f"{limit}; they are not truncated: shorten the response or the arguments"
        )


@dataclass(frozen=True)
class Unit:
    """One scored piece of an example: a response sentence or an argument, with its context."""

    text: str
    context: str
    key: tuple  # ("sentence", start, end) or ("argument", perspective, argument)


def units(example: Example, error_type: str) -> list[Unit]:
    if error_type == "hallucination":
        arguments = curly_braces_arguments(example).text
        return [
            Unit(example.response[start:end], arguments, ("sentence", start, end))
            for start, end in sentence_spans(example.response)
        ]
    return [Unit(text, example.response, ("argument", p, a)) for p, a, text in example.arguments()]


def adapter_digest(directory: Path) -> str:
    """Every file of the adapter folder (weights and `adapter_config.json`): part of the cache key."""
    return folder_digest(Path(directory))


class CrossEncoder:
    """The encoder with one trained adapter per error type (PEFT adapters named by error type)."""

    def __init__(
        self,
        adapter_dirs: Mapping[str, Path],
        model_path: Path | None = None,
        *,
        batch_size: int = 16,
        threads: int | None = 1,
    ):
        from peft import PeftModel

        self.model_path = Path(model_path) if model_path else default_model_path()
        self.tokenizer, base = load_pair_classifier(self.model_path)
        self.limit = int(base.config.max_position_embeddings)
        self.batch_size = batch_size
        # One thread, as for the sentence encoder (`explorer.models.encoder`): two were slower on
        # the shared 2-core machines this project runs on.
        self.threads = threads
        self.identity = encoder_identity(self.model_path)
        self.digests = {error_type: adapter_digest(directory) for error_type, directory in adapter_dirs.items()}
        model = None
        for error_type, directory in adapter_dirs.items():
            if model is None:
                model = PeftModel.from_pretrained(base, directory, adapter_name=error_type)
            else:
                model.load_adapter(directory, adapter_name=error_type)
        self.model = model.eval()
        self._lock = threading.Lock()  # the active adapter is state shared by all callers

    def p_error(self, items: Sequence[Unit], error_type: str) -> np.ndarray:
        """P(error) of each unit, shape (len(items),)."""
        if not items:
            return np.zeros(0)
        encoded = encode(self.tokenizer, items, self.limit)
        with self._lock, torch.no_grad():
            previous = torch.get_num_threads()
            if self.threads:
                torch.set_num_threads(self.threads)
            try:
                self.model.set_adapter(error_type)
                batches = range(0, len(encoded), self.batch_size)
                return np.concatenate(
                    [pair_p_error(self.model, self.tokenizer, encoded[i : i + self.batch_size]) for i in batches]
                )
            finally:
                torch.set_num_threads(previous)


def encode(tokenizer, items: Sequence[Unit], limit: int) -> list[dict[str, list[int]]]:
    """The tokenizer's encoding of each (text, context) pair; raises PairTooLongError, never truncates."""
    encoded = []
    for item in items:
        pair = dict(tokenizer(item.text, item.context, truncation=False))
        if len(pair["input_ids"]) > limit:
            what = "a response sentence" if item.key[0] == "sentence" else "an argument"
            raise PairTooLongError(len(pair["input_ids"]), limit, what)
        encoded.append(pair)
    return encoded


def _logits(model, tokenizer, pairs: Sequence[dict[str, list[int]]]) -> torch.Tensor:
    """(len(pairs), 2) logits; right padding, which BERT's absolute positions are indifferent to."""
    return model(**tokenizer.pad(list(pairs), return_tensors="pt")).logits


def pair_p_error(model, tokenizer, pairs: Sequence[dict[str, list[int]]]) -> np.ndarray:
    return torch.softmax(_logits(model, tokenizer, pairs).double(), dim=-1)[:, 1].detach().numpy()
