"""Fine-tuned LM classifier: LoRA adapters on the causal LM (Chang et al. 2024, §3.3, fine-tuned).

The paper prompt-tunes its LM classifier (`explorer.detectors.classifier_prompt`); prompt tuning is
known to trail fine-tuning on models this small (Lester et al. 2021, Fig. 1), and the shipped
soft prompts score at chance. Here PEFT LoRA adapters on every attention and MLP projection of
the same LM read the same curly-braces input and questions (`explorer.text.prompts`), trained on
the team-written corpus of realistic answers and Perspectrum-built synthetic errors
(`explorer.training.classifier`):

- `hallucination` = P("No") to "only the given arguments?", `coverage` = P("No") to "every given
  argument?", softmax over the two label tokens' logits. One adapter answers both questions in
  one forward pass: both are asked in the prompt and each label is read right after its
  question (`classifier_pair_prompt`), so an example costs one pass instead of two;
- `per_perspective[name]` = the coverage P("No") on the example with only that perspective's
  arguments (one more pass each, skipped for a one-perspective example).

No word scores: the classifier reads the example as a whole. The adapter ships for the default
model (SmolLM2-135M-Instruct); one the user trained for the chosen model (in the cache) comes
first, and a model with none is a `DetectorError` naming what to run.
"""

from __future__ import annotations

import threading

import torch

from explorer.data.example import Example
from explorer.data.labels import PAIR_TASK
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.classifier_prompt import PromptTooLongError, label_token_ids
from explorer.models.identity import folder_digest
from explorer.models.language_model import LanguageModel, load_language_model
from explorer.models.trained import TrainedNotFoundError
from explorer.text.prompts import classifier_pair_prompt


def pair_input(language_model: LanguageModel, example: Example) -> tuple[torch.Tensor, torch.Tensor]:
    """(token ids of shape (1, n), the two positions whose next-token logits give the labels:
    hallucination, coverage). Raises PromptTooLongError: the input is never truncated."""
    tokenizer = language_model.tokenizer
    head, tail = (
        tokenizer(part, add_special_tokens=False, return_tensors="pt").input_ids
        for part in classifier_pair_prompt(example, tokenizer)
    )
    ids = torch.cat([head, tail], dim=1)
    if ids.shape[1] > language_model.context_length:
        raise PromptTooLongError(ids.shape[1], language_model.context_length, virtual=0)
    return ids.to(language_model.device), torch.tensor([head.shape[1] - 1, ids.shape[1] - 1])


def pair_logits(model, ids: torch.Tensor, positions: torch.Tensor, label_ids: tuple[int, int]) -> torch.Tensor:
    """Logits of ("Yes", "No") after each question, shape (2 questions, 2 labels)."""
    logits = model(input_ids=ids, logits_to_keep=positions.to(ids.device)).logits  # (1, 2, vocabulary)
    return logits[0][:, list(label_ids)]


class LoraClassifierDetector(Detector):
    name = "classifier"
    version = "1"

    def __init__(self, model: str | None = None):
        from peft import PeftModel

        from explorer.detectors import weights

        self.language_model = load_language_model(model)
        try:
            folder = weights(self.name).find(self.language_model.identity, PAIR_TASK)
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.digest = folder_digest(folder)
        self.label_ids = label_token_ids(self.language_model.tokenizer)
        self.peft_model = PeftModel.from_pretrained(self.language_model.model, folder).eval()
        self._lock = threading.Lock()  # one model shared by all callers

    def config(self) -> dict:
        return {"adapter": self.digest, "per_perspective": "coverage question per perspective"}

    def model_identity(self) -> str:
        return f"{self.language_model.identity}+lora({self.digest[:16]})"

    def p_errors(self, example: Example) -> torch.Tensor:
        """P("No") to each question: (hallucination, coverage)."""
        try:
            ids, positions = pair_input(self.language_model, example)
        except PromptTooLongError as error:
            raise DetectorError(str(error)) from error
        with self._lock, torch.no_grad():
            logits = pair_logits(self.peft_model, ids, positions, self.label_ids)
        return torch.softmax(logits.double(), dim=1)[:, 1]

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        several = len(example.perspectives) > 1
        total = 1 + (len(example.perspectives) if several else 0)
        hallucination, coverage = (float(p) for p in self.p_errors(example))
        if progress is not None:
            progress(1, total)
        per_perspective = {}
        for done, perspective in enumerate(example.perspectives, start=2):
            if several:
                per_perspective[perspective.name] = float(
                    self.p_errors(example.replace(perspectives=(perspective,)))[1]
                )
                if progress is not None:
                    progress(done, total)
            else:
                per_perspective[perspective.name] = coverage
        return DetectorResult.without_words(self, hallucination, coverage, per_perspective)
