"""Fine-tuned LM classifier: LoRA adapters on the causal LM (Chang et al. 2024, §3.3, fine-tuned).

The paper prompt-tunes its LM classifier (`explorer.detectors.classifier_prompt`); prompt tuning is
known to trail fine-tuning on models this small (Lester et al. 2021, Fig. 1), and the shipped
soft prompts score at chance. Here PEFT LoRA adapters on every attention and MLP projection of
the same LM read the same curly-braces input and questions (`explorer.text.prompts`), trained on
the team-written corpus of realistic answers and Perspectrum-built synthetic errors
(`explorer.training.classifier`):

- one question per response sentence ("is everything in it given by the arguments, or mere
  framing?") and one per argument ("does the response state it?"), all asked in one prompt and
  each answered right after it (`classifier_units_prompt`): one forward pass an example;
- P("No") to each, softmax over the two label tokens' logits; `hallucination` is the largest
  over the sentences, `per_perspective[name]` over that perspective's arguments, `coverage`
  over all of them (the paper's questions are about the whole example: here each sentence and
  argument is labelled in training, where one bit an example taught this small model nothing);
- word scores: each content word of the response scores its sentence's P("No"), each content
  word of an argument that argument's.

The adapter ships for the default
model (SmolLM2-135M-Instruct); one the user trained for the chosen model (in the cache) comes
first, and a model with none is a `DetectorError` naming what to run.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import torch

from explorer.data.example import Example, Span
from explorer.data.labels import PAIR_TASK, overlaps
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.classifier_prompt import PromptTooLongError, label_token_ids
from explorer.models.identity import folder_digest
from explorer.models.language_model import LanguageModel, load_language_model
from explorer.models.trained import TrainedNotFoundError
from explorer.text.claims import sentence_spans
from explorer.text.prompts import classifier_units_prompt


@dataclass(frozen=True)
class UnitInput:
    """Token ids (1, n) and the positions whose next-token logits answer each question: one per
    response sentence (`sentences`, character spans), then one per argument (`arguments`, refs)."""

    ids: torch.Tensor
    positions: torch.Tensor
    sentences: tuple[Span, ...]
    arguments: tuple[tuple[int, int], ...]


def unit_input(language_model: LanguageModel, example: Example) -> UnitInput:
    """The classifier's input for `example`. Raises PromptTooLongError: the input is never truncated."""
    tokenizer = language_model.tokenizer
    sentences = sentence_spans(example.response)
    pieces = classifier_units_prompt(example, tokenizer, [example.response[s:e] for s, e in sentences])
    parts = [tokenizer(piece, add_special_tokens=False, return_tensors="pt").input_ids for piece in pieces]
    ids = torch.cat(parts, dim=1)
    if ids.shape[1] > language_model.context_length:
        raise PromptTooLongError(ids.shape[1], language_model.context_length, virtual=0)
    positions = torch.tensor([part.shape[1] for part in parts]).cumsum(0) - 1
    refs = tuple(
        (p, a) for p, perspective in enumerate(example.perspectives) for a in range(len(perspective.arguments))
    )
    return UnitInput(ids.to(language_model.device), positions, sentences, refs)


def unit_logits(model, item: UnitInput, label_ids: tuple[int, int]) -> torch.Tensor:
    """Logits of ("Yes", "No") after each question, shape (questions, 2)."""
    logits = model(input_ids=item.ids, logits_to_keep=item.positions.to(item.ids.device)).logits
    return logits[0][:, list(label_ids)]


def batch_unit_logits(model, items: list[UnitInput], label_ids: tuple[int, int], pad_id: int) -> list[torch.Tensor]:
    """`unit_logits` of several inputs in one forward pass. They are padded on the right: a causal
    LM's real tokens never see the padding after them and keep their positions, so each input's
    logits are its own (up to the kernels' rounding); one pass saves the launches a GPU waits on."""
    device = items[0].ids.device
    width = max(item.ids.shape[1] for item in items)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long, device=device)
    mask = torch.zeros_like(ids)
    for row, item in enumerate(items):
        ids[row, : item.ids.shape[1]] = item.ids[0]
        mask[row, : item.ids.shape[1]] = 1
    kept = torch.unique(torch.cat([item.positions for item in items])).to(device)
    logits = model(input_ids=ids, attention_mask=mask, logits_to_keep=kept).logits[:, :, list(label_ids)]
    return [logits[row, torch.searchsorted(kept, item.positions.to(device))] for row, item in enumerate(items)]


def unit_targets(example: Example, item: UnitInput) -> torch.Tensor:
    """1 ("No") for each sentence with a hallucinated character and each uncovered argument."""
    uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
    hallucinated = [int(overlaps(span, example.labels.hallucinated_spans)) for span in item.sentences]
    return torch.tensor(hallucinated + [int(ref in uncovered) for ref in item.arguments], device=item.ids.device)


def unit_scores(
    item: UnitInput, p_no: list[float]
) -> tuple[list[tuple[int, int, float]], dict[tuple[int, int], float]]:
    """P("No") to each question as `DetectorResult.from_units` reads pieces: each sentence's span
    with its score, and each argument's score."""
    count = len(item.sentences)
    sentences = [(start, end, score) for (start, end), score in zip(item.sentences, p_no[:count], strict=True)]
    return sentences, dict(zip(item.arguments, p_no[count:], strict=True))


class LoraClassifierDetector(Detector):
    name = "classifier"
    version = "2"

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
        return {"adapter": self.digest, "questions": "one per response sentence and per argument"}

    def model_identity(self) -> str:
        return f"{self.language_model.identity}+lora({self.digest[:16]})"

    def p_no(self, item: UnitInput) -> list[float]:
        """P("No") to each question of `item`."""
        with self._lock, torch.no_grad():
            logits = unit_logits(self.peft_model, item, self.label_ids)
        return torch.softmax(logits.double(), dim=1)[:, 1].tolist()

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        try:
            item = unit_input(self.language_model, example)
        except (PromptTooLongError, ValueError) as error:
            raise DetectorError(str(error)) from error
        result = DetectorResult.from_units(self, example, *unit_scores(item, self.p_no(item)))
        if progress is not None:
            progress(1, 1)
        return result
