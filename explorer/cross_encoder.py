"""A MiniLM cross-encoder trained on synthetic errors: a second learned classifier beside the
paper's prompt-tuned one (Chang et al. 2024, §3.3), on the same training data (§4.2).

Not in the paper. The packaged all-MiniLM-L6-v2 reads two texts together and a two-way head
says whether the first is backed by the second:

- hallucination: each response sentence (`explorer.claims.sentence_spans`) against all the
  arguments (the curly-braces text of `explorer.prompts.curly_braces_arguments`); a sentence
  is positive when it overlaps a gold `hallucinated_spans` span (the verbalization of the
  argument a synthetic hallucination removed);
- coverage: each argument against the response; positive when `uncovered` names it.

Example level, like the paper's other detectors: hallucination = the worst sentence's
P(unsupported), a perspective's coverage error = its worst argument's P(uncovered), coverage =
the worst perspective's. Word level: a response word takes its sentence's score, an argument
word its argument's.

Only LoRA adapters (rank 8 on the attention and feed-forward projections) and the head are
trained, through PEFT, so the shipped weights are about 1.4 MB per task instead of the
encoder's 90 MB. Each batch is half positive and half negative units, each class cycled in its
own shuffled order: one synthetic error is one positive unit among about ten, and with class
weights instead (tried first) a batch of 16 held a positive every other step and the dev AUC
was 0.63 after 80 steps. Inputs are never cut: a pair longer than the encoder's 512
positions is a `PairTooLongError` with the token count. The kept adapter is the one with the
best example-level dev ROC AUC among the evaluation points.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch

from explorer.claims import sentence_spans
from explorer.embeddings import EMBEDDING_PACKAGE, default_model_path
from explorer.evaluation import overlaps, roc_auc
from explorer.example import Example
from explorer.prompts import curly_braces_arguments
from explorer.training_data import BestOnDev, find_trained, save_peft, target, torch_training, training_record

METHOD = "cross_encoder"
SHIPPED_ADAPTERS = Path(__file__).resolve().parent / "resources" / METHOD
WEIGHTS_FILE = "adapter_model.safetensors"
LORA_TARGETS = ["query", "key", "value", "dense"]


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


def units(example: Example, task: str) -> list[Unit]:
    if task == "hallucination":
        arguments = curly_braces_arguments(example).text
        return [
            Unit(example.response[start:end], arguments, ("sentence", start, end))
            for start, end in sentence_spans(example.response)
        ]
    return [Unit(text, example.response, ("argument", p, a)) for p, a, text in example.arguments()]


def unit_targets(example: Example, task: str) -> list[int]:
    """Gold per unit: a sentence overlapping a hallucinated span; an uncovered argument."""
    if task == "hallucination":
        gold = example.labels.hallucinated_spans
        return [int(overlaps(u.key[1:], gold)) for u in units(example, task)]
    uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
    return [int(u.key[1:] in uncovered) for u in units(example, task)]


def encoder_identity(path: Path) -> str:
    if path.resolve() == default_model_path().resolve():
        return f"all-MiniLM-L6-v2 ({EMBEDDING_PACKAGE} {metadata.version(EMBEDDING_PACKAGE)})"
    return str(path)


def find_adapter(identity: str, task: str) -> Path:
    """The adapter for this encoder and task (`training_data.find_trained`)."""
    return find_trained(METHOD, identity, task, SHIPPED_ADAPTERS)


def adapter_digest(directory: Path) -> str:
    return hashlib.sha256((Path(directory) / WEIGHTS_FILE).read_bytes()).hexdigest()


def _load_base(path: Path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()  # the head is new (trained, or loaded from an adapter): no warning needed
    try:
        model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    finally:
        logging.set_verbosity(verbosity)
    return AutoTokenizer.from_pretrained(path), model.eval()


class CrossEncoder:
    """The encoder with one trained adapter per task (PEFT adapters named by task)."""

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
        self.tokenizer, base = _load_base(self.model_path)
        self.limit = int(base.config.max_position_embeddings)
        self.batch_size = batch_size
        # One thread, as for the sentence encoder (`explorer.embeddings`): two were slower on
        # the shared 2-core machines this project runs on.
        self.threads = threads
        self.identity = encoder_identity(self.model_path)
        self.digests = {task: adapter_digest(directory) for task, directory in adapter_dirs.items()}
        model = None
        for task, directory in adapter_dirs.items():
            if model is None:
                model = PeftModel.from_pretrained(base, directory, adapter_name=task)
            else:
                model.load_adapter(directory, adapter_name=task)
        self.model = model.eval()
        self._lock = threading.Lock()  # the active adapter is state shared by all callers

    def p_error(self, items: Sequence[Unit], task: str) -> np.ndarray:
        """P(error) of each unit, shape (len(items),)."""
        if not items:
            return np.zeros(0)
        encoded = encode(self.tokenizer, items, self.limit)
        with self._lock, torch.no_grad():
            previous = torch.get_num_threads()
            if self.threads:
                torch.set_num_threads(self.threads)
            try:
                self.model.set_adapter(task)
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


# --------------------------------------------------------------------------------------
# Training


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 200
    batch_size: int = 16
    learning_rate: float = 2e-3
    eval_every: int = 50
    seed: int = 0


def _example_scores(model, tokenizer, examples: Sequence[Example], task: str, limit: int, batch: int) -> list[float]:
    scores = []
    for example in examples:
        encoded = encode(tokenizer, units(example, task), limit)
        values = [pair_p_error(model, tokenizer, encoded[i : i + batch]) for i in range(0, len(encoded), batch)]
        scores.append(float(np.concatenate(values).max()) if values else 0.0)
    return scores


def train(
    task: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: TrainingSettings,
    *,
    dev_is_held_out: bool = True,
    model_path: Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[Any, dict[str, Any]]:
    """Train the LoRA adapter and head for `task`; returns the PEFT model (holding the kept
    adapter) and the training record (`training.json`)."""
    from peft import LoraConfig, TaskType, get_peft_model

    started = time.monotonic()
    torch.manual_seed(settings.seed)
    path = Path(model_path) if model_path else default_model_path()
    tokenizer, base = _load_base(path)
    limit = int(base.config.max_position_embeddings)
    config = LoraConfig(task_type=TaskType.SEQ_CLS, r=8, lora_alpha=16, lora_dropout=0.1, target_modules=LORA_TARGETS)
    model = get_peft_model(base, config)
    pairs = [
        (pair, label)
        for example in train_set
        for pair, label in zip(encode(tokenizer, units(example, task), limit), unit_targets(example, task))
    ]
    by_class = [[pair for pair, label in pairs if label == wanted] for wanted in (0, 1)]
    positives = len(by_class[1])
    if not 0 < positives < len(pairs):
        raise ValueError(f"the training data needs {task} units with and without an error")
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
    dev_targets = [bool(target(e, task)) for e in dev_set]
    checkpoints = BestOnDev(model, len(dev_set), log)

    def evaluate(step: int) -> None:
        auc = None
        if len(set(dev_targets)) == 2:
            model.eval()
            with torch.no_grad():
                auc = roc_auc(dev_targets, _example_scores(model, tokenizer, dev_set, task, limit, settings.batch_size))
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
        task,
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


save = save_peft  # writes the trained weights with training.json; the CLI saves every method through its module
