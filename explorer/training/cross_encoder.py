"""A MiniLM cross-encoder trained on synthetic errors: a second learned classifier beside the
paper's prompt-tuned one (Chang et al. 2024, §3.3), on the same training data (§4.2).

Not in the paper. The packaged all-MiniLM-L6-v2 reads two texts together and a two-way head
says whether the first is backed by the second:

- hallucination: each response sentence (`explorer.text.claims.sentence_spans`) against all the
  arguments (the curly-braces text of `explorer.text.prompts.curly_braces_arguments`); a sentence
  is positive when it overlaps a gold `hallucinated_spans` span (the verbalization of the
  argument a synthetic hallucination removed);
- coverage: each argument against the response; positive when `uncovered` names it.

Example level, like the paper's other detectors: hallucination = the worst sentence's
P(unsupported), a perspective's coverage error = its worst argument's P(uncovered), coverage =
the worst perspective's. Word level: a response word takes its sentence's score, an argument
word its argument's.

Only LoRA adapters (rank 8 on the attention and feed-forward projections) and the head are
trained, through PEFT, so the shipped weights are about 1.4 MB per error type instead of the
encoder's 90 MB. Each batch is half positive and half negative units, each class cycled in its
own shuffled order: one synthetic error is one positive unit among about ten, and with class
weights instead (tried first) a batch of 16 held a positive every other step and the dev AUC
was 0.63 after 80 steps. Inputs are never cut: a pair longer than the encoder's 512
positions is a `PairTooLongError` with the token count. The kept adapter is the one with the
best example-level dev ROC AUC among the evaluation points.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from explorer.data.example import Example
from explorer.data.labels import overlaps
from explorer.detectors.cross_encoder import (
    PairTooLongError,
    _logits,
    encode,
    encoder_identity,
    pair_p_error,
    units,
)
from explorer.models.encoder import default_model_path, load_pair_classifier
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training.data import BestOnDev, roc_auc, save_peft, target, torch_training, training_record

LORA_TARGETS = ["query", "key", "value", "dense"]


def unit_targets(example: Example, error_type: str) -> list[int]:
    """Gold per unit: a sentence overlapping a hallucinated span; an uncovered argument."""
    if error_type == "hallucination":
        gold = example.labels.hallucinated_spans
        return [int(overlaps(u.key[1:], gold)) for u in units(example, error_type)]
    uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
    return [int(u.key[1:] in uncovered) for u in units(example, error_type)]


# --------------------------------------------------------------------------------------
# Training


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 200
    batch_size: int = 16
    learning_rate: float = 2e-3
    eval_every: int = 50
    seed: int = 0


def _example_scores(
    model, tokenizer, examples: Sequence[Example], error_type: str, limit: int, batch: int
) -> list[float]:
    scores = []
    for example in examples:
        encoded = encode(tokenizer, units(example, error_type), limit)
        values = [pair_p_error(model, tokenizer, encoded[i : i + batch]) for i in range(0, len(encoded), batch)]
        scores.append(float(np.concatenate(values).max()) if values else 0.0)
    return scores


def train(
    error_type: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: TrainingSettings,
    *,
    dev_is_held_out: bool = True,
    model_path: Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[Any, dict[str, Any]]:
    """Train the LoRA adapter and head for `error_type`; returns the PEFT model (holding the kept
    adapter) and the training record (`training.json`)."""
    from peft import LoraConfig, TaskType, get_peft_model

    started = time.monotonic()
    torch.manual_seed(settings.seed)
    path = Path(model_path) if model_path else default_model_path()
    tokenizer, base = load_pair_classifier(path)
    limit = int(base.config.max_position_embeddings)
    config = LoraConfig(task_type=TaskType.SEQ_CLS, r=8, lora_alpha=16, lora_dropout=0.1, target_modules=LORA_TARGETS)
    model = get_peft_model(base, config)
    pairs = [
        (pair, label)
        for example in train_set
        for pair, label in zip(encode(tokenizer, units(example, error_type), limit), unit_targets(example, error_type))
    ]
    by_class = [[pair for pair, label in pairs if label == wanted] for wanted in (0, 1)]
    positives = len(by_class[1])
    if not 0 < positives < len(pairs):
        raise ValueError(f"the training data needs {error_type} units with and without an error")
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=settings.learning_rate)
    rng = random.Random(settings.seed)
    orders: list[list[int]] = [[], []]

    def draw(label: int) -> dict[str, list[int]]:
        """The next unit of a class, each class cycled in its own shuffled order."""
        if not orders[label]:
            orders[label] = list(range(len(by_class[label])))
            rng.shuffle(orders[label])
        return by_class[label][orders[label].pop()]

    losses: list[tuple[int, float]] = []
    dev_targets = [bool(target(e, error_type)) for e in dev_set]
    checkpoints = BestOnDev(model, len(dev_set), log)

    def evaluate(step: int) -> None:
        auc = None
        if len(set(dev_targets)) == 2:
            model.eval()
            with torch.no_grad():
                auc = roc_auc(
                    dev_targets, _example_scores(model, tokenizer, dev_set, error_type, limit, settings.batch_size)
                )
        checkpoints.record(step, auc)

    # No evaluation at step 0: the head starts random, so its AUC would be noise.
    for step in range(1, settings.steps + 1):
        model.train()
        labels = [i % 2 for i in range(settings.batch_size)]
        logits = _logits(model, tokenizer, [draw(label) for label in labels])
        loss = torch.nn.functional.cross_entropy(logits, torch.tensor(labels))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append((step, loss.item()))
        if step % 10 == 0 or step == settings.steps:
            log(f"step {step}/{settings.steps}: loss {loss.item():.4f} ({time.monotonic() - started:.0f} s)")
        if step % settings.eval_every == 0 or step == settings.steps:
            evaluate(step)

    kept_step = checkpoints.keep_best(settings.steps) if dev_is_held_out else settings.steps
    model.eval()
    record = training_record(
        error_type,
        encoder_identity(path),
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=checkpoints.aucs,
        started=started,
        lora={"r": 8, "alpha": 16, "dropout": 0.1, "targets": LORA_TARGETS},
        train_units=len(pairs),
        train_positive_units=positives,
        **torch_training(settings, losses, kept_step),
    )
    return model, record


class CrossEncoderTrainer:
    """`explorer train --detector cross_encoder`: LoRA adapters and a head on all-MiniLM-L6-v2."""

    description = "LoRA adapters and a head on all-MiniLM-L6-v2, per error type"
    settings = TrainingSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "a local sentence-transformers / BERT-style folder (default: the packaged all-MiniLM-L6-v2)"

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        try:
            return train(
                request.task,
                request.train_set,
                request.dev_set,
                self.settings(seed=request.seed, **request.steps),
                dev_is_held_out=request.dev_is_held_out,
                model_path=request.model,
                log=request.log,
            )
        except (FileNotFoundError, PairTooLongError) as error:
            raise TrainingInputError(str(error)) from error

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)
