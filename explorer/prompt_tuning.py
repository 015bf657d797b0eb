"""Prompt-tuned error classifiers on a frozen causal LM (Chang et al. 2024, §3.3).

One classifier per error type: PEFT prompt tuning (Lester et al. 2021) learns 5 virtual
tokens, prepended to the input embeddings of `explorer.prompts.classifier_prompt`, so that the
model's next token after the prompt is "Yes" (no error of that type) or "No" (an error).
The error score is P("No") from the softmax over the two label tokens' logits.

Training (`train`) follows §4.2 (`explorer.training_data`): error-free examples and synthetic
errors of the training split. `target` is the index of the label the model should answer.

Where this departs from the paper or fills its gaps:
- the loss is the cross-entropy of the two label logits at the last position only (the paper
  trains the usual next-token loss over the whole vocabulary); it optimizes exactly the score
  that is read out, and keeping one position of logits (`logits_to_keep=1`) halves the memory
  and time of a step;
- the virtual tokens start as the embeddings of the tokens of " the of and to a", the five most
  frequent English words: PEFT's `PromptTuningInit.TEXT` done by hand, because TEXT makes PEFT
  reload the tokenizer by name and a GGUF-loaded model has none;
- a batch is the mean of per-example gradients (gradient accumulation, no padding): with left
  padding the real tokens sit at shifted positions, so a padded batch would train a slightly
  different input from the one scored;
- the kept soft prompt is the one with the best dev ROC AUC among the evaluation points
  (model selection on dev), or the last when dev is part of the training data.

A trained prompt is a folder: PEFT's `adapter_config.json` and `adapter_model.safetensors`
(5 x hidden floats: 11.5 KB for SmolLM2-135M) and `training.json` (the model identity it was
trained on, settings, the sha256 of the training data, dev AUC by step, time taken).
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from explorer.evaluation import roc_auc
from explorer.example import Example
from explorer.lm import LanguageModel
from explorer.prompts import CLASSIFIER_LABELS, classifier_prompt
from explorer.training_data import BestOnDev, find_trained, save_peft, target, torch_training, training_record

NUM_VIRTUAL_TOKENS = 5
INIT_TEXT = " the of and to a"
METHOD = "classifier"
SHIPPED_PROMPTS = Path(__file__).resolve().parent / "resources" / METHOD
WEIGHTS_FILE = "adapter_model.safetensors"


# --------------------------------------------------------------------------------------
# Scoring


def label_token_ids(tokenizer) -> tuple[int, int]:
    ids = []
    for label in CLASSIFIER_LABELS:
        encoded = tokenizer.encode(label, add_special_tokens=False)
        if len(encoded) != 1:
            raise ValueError(f"the label {label!r} is {len(encoded)} tokens for this tokenizer; it must be one")
        ids.append(encoded[0])
    return ids[0], ids[1]


class PromptTooLongError(ValueError):
    def __init__(self, tokens: int, context_length: int):
        super().__init__(
            f"the classifier input is {tokens} tokens ({tokens - NUM_VIRTUAL_TOKENS} of text + "
            f"{NUM_VIRTUAL_TOKENS} virtual), more than the model's context of {context_length}; "
            "it is not truncated: shorten the response or the arguments"
        )
        self.tokens = tokens
        self.context_length = context_length


def input_ids(language_model: LanguageModel, example: Example, task: str) -> torch.Tensor:
    """Token ids of the classifier prompt, shape (1, length); raises PromptTooLongError."""
    text = classifier_prompt(example, language_model.tokenizer, task).text
    ids = language_model.tokenizer(text, add_special_tokens=False, return_tensors="pt").input_ids
    if ids.shape[1] + NUM_VIRTUAL_TOKENS > language_model.context_length:
        raise PromptTooLongError(ids.shape[1] + NUM_VIRTUAL_TOKENS, language_model.context_length)
    return ids.to(language_model.device)


def label_logits(peft_model, ids: torch.Tensor, label_ids: tuple[int, int]) -> torch.Tensor:
    """Logits of ("Yes", "No") as the next token after the prompt, shape (2,)."""
    logits = peft_model(input_ids=ids, logits_to_keep=1).logits  # (1, 1, vocabulary)
    return logits[0, -1, list(label_ids)]


class SoftPromptClassifier:
    """A frozen causal LM with one soft prompt per task (PEFT adapters named by task)."""

    def __init__(self, language_model: LanguageModel, prompt_dirs: Mapping[str, Path]):
        from peft import PeftModel

        self.language_model = language_model
        self.label_ids = label_token_ids(language_model.tokenizer)
        self.digests = {task: prompt_digest(directory) for task, directory in prompt_dirs.items()}
        peft_model = None
        for task, directory in prompt_dirs.items():
            if peft_model is None:
                peft_model = PeftModel.from_pretrained(language_model.model, directory, adapter_name=task)
            else:
                peft_model.load_adapter(directory, adapter_name=task)
        self.peft_model = peft_model.eval()
        self._lock = threading.Lock()  # the active adapter is state shared by all callers

    def p_error(self, example: Example, task: str) -> float:
        """P("No"): the probability that `example` has an error of type `task`."""
        ids = input_ids(self.language_model, example, task)
        with self._lock, torch.no_grad():
            self.peft_model.set_adapter(task)
            logits = label_logits(self.peft_model, ids, self.label_ids)
        return float(torch.softmax(logits.double(), dim=0)[1])


# --------------------------------------------------------------------------------------
# Finding trained prompts


def prompt_digest(directory: Path) -> str:
    """sha256 of a soft prompt's weights: part of the detector's cache key."""
    return hashlib.sha256((Path(directory) / WEIGHTS_FILE).read_bytes()).hexdigest()


def find_prompt(model_identity: str, task: str) -> Path:
    """The soft prompt for this model and task (`training_data.find_trained`)."""
    return find_trained(METHOD, model_identity, task, SHIPPED_PROMPTS)


# --------------------------------------------------------------------------------------
# Training


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 60
    batch_size: int = 8
    learning_rate: float = 2e-2
    eval_every: int = 15
    seed: int = 0


def new_soft_prompt(language_model: LanguageModel):
    """A PEFT prompt-tuning model whose virtual tokens start as frequent words' embeddings."""
    from peft import PromptTuningConfig, PromptTuningInit, TaskType, get_peft_model

    config = PromptTuningConfig(
        task_type=TaskType.CAUSAL_LM,
        num_virtual_tokens=NUM_VIRTUAL_TOKENS,
        prompt_tuning_init=PromptTuningInit.RANDOM,
    )
    peft_model = get_peft_model(language_model.model, config)
    init_ids = language_model.tokenizer.encode(INIT_TEXT, add_special_tokens=False)
    if len(init_ids) != NUM_VIRTUAL_TOKENS:
        raise ValueError(f"{INIT_TEXT!r} is {len(init_ids)} tokens for this tokenizer, not {NUM_VIRTUAL_TOKENS}")
    embedding = peft_model.prompt_encoder["default"].embedding
    with torch.no_grad():
        words = language_model.model.get_input_embeddings()(torch.tensor(init_ids, device=language_model.device))
        embedding.weight.copy_(words)
    return peft_model


def _dev_auc(peft_model, language_model, dev: Sequence[tuple[torch.Tensor, int]], label_ids) -> float | None:
    if len({label for _, label in dev}) < 2:
        return None
    peft_model.eval()
    with torch.no_grad():
        scores = [float(torch.softmax(label_logits(peft_model, ids, label_ids), 0)[1]) for ids, _ in dev]
    return roc_auc([bool(label) for _, label in dev], scores)


def train(
    language_model: LanguageModel,
    task: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: TrainingSettings,
    *,
    dev_is_held_out: bool = True,
    log: Callable[[str], None] = print,
) -> tuple[Any, dict[str, Any]]:
    """Train the soft prompt for `task`; returns the PEFT model (holding the kept prompt) and
    the training record (`training.json`). `log` gets a line per step and per dev evaluation."""
    started = time.monotonic()
    torch.manual_seed(settings.seed)
    peft_model = new_soft_prompt(language_model)
    label_ids = label_token_ids(language_model.tokenizer)
    weight = peft_model.prompt_encoder["default"].embedding.weight
    optimizer = torch.optim.AdamW([weight], lr=settings.learning_rate, weight_decay=0.0)
    encoded = [(input_ids(language_model, e, task), target(e, task)) for e in train_set]
    dev = [(input_ids(language_model, e, task), target(e, task)) for e in dev_set]
    order: list[int] = []
    rng = random.Random(settings.seed)
    losses: list[tuple[int, float]] = []
    checkpoints = BestOnDev(peft_model, len(dev), log)

    def evaluate(step: int) -> None:
        checkpoints.record(step, _dev_auc(peft_model, language_model, dev, label_ids))

    evaluate(0)
    for step in range(1, settings.steps + 1):
        peft_model.train()
        optimizer.zero_grad()
        total = 0.0
        for _ in range(settings.batch_size):
            if not order:
                order = list(range(len(encoded)))
                rng.shuffle(order)
            ids, label = encoded[order.pop()]
            logits = label_logits(peft_model, ids, label_ids)
            loss = torch.nn.functional.cross_entropy(logits[None], torch.tensor([label], device=logits.device))
            (loss / settings.batch_size).backward()
            total += loss.item()
        optimizer.step()
        losses.append((step, total / settings.batch_size))
        log(
            f"step {step}/{settings.steps}: loss {total / settings.batch_size:.4f} ({time.monotonic() - started:.0f} s)"
        )
        if step % settings.eval_every == 0 or step == settings.steps:
            evaluate(step)

    kept_step = checkpoints.keep_best(settings.steps) if dev_is_held_out else settings.steps
    peft_model.eval()
    record = training_record(
        task,
        language_model.identity,
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=checkpoints.aucs,
        started=started,
        labels=list(CLASSIFIER_LABELS),
        num_virtual_tokens=NUM_VIRTUAL_TOKENS,
        init=f"embeddings of the tokens of {INIT_TEXT!r}",
        train_positives=sum(target(e, task) for e in train_set),
        **torch_training(settings, losses, kept_step),
    )
    return peft_model, record


save = save_peft  # writes the trained weights with training.json; the CLI saves every method through its module
