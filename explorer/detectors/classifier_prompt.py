"""Prompt-tuned LM classifier, the paper's (Chang et al. 2024, §3.3): `classifier_prompt`.

Two soft prompts on the same frozen causal LM (`explorer.training.soft_prompt`), trained on synthetic
errors (`explorer train`), one per error type:

- `hallucination` = P("No") of the hallucination classifier on the whole example;
- `coverage` = P("No") of the coverage classifier on the whole example;
- `per_perspective[name]` = P("No") of the coverage classifier on the example with only that
  perspective's arguments (the question then asks whether the response states every argument
  of that perspective). The paper scores coverage per example only; this costs one forward
  pass per perspective and is the same as `coverage` for a one-perspective example. The
  classifier never saw single-perspective inputs in training, so `coverage` is not the max of
  these, unlike the other detectors.

There are no word-level scores: the classifier reads the example as a whole, and any
word-level proxy (occlusion, gradients) would be another method. Word lists stay empty.

The soft prompts ship in the package for the default model (SmolLM2-135M-Instruct); a prompt
the user trained for the chosen model (`explorer train`, saved in the cache) comes first. A
model without prompts for both error types is a `DetectorError` at construction, naming what to run.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import torch

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.models.identity import folder_digest
from explorer.models.language_model import LanguageModel, load_language_model
from explorer.models.trained import TrainedNotFoundError
from explorer.text.prompts import CLASSIFIER_LABELS, classifier_prompt


class PromptClassifierDetector(Detector):
    name = "classifier_prompt"
    version = "1"

    def __init__(self, model: str | None = None):
        from explorer.detectors import weights

        self.language_model = load_language_model(model)
        found = weights(self.name).find
        try:
            prompt_dirs = {error_type: found(self.language_model.identity, error_type) for error_type in ERROR_TYPES}
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.classifier = SoftPromptClassifier(self.language_model, prompt_dirs)

    def config(self) -> dict:
        return {"prompts": dict(self.classifier.digests), "per_perspective": "coverage classifier per perspective"}

    def model_identity(self) -> str:
        prompts = ",".join(
            f"{error_type}:{digest[:16]}" for error_type, digest in sorted(self.classifier.digests.items())
        )
        return f"{self.language_model.identity}+prompts({prompts})"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        several = len(example.perspectives) > 1
        total = 2 + (len(example.perspectives) if several else 0)
        done = 0

        def run(error_type: str, scored: Example) -> float:
            nonlocal done
            try:
                value = self.classifier.p_error(scored, error_type)
            except PromptTooLongError as error:
                raise DetectorError(str(error)) from error
            done += 1
            if progress is not None:
                progress(done, total)
            return value

        hallucination = run("hallucination", example)
        coverage = run("coverage", example)
        per_perspective = {
            perspective.name: run("coverage", example.replace(perspectives=(perspective,))) if several else coverage
            for perspective in example.perspectives
        }
        return DetectorResult.without_words(self, hallucination, coverage, per_perspective)


NUM_VIRTUAL_TOKENS = 5


def label_token_ids(tokenizer) -> tuple[int, int]:
    ids = []
    for label in CLASSIFIER_LABELS:
        encoded = tokenizer.encode(label, add_special_tokens=False)
        if len(encoded) != 1:
            raise ValueError(f"the label {label!r} is {len(encoded)} tokens for this tokenizer; it must be one")
        ids.append(encoded[0])
    return ids[0], ids[1]


class PromptTooLongError(ValueError):
    def __init__(self, tokens: int, context_length: int, virtual: int = NUM_VIRTUAL_TOKENS):
        parts = f" ({tokens - virtual} of text + {virtual} virtual)" if virtual else ""
        super().__init__(
            f"the classifier input is {tokens} tokens{parts}, more than the model's context of {context_length}; "
            "it is not truncated: shorten the response or the arguments"
        )
        self.tokens = tokens
        self.context_length = context_length


def input_ids(
    language_model: LanguageModel, example: Example, error_type: str, virtual: int = NUM_VIRTUAL_TOKENS
) -> torch.Tensor:
    """Token ids of the classifier prompt, shape (1, length), for a soft prompt of `virtual`
    tokens; raises PromptTooLongError."""
    text = classifier_prompt(example, language_model.tokenizer, error_type).text
    ids = language_model.tokenizer(text, add_special_tokens=False, return_tensors="pt").input_ids
    if ids.shape[1] + virtual > language_model.context_length:
        raise PromptTooLongError(ids.shape[1] + virtual, language_model.context_length, virtual)
    return ids.to(language_model.device)


def label_logits(peft_model, ids: torch.Tensor, label_ids: tuple[int, int]) -> torch.Tensor:
    """Logits of ("Yes", "No") as the next token after the prompt, shape (2,)."""
    logits = peft_model(input_ids=ids, logits_to_keep=1).logits  # (1, 1, vocabulary)
    return logits[0, -1, list(label_ids)]


class SoftPromptClassifier:
    """A frozen causal LM with one soft prompt per error type (PEFT adapters named by error type)."""

    def __init__(self, language_model: LanguageModel, prompt_dirs: Mapping[str, Path]):
        from peft import PeftModel

        self.language_model = language_model
        self.label_ids = label_token_ids(language_model.tokenizer)
        self.digests = {error_type: prompt_digest(directory) for error_type, directory in prompt_dirs.items()}
        peft_model = None
        for error_type, directory in prompt_dirs.items():
            if peft_model is None:
                peft_model = PeftModel.from_pretrained(language_model.model, directory, adapter_name=error_type)
            else:
                peft_model.load_adapter(directory, adapter_name=error_type)
        self.peft_model = peft_model.eval()
        self.virtual_tokens = {name: config.num_virtual_tokens for name, config in peft_model.peft_config.items()}
        self._lock = threading.Lock()  # the active adapter is state shared by all callers

    def p_error(self, example: Example, error_type: str) -> float:
        """P("No"): the probability that `example` has an error of type `error_type`."""
        ids = input_ids(self.language_model, example, error_type, self.virtual_tokens[error_type])
        with self._lock, torch.no_grad():
            self.peft_model.set_adapter(error_type)
            logits = label_logits(self.peft_model, ids, self.label_ids)
        return float(torch.softmax(logits.double(), dim=0)[1])


def prompt_digest(directory: Path) -> str:
    """Every file of a soft prompt's folder (weights and `adapter_config.json`): part of the cache key."""
    return folder_digest(Path(directory))
