"""Training the fine-tuned LM classifier (`explorer.detectors.classifier`): LoRA on the causal LM.

    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl
    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.classifier --data ~/.cache/rag-error-explorer/written.jsonl \
        ~/.cache/rag-error-explorer/perspectrum.jsonl --work ~/.cache/rag-error-explorer/classifier-lora-run \
        --out FOLDER

Every labelled train-split example of the given files is read (error-free, organic, synthetic
and ambiguous alike: an ambiguous answer's spans say which sentence or argument is wrong), with one
target per question: a response sentence is "No" when a hallucinated span touches it, an
argument when it is uncovered (`explorer.detectors.classifier.unit_targets`). A step averages
the per-example gradients of `batch_size` examples (no padding: with left padding the real
tokens would sit at shifted positions, so a padded batch would train a slightly different input
from the one scored); the loss is the cross-entropy of the two label logits after each question
(`explorer.detectors.classifier.unit_logits`), which optimizes exactly the scores read out.

Chosen on the dev file (`--dev`, default the foreign NPOV dev set: selection only, no gradient
step ever reads it): every `--eval-every` steps the mean of the hallucination and coverage
example-level ROC AUCs is measured and the best step's adapter kept. The run is resumable
(`explorer.training.checkpoints`, every `--save-every` steps); a rerun with a smaller `--steps`
than done so far ends the run with the best adapter so far. One torch thread by default;
progress and an ETA are printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from explorer import detectors
from explorer.cli import guard
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES, PAIR_TASK
from explorer.detectors.classifier import (
    UnitInput,
    batch_unit_logits,
    unit_input,
    unit_logits,
    unit_scores,
    unit_targets,
)
from explorer.detectors.classifier_prompt import PromptTooLongError, label_token_ids
from explorer.models.language_model import ModelNotFoundError, load_language_model
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training.checkpoints import parsed_settings, run_parser, run_steps, save_run, work_of
from explorer.training.data import (
    dev_targets,
    is_labelled,
    labelled_train,
    roc_auc,
    save_peft,
    target,
    torch_training,
    training_record,
)

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 240
    batch_size: int = 8
    learning_rate: float = 3e-4
    eval_every: int = 40
    save_every: int = 10
    rank: int = 8
    seed: int = 0
    # Examples a forward pass (right-padded): 1 on a CPU, where padding is wasted work; a batch
    # on a GPU, which otherwise waits on kernel launches.
    micro_batch: int = 1
    # Stop this session after this many minutes (0: no limit), evaluated and saved: a lent GPU's time is fixed.
    minutes: float = 0.0


def encoded(language_model, examples: Sequence[Example], log) -> list[tuple[UnitInput, torch.Tensor]]:
    """(input, targets) of each example that fits the model's context."""
    items = []
    for example in examples:
        try:
            item = unit_input(language_model, example)
        except PromptTooLongError as error:
            log(f"{example.id}: left out of training: {error}")
            continue
        items.append((item, unit_targets(example, item)))
    return items


def dev_aucs(model, language_model, examples: Sequence[Example], label_ids) -> dict[str, float]:
    """Example-level ROC AUC per error type over `dev_targets`."""
    model.eval()
    with torch.no_grad():
        scores = []
        for example in examples:
            item = unit_input(language_model, example)
            p_no = torch.softmax(unit_logits(model, item, label_ids).double(), dim=1)[:, 1].tolist()
            sentences, arguments = unit_scores(item, p_no)
            # The detector's example scores (DetectorResult.from_units): the worst sentence, the worst argument.
            scores.append(
                {
                    "hallucination": max((score for *_, score in sentences), default=0.0),
                    "coverage": max(arguments.values(), default=0.0),
                }
            )
    aucs = {}
    for error_type in ERROR_TYPES:
        pairs = dev_targets(examples, error_type)
        aucs[error_type] = roc_auc([t for _, t in pairs], [scores[i][error_type] for i, _ in pairs])
    return aucs


def train(
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: TrainingSettings,
    work: Path,
    *,
    model_spec: str | None = None,
    log=print,
):
    from peft import LoraConfig, TaskType, get_peft_model

    started = time.monotonic()
    torch.manual_seed(settings.seed)
    language_model = load_language_model(model_spec)
    label_ids = label_token_ids(language_model.tokenizer)
    lora = {"r": settings.rank, "alpha": 2 * settings.rank, "dropout": 0.05, "targets": LORA_TARGETS}
    config = LoraConfig(
        task_type=TaskType.CAUSAL_LM,
        r=lora["r"],
        lora_alpha=lora["alpha"],
        lora_dropout=lora["dropout"],
        target_modules=LORA_TARGETS,
    )
    model = get_peft_model(language_model.model, config)
    items = encoded(language_model, train_set, log)
    positives = {t: sum(target(e, t) for e in train_set) for t in ERROR_TYPES}
    questions = sum(len(targets) for _, targets in items)
    no, tokens = int(sum(int(t.sum()) for _, t in items)), sum(i.ids.shape[1] for i, _ in items)
    log(f"{len(items)} examples ({positives}), {questions} questions ({no} 'No'), {tokens} tokens")
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 10) * max(0.1, 1 - step / settings.steps)
    )

    pad_id = language_model.tokenizer.pad_token_id or 0

    def step_loss(rng: random.Random) -> float:
        drawn = []
        for _ in range(settings.batch_size):
            if not order:
                order.extend(range(len(items)))
                rng.shuffle(order)
            drawn.append(items[order.pop()])
        total = 0.0
        for start in range(0, len(drawn), settings.micro_batch):
            chunk = drawn[start : start + settings.micro_batch]
            if len(chunk) == 1:
                logits = [unit_logits(model, chunk[0][0], label_ids)]
            else:
                logits = batch_unit_logits(model, [item for item, _ in chunk], label_ids, pad_id)
            losses = [torch.nn.functional.cross_entropy(x, targets) for x, (_, targets) in zip(logits, chunk)]
            (torch.stack(losses).sum() / settings.batch_size).backward()
            total += sum(loss.item() for loss in losses)
        return total / settings.batch_size

    order: list[int] = []
    state = run_steps(
        work,
        model,
        optimizer,
        scheduler,
        settings=settings,
        step_loss=step_loss,
        evaluate=lambda: dev_aucs(model, language_model, dev_set, label_ids),
        started=started,
        log=log,
        save_every=settings.save_every,
        minutes=settings.minutes,
    )
    record = training_record(
        PAIR_TASK,
        language_model.identity,
        train_set,
        dev_set,
        dev_is_held_out=True,
        started=time.monotonic() - state["seconds"],
        dev_roc_auc=state["aucs"],
        lora=lora,
        labels_read="P(No) after each question (explorer.text.prompts.classifier_units_prompt)",
        train_positives=positives,
        **torch_training(settings, state["losses"], state["best"][0]),
    )
    return model, record


class LoraClassifierTrainer:
    """`explorer train --detector classifier --work W`: `train` on the train split of the files given,
    the step chosen on their dev split (`main` chooses it on the foreign dev file)."""

    description = "LoRA adapters on the language model answering both questions; resumable from --work"
    settings = TrainingSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "a causal LM, a local HF folder or .gguf file (default: the packaged SmolLM2)"

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        train_set = [e for e in request.train_set if is_labelled(e.labels)]
        settings = self.settings(seed=request.seed, **request.steps)
        try:
            return train(
                train_set, request.dev_set, settings, work_of(request), model_spec=request.model, log=request.log
            )
        except ModelNotFoundError as error:
            raise TrainingInputError(str(error)) from error

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)


def build_parser() -> argparse.ArgumentParser:
    return run_parser(
        "explorer.training.classifier",
        "Train the fine-tuned LM classifier (explorer.detectors.classifier).",
        TrainingSettings,
        detectors.weights("classifier").shipped,
        model_help="causal LM: a local folder or .gguf file (default: the packaged SmolLM2)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    return guard.main(build_parser(), argv, lambda args: run(args, argv))


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    settings = parsed_settings(args, TrainingSettings)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    train_set = labelled_train(args.data)
    dev_set = [e for e in parse_jsonl(args.dev).examples if is_labelled(e.labels)]
    model, record = train(train_set, dev_set, settings, args.work, model_spec=args.model, log=log)
    record["train_data"] = [str(p) for p in args.data]
    record["dev_data"] = str(args.dev)
    save_run(model, record, "explorer.training.classifier", argv, args.out / PAIR_TASK, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
