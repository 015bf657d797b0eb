"""A logistic regression on the semantic alignment, trained on synthetic errors: the learned
classifier that works where the paper's prompt-tuned one (Chang et al. 2024, §3.3) does not.

Not in the paper. The paper's classifier learns the whole task from 117 training examples;
on SmolLM2-135M with a 5-token prompt it stays at chance, and a MiniLM cross-encoder
fine-tuned with LoRA (`explorer.training.cross_encoder`) overfits its 39 positive units. Here the
representation is frozen, the alignment of `explorer.detectors.ops.alignment` (all-MiniLM-L6-v2 cosine
similarities between the response's claims and the argument sentences) plus word overlap,
and only a few weights are learned from the synthetic errors (§4.2), which that data can fit:

- hallucination, one unit per claim: its best similarity to an argument sentence, its
  similarity to the query, the share of its content stems found in any argument and in its
  best single argument, log(1 + its content words), and whether it opens or closes the
  response (where framing sits). Gold: the claim overlaps a `hallucinated_spans` span.
- coverage, one unit per argument: its best similarity to a claim, the share of its content
  stems found in the response and in its best single claim, log(1 + its content words).
  Gold: `uncovered` names it.

The example scores take the worst unit, as the other detectors do. Each feature is
standardized and scikit-learn's `LogisticRegression` (class-balanced) is fitted for a few
regularization strengths; the one with the best example-level dev ROC AUC is kept. The model
is a `LogisticHead` (`explorer.detectors.ops.logistic_head`): JSON of a few hundred bytes,
scored as scikit-learn's `predict_proba`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import overlaps
from explorer.detectors.alignment_classifier import FEATURES, features
from explorer.detectors.ops.alignment import Alignment, TooLongError, align
from explorer.detectors.ops.logistic_head import LogisticHead
from explorer.models.encoder import SentenceEncoder, shared_encoder
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training.data import roc_auc, target, training_record, write_record

REGULARIZATION = (0.01, 0.1, 1.0, 10.0)  # LogisticRegression's C, chosen on dev
UNTUNED_REGULARIZATION = 1.0  # scikit-learn's default, when dev is trained on too


def unit_targets(example: Example, alignment: Alignment, error_type: str) -> list[int]:
    """Gold per unit: a claim overlapping a hallucinated span; an argument named uncovered."""
    if error_type == "hallucination":
        return [int(overlaps(claim.span, example.labels.hallucinated_spans)) for claim in alignment.claims]
    uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
    return [int(key in uncovered) for key in alignment.arguments]


def save(model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
    model.save(out)
    write_record(record, out)


def train(
    error_type: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    encoder: SentenceEncoder,
    *,
    dev_is_held_out: bool = True,
    log: Callable[[str], None] = print,
) -> tuple[LogisticHead, dict[str, Any]]:
    """Fit the unit model for `error_type` for each strength in `REGULARIZATION` and keep the best on dev."""
    started = time.monotonic()
    rows, gold = [], []
    for example in train_set:
        alignment = align(example, encoder)
        rows.append(features(example, alignment, error_type))
        gold.extend(unit_targets(example, alignment, error_type))
    positives = sum(gold)
    if not 0 < positives < len(gold):
        raise ValueError(f"the training data needs {error_type} units with and without an error")
    dev_rows = [features(example, align(example, encoder), error_type) for example in dev_set]
    dev_targets = [bool(target(example, error_type)) for example in dev_set]
    log(f"features of {len(train_set)} train and {len(dev_set)} dev examples ({time.monotonic() - started:.0f} s)")

    fits: list[tuple[float, float | None, LogisticHead]] = []
    for strength in REGULARIZATION:
        model = LogisticHead.fit(error_type, FEATURES[error_type], np.vstack(rows), gold, strength)
        auc = None
        if len(set(dev_targets)) == 2:
            auc = roc_auc(dev_targets, [float(model.p_error(r).max()) if len(r) else 0.0 for r in dev_rows])
        fits.append((strength, auc, model))
        log(f"C={strength}: dev ROC AUC {'n/a' if auc is None else f'{auc:.3f}'}")
    scored = [fit for fit in fits if fit[1] is not None]
    if dev_is_held_out and scored:
        kept = max(scored, key=lambda fit: fit[1])  # ties go to the stronger regularization, listed first
    else:
        kept = next(fit for fit in fits if fit[0] == UNTUNED_REGULARIZATION)
    record = training_record(
        error_type,
        encoder.identity(),
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=[[strength, auc] for strength, auc, _ in fits],
        started=started,
        features=list(FEATURES[error_type]),
        train_units=len(gold),
        train_positive_units=positives,
        kept_C=kept[0],
    )
    return kept[2], record


class LogisticTrainer:
    """`explorer train --detector alignment_classifier`: the logistic regression on the alignment."""

    description = "a logistic regression per error type on the semantic alignment (MiniLM) and word overlap, in seconds"
    settings = None
    no_step_options = "a logistic regression; its regularization is chosen on dev"
    reads_organic_errors = False
    model_help = "a local sentence-transformers / BERT-style folder (default: the packaged all-MiniLM-L6-v2)"

    def encoder(self, model: str | None) -> SentenceEncoder:
        """The encoder whose alignment the regression reads: the process's shared one for that
        folder, as the tuned trainer's is, so that `eval --ablation`'s eight trainings load MiniLM
        once and encode each text once (its test's tiny set: 22 s with a new encoder each, 8 s)."""
        return shared_encoder(model)

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        try:
            encoder = self.encoder(request.model)
            return train(
                request.task,
                request.train_set,
                request.dev_set,
                encoder,
                dev_is_held_out=request.dev_is_held_out,
                log=request.log,
            )
        except (FileNotFoundError, TooLongError) as error:
            raise TrainingInputError(str(error)) from error

    def save(self, model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
        save(model, record, out)
