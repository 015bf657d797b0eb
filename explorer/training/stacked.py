"""Training the stacked detector (`explorer.detectors.stacked`): a logistic regression per error
type over its components' example scores (`explorer.detectors.stacked.COMPONENTS`).

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.stacked --data ~/.cache/rag-error-explorer/perspectrum.jsonl

trains both error types on the Perspectrum train split's error-free and synthetic examples plus
the sample data's train split, and chooses C and the feature set (each component's score of the
error type, or both of its scores) on the Perspectrum dev split only; it writes
`explorer/resources/stacked/<error type>/` (`model.json` and `training.json`, whose `weights_sha256`
is the model file's digest).
`explorer train --detector stacked --task T --data ...` trains one error type through the same code
(its dev set is then the dev split of every file given).

`explorer train` reads the components' results through the result cache (its request's
`score_examples`), so a second run (another C grid, the other error type) costs seconds; this
module's command, below the scoring layer, scores them itself (`score_directly`) once for both
error types: about 2,900 examples with two MiniLM encoders, a few minutes on one CPU thread.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer import detectors
from explorer.data.example import Example
from explorer.data.labels import has_error, is_error_free
from explorer.detectors.base import Detector, DetectorError, DetectorResult
from explorer.detectors.ops.logistic_head import LogisticHead
from explorer.detectors.stacked import (
    COMPONENTS,
    FEATURES,
    components_identity,
    create_components,
    feature_row,
    p_error,
)
from explorer.training import ScoreExamples, TrainingInputError, TrainingRequest
from explorer.training.data import roc_auc, target, training_record, write_record
from explorer.training.logistic import REGULARIZATION, UNTUNED_REGULARIZATION


def feature_sets(error_type: str) -> dict[str, tuple[str, ...]]:
    """The feature sets tried on dev, smallest first: one component's score of the error type alone, the
    error type's own scores of every component, or all of them. A component alone wins where the head
    fitted on the training data's mix would lean on cues the dev answers lack (on the foreign dev
    set the tagger alone ranked hallucinations best: each set's AUC is in `training.json`'s
    `dev_roc_auc`)."""
    alone = {component: (f"{component} {error_type}",) for component in COMPONENTS}
    return {**alone, "own": tuple(f for f in FEATURES if f.endswith(error_type)), "all": FEATURES}


# Examples whose components prepare together in `score_directly`: the sentence encoders' batches
# fill up while memory stays flat (as `explorer.scoring.runner.CHUNK`).
CHUNK = 128


def score_directly(examples: Sequence[Example], detectors: Sequence[Detector]) -> Iterator[dict[str, DetectorResult]]:
    """`ScoreExamples` without a cache: each chunk of examples prepared for, then scored."""
    for start in range(0, len(examples), CHUNK):
        chunk = examples[start : start + CHUNK]
        for detector in detectors:
            detector.prepare(chunk)
        for example in chunk:
            try:
                yield {detector.name: detector.score(example) for detector in detectors}
            except DetectorError as error:
                raise DetectorError(f"example {example.id} could not be scored ({error})") from error


def feature_matrix(
    examples: Sequence[Example], components: Mapping[str, Detector], score: ScoreExamples = score_directly
) -> np.ndarray:
    """One row of `FEATURES` per example, from its components' results (through `score`)."""
    try:
        rows = [feature_row(results) for results in score(examples, [components[name] for name in COMPONENTS])]
    except DetectorError as error:
        raise TrainingInputError(str(error)) from error
    return np.vstack(rows) if rows else np.zeros((0, len(FEATURES)))


def slice_examples(examples: Sequence[Example], error_type: str) -> list[Example]:
    """The examples of `error_type`'s slices: error-free ones and those with an `error_type` error; an example
    with the other error type only is left out, as `explorer eval` leaves it out of the slices.
    Fitted with those as negatives too (tried first), the hallucination head reached the same dev
    ROC AUC by weighting the cross-encoder's coverage score -12.6 (standardized),
    which made its evidence unreadable; fitted on the slices, its largest weight is 1.4."""
    return [e for e in examples if is_error_free(e.labels) or has_error(e.labels, error_type)]


def fit(
    error_type: str, features: Sequence[str], rows: np.ndarray, gold: Sequence[int], strength: float
) -> LogisticHead:
    """The head on the named `features` columns of rows of all `FEATURES`."""
    return LogisticHead.fit(error_type, features, rows[:, [FEATURES.index(name) for name in features]], gold, strength)


def train(
    error_type: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    components: Mapping[str, Detector],
    *,
    dev_is_held_out: bool = True,
    score: ScoreExamples = score_directly,
    log: Callable[[str], None] = print,
) -> tuple[LogisticHead, dict[str, Any]]:
    """Fit `error_type` for each feature set and C on the train examples of `error_type`'s slices
    (`slice_examples`); keep the best example-level dev ROC AUC on the dev examples of the same
    slices (ties: the smaller feature set, then the stronger regularization)."""
    started = time.monotonic()
    train_set = slice_examples(train_set, error_type)
    gold = [target(e, error_type) for e in train_set]
    if len(set(gold)) < 2:
        raise TrainingInputError(f"the training data needs examples with and without a {error_type} error")
    rows = feature_matrix(train_set, components, score)
    # Dev AUC as `explorer eval` reports it.
    dev_slice = slice_examples(dev_set, error_type)
    dev_rows = feature_matrix(dev_slice, components, score)
    dev_gold = [target(e, error_type) for e in dev_slice]
    dev_scored = len(set(dev_gold)) == 2
    log(
        f"{error_type}: component scores of {len(train_set)} train and {len(dev_slice)} dev examples "
        f"({time.monotonic() - started:.0f} s)"
    )
    component_auc = {
        name: roc_auc(dev_gold, dev_rows[:, FEATURES.index(name)]) if dev_scored else None
        for name in FEATURES
        if name.endswith(error_type)
    }
    fits = []
    for set_name, features in feature_sets(error_type).items():
        for strength in REGULARIZATION:
            model = fit(error_type, features, rows, gold, strength)
            auc = roc_auc(dev_gold, [p_error(model, row) for row in dev_rows]) if dev_scored else None
            fits.append((set_name, strength, auc, model))
            log(
                f"{error_type}: {set_name} features, C={strength}: dev ROC AUC {'n/a' if auc is None else f'{auc:.3f}'}"
            )
    if dev_is_held_out and dev_scored:
        kept = max(fits, key=lambda fit: fit[2])  # max keeps the first of equals: listed smallest, strongest first
    else:
        kept = next(fit for fit in fits if fit[0] == "own" and fit[1] == UNTUNED_REGULARIZATION)
    record = training_record(
        error_type,
        components_identity(components),
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=[[set_name, strength, auc] for set_name, strength, auc, _ in fits],
        started=started,
        dev_slice_examples=len(dev_slice),
        component_dev_roc_auc=component_auc,
        kept_features=kept[0],
        kept_C=kept[1],
    )
    return kept[3], record


def save(model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
    """Write `model.json` and `training.json` (with the model file's sha256) to folder `out`."""
    digest = model.save(out)
    write_record({**record, "weights_sha256": digest}, out)


class StackedTrainer:
    """`explorer train --detector stacked`: the logistic regression over the components' scores."""

    description = "a logistic regression per error type over its components' example scores"
    settings = None
    no_step_options = "a logistic regression; its regularization and features are chosen on dev"
    model_help = "none: it reads its components as `explorer score` makes them, your trained weights before the shipped"

    def train(self, request: TrainingRequest) -> tuple[LogisticHead, dict[str, Any]]:
        if request.model:
            raise TrainingInputError(f"--model does not apply to the stacked detector ({self.model_help})")
        try:
            components = create_components()
        except DetectorError as error:
            raise TrainingInputError(str(error)) from error
        return train(
            request.task,
            request.train_set,
            request.dev_set,
            components,
            dev_is_held_out=request.dev_is_held_out,
            score=request.score_examples or score_directly,
            log=request.log,
        )

    def save(self, model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
        save(model, record, out)


def scored_once(score: ScoreExamples) -> ScoreExamples:
    """`score` that keeps each example's results (by content), so the second error type's fit reads
    them back instead of scoring the shared examples again."""
    kept: dict[str, Mapping[str, DetectorResult]] = {}

    def score_once(examples: Sequence[Example], detectors: Sequence[Detector]) -> list[Mapping[str, DetectorResult]]:
        keys = [e.content_hash() for e in examples]
        missing = {key: e for key, e in zip(keys, examples) if key not in kept}
        kept.update(zip(missing, score(list(missing.values()), detectors)))
        return [kept[key] for key in keys]

    return score_once


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.training.data import foreign_training

    given = foreign_training(
        "Train the stacked detector on Perspectrum + sample train, choosing C and features on Perspectrum dev.",
        detectors.weights("stacked").shipped,
        argv,
    )
    components, score = create_components(), scored_once(score_directly)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for error_type in given.error_types:
        model, record = train(error_type, given.train_set, given.dev_set, components, score=score, log=log)
        given.stamp(record, "explorer.training.stacked")
        save(model, record, given.out / error_type)
        kept = f"kept {record['kept_features']} features, C={record['kept_C']}"
        log(f"{error_type}: {kept}, written to {given.out / error_type}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
