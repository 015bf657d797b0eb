"""Training the token tagger (`explorer.detectors.tagger`): LoRA adapters and a tagging head on MiniLM.

    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl
    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.tagger --data ~/.cache/rag-error-explorer/written.jsonl \
        ~/.cache/rag-error-explorer/perspectrum.jsonl --work ~/.cache/rag-error-explorer/tagger-run --out FOLDER

Every labelled train-split example of the given files is read (error-free, organic, ambiguous
and synthetic alike: the tagger learns from spans, not from an example's kind); each token gets
its gold tag (`token_tags`): a response token inside a `hallucinated_spans` span, an argument
token of an argument `uncovered` names (whole, or inside its `spans`). Batches hold windows of
similar length (less padding, which costs CPU time); the loss is cross-entropy over tagged
tokens. `--reorder S` shuffles each side's arguments in a share S of the examples
(`explorer.training.data.partly_reordered`): trained on the given orders only, a tagger scores an
answer that states a side's arguments in another order than the input's as less faithful
(`bench/argument_order.py`). With `--reorder 0.5` both shipped taggers' runs chose worse steps
on the foreign dev set (tagger .795 / .844 against .819 / .836 ROC AUC), so neither was
replaced; both taggers read both orders when they score instead (`explorer.detectors.tagger`).

Chosen on the dev files (`--dev`, default the foreign NPOV dev set, and `--also-dev`: selection
only, no gradient step ever reads them): every `--eval-every` steps, per error type, the mean
over the files of each file's worst slice ROC AUC (`dev_aucs`, the stacked heads' rule), and the
step with the best mean of the two error types is kept. Chosen by the pooled ROC AUC instead, a
run on both recipes kept a step the stacked heads did not keep, where an earlier one was kept
(docs/development/experiments.md, "the tagger on both recipes"). The run is resumable: the
adapter, the optimizer and the step are saved in `--work` at every evaluation, and a rerun with
the same `--work` continues from there (`explorer.training.checkpoints`). One torch thread by
default; progress and an ETA are printed.
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
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.tagger import (
    IGNORED,
    TASK,
    TaggerDetector,
    Window,
    load_token_classifier,
    result_from_words,
    scored_windows,
    windows,
    word_scores,
)
from explorer.models.encoder import default_model_path, encoder_identity
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training.checkpoints import parsed_settings, run_parser, run_steps, save_run, work_of
from explorer.training.data import (
    TRAIN_PARTS,
    claim_half,
    dev_targets,
    encoder_lora,
    labelled_train,
    partly_reordered,
    roc_auc,
    save_peft,
    torch_training,
    training_record,
)
from explorer.training.stacked import selection_slices, worst_slices


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 1200
    batch_size: int = 8
    learning_rate: float = 5e-4
    eval_every: int = 200
    rank: int = 16
    seed: int = 0
    reorder: float = 0.0  # the share of examples trained with each side's arguments shuffled


def token_tags(example: Example, window: Window) -> list[int]:
    """The gold tag of each token of the window (`IGNORED` where nothing is tagged)."""
    invented = example.labels.hallucinated_spans
    dropped: dict[tuple[int, int], tuple | None] = {
        (u.perspective, u.argument): u.spans for u in example.labels.uncovered
    }
    tags = []
    for place in window.places:
        if place is None:
            tags.append(IGNORED)
        elif place[0] == "response":
            tags.append(int(any(place[1] < end and start < place[2] for start, end in invented)))
        else:
            _, p, a, start, end = place
            spans = dropped.get((p, a), ())
            tags.append(int(spans is None or any(start < e and s < end for s, e in spans)))
    return tags


def dev_aucs(model, tokenizer, dev_sets: Mapping[str, Sequence[Example]], limit: int) -> dict[str, float]:
    """Per error type, with the detector's own aggregation on `model`: the mean over the dev sets
    of each set's worst slice ROC AUC (`explorer.training.stacked.worst_slices`, the rule the
    stacked heads are chosen by: a step counts only if it holds on each set's worst slice); a set
    without slices of both classes counts by its ROC AUC over all its examples."""
    aucs = {}
    scored_sets = {name: [_result(model, tokenizer, e, limit) for e in examples] for name, examples in dev_sets.items()}
    for error_type in ERROR_TYPES:
        per_set = []
        for name, examples in dev_sets.items():
            scores = {e.id: r.score(error_type) for e, r in zip(examples, scored_sets[name])}
            worst = worst_slices({name: selection_slices(examples, error_type)}, scores)[0]
            if worst is None:
                pairs = dev_targets(examples, error_type)
                worst = roc_auc([t for _, t in pairs], [scores[examples[i].id] for i, _ in pairs])
            per_set.append(worst)
        aucs[error_type] = float(sum(per_set) / len(per_set))
    return aucs


def _result(model, tokenizer, example: Example, limit: int):
    inputs = windows(tokenizer, example, limit)
    scored = scored_windows(model, tokenizer, inputs, max(len(inputs), 1))  # one batch, as before
    return result_from_words(TaggerDetector.name, {}, example, *word_scores(example, scored))


def _batches(items: list[tuple[Window, list[int]]], size: int, rng: random.Random) -> list[list[int]]:
    """Indices in batches of similar length, in a shuffled order."""
    order = sorted(range(len(items)), key=lambda i: (len(items[i][0].input_ids), rng.random()))
    batches = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(batches)
    return batches


def _loss(model, tokenizer, batch: list[tuple[Window, list[int]]]) -> torch.Tensor:
    features = tokenizer.pad(
        [{"input_ids": list(w.input_ids), "token_type_ids": list(w.token_type_ids)} for w, _ in batch],
        return_tensors="pt",
    )
    width = features["input_ids"].shape[1]
    labels = torch.tensor([tags + [IGNORED] * (width - len(tags)) for _, tags in batch])
    logits = model(**features).logits
    return torch.nn.functional.cross_entropy(logits.reshape(-1, 2), labels.reshape(-1), ignore_index=IGNORED)


def train(
    train_set: Sequence[Example],
    dev_sets: Mapping[str, Sequence[Example]],
    settings: TrainingSettings,
    work: Path,
    *,
    log=print,
):
    started = time.monotonic()
    torch.manual_seed(settings.seed)
    path = default_model_path()
    tokenizer, base = load_token_classifier(path)
    limit = int(base.config.max_position_embeddings)
    model, lora = encoder_lora(base, settings.rank, "TOKEN_CLS")
    train_set = partly_reordered(train_set, settings.reorder, settings.seed)
    items = [(w, token_tags(e, w)) for e in train_set for w in windows(tokenizer, e, limit)]
    positives = sum(t == 1 for _, tags in items for t in tags)
    tagged = sum(t != IGNORED for _, tags in items for t in tags)
    log(f"{len(train_set)} examples, {len(items)} windows, {tagged} tagged tokens ({positives} errors)")
    if not 0 < positives < tagged:  # an empty set crashed mid-step; a set of one tag teaches nothing
        raise TrainingInputError("the training data needs tokens tagged both as errors and as not")
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 50) * max(0.05, 1 - step / settings.steps)
    )

    def step_loss(rng: random.Random) -> float:
        if not queue:
            queue.extend(_batches(items, settings.batch_size, rng))
        loss = _loss(model, tokenizer, [items[i] for i in queue.pop()])
        loss.backward()
        return loss.item()

    queue: list[list[int]] = []
    state = run_steps(
        work,
        model,
        optimizer,
        scheduler,
        settings=settings,
        step_loss=step_loss,
        evaluate=lambda: dev_aucs(model, tokenizer, dev_sets, limit),
        started=started,
        log=log,
        log_every=10,
    )
    record = training_record(
        TASK,
        encoder_identity(path),
        train_set,
        [e for examples in dev_sets.values() for e in examples],
        dev_is_held_out=True,
        started=time.monotonic() - state["seconds"],
        dev_roc_auc=state["aucs"],
        lora=lora,
        train_windows=len(items),
        train_tagged_tokens=tagged,
        train_error_tokens=positives,
        **torch_training(settings, state["losses"], state["best"][0]),
    )
    return model, record


class TaggerTrainer:
    """`explorer train --detector tagger --work W`: `train` on the train split of the files given
    (all their claims), the step chosen on their dev split (`main` chooses it on the foreign dev file)."""

    description = "LoRA adapters and a tagging head on all-MiniLM-L6-v2, both error types; resumable from --work"
    settings = TrainingSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "none: it tags with the packaged all-MiniLM-L6-v2"

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        if request.model:
            raise TrainingInputError(f"--model does not apply to the tagger ({self.model_help})")
        settings = self.settings(seed=request.seed, **request.steps)
        return train(request.train_set, {"dev": request.dev_set}, settings, work_of(request), log=request.log)

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)


def build_parser() -> argparse.ArgumentParser:
    parser = run_parser(
        "explorer.training.tagger",
        "Train the token tagger (explorer.detectors.tagger).",
        TrainingSettings,
        detectors.weights("tagger").shipped,
        also_shipped=[detectors.weights("tagger_coverage").shipped],  # the same tagger, other data
        also_dev="more dev files the step must hold on (the mean over files of each file's worst slice)",
    )
    parser.add_argument(
        "--part",
        choices=TRAIN_PARTS,
        default="all",
        help="all train claims, or the half for a stacked component (explorer.training.data.claim_half)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return guard.main(build_parser(), argv, lambda args: run(args, argv))


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    settings = parsed_settings(args, TrainingSettings)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    train_set = [e for e in labelled_train(args.data) if args.part == "all" or claim_half(e) == args.part]
    dev_sets = {
        path.name: [e for e in parse_jsonl(path).examples if e.labels.hallucination is not None]
        for path in [args.dev, *args.also_dev]
    }
    model, record = train(train_set, dev_sets, settings, args.work, log=log)
    record["train_data"] = [str(p) for p in args.data] + (
        [f"the {args.part} half of the claims"] if args.part != "all" else []
    )
    record["dev_data"] = [str(path) for path in [args.dev, *args.also_dev]]
    save_run(model, record, "explorer.training.tagger", argv, args.out / TASK, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
