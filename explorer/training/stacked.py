"""Training the stacked detector (`explorer.detectors.stacked`): a logistic regression per error
type over its components' example scores (`explorer.detectors.stacked.COMPONENTS`).

Per error type, the head is fitted for each C and feature set (`feature_sets`) and the best on
the dev examples is kept; `save` writes `model.json` and `training.json` (whose `weights_sha256`
is the model file's digest).

The components' scores come from the caller (`ScoreExamples`), which runs the scoring layer:
`explorer train --detector stacked` reads them through the result cache, and the command that
made the shipped heads, `python -m explorer.cli.stacked`, scores them once for both error types.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import has_error, is_error_free
from explorer.detectors.base import Detector, DetectorError
from explorer.detectors.ops import argument_head
from explorer.detectors.ops.logistic_head import LogisticHead
from explorer.detectors.stacked import (
    CHECKS,
    COMPONENTS,
    FEATURES,
    components_identity,
    create_components,
    feature_row,
    p_error,
)
from explorer.evaluation.slices import SLICES, slice_members, variant_slices
from explorer.training import ScoreExamples, TrainingInputError, TrainingRequest
from explorer.training.data import roc_auc, target, training_record, write_record
from explorer.training.logistic import REGULARIZATION, UNTUNED_REGULARIZATION


def feature_sets(error_type: str) -> dict[str, tuple[str, ...]]:
    """The feature sets tried on dev, smallest first: one component's score of the error type alone;
    two or three components' (signals the best one lacks: the voice and qualifier checks beside the
    tagger); the error type's own scores of every component; all of them but one component's (or
    but the `CHECKS`'); all of them. A component alone wins where the head fitted on the training
    data's mix would lean on cues the dev answers lack (on the foreign dev set the tagger alone
    ranked hallucinations best until the checks joined); one left out wins where two components say
    the same thing and the head weighs the one that transfers worse (the tagger beside its coverage
    build). Each set's AUC is in `training.json`'s `dev_roc_auc`."""
    alone = {component: (f"{component} {error_type}",) for component in COMPONENTS}
    combined = {
        " + ".join(chosen): tuple(f"{component} {error_type}" for component in chosen)
        for size in (2, 3)
        for chosen in itertools.combinations(COMPONENTS, size)
    }
    but = {f"all but {component}": tuple(f for f in FEATURES if f.split()[0] != component) for component in COMPONENTS}
    but["all but checks"] = tuple(f for f in FEATURES if f.split()[0] not in CHECKS)
    # A check's signal can transfer where the others' do not (the polarity check on a turned argument).
    but |= {
        f"all but checks, with {check}": tuple(f for f in FEATURES if f.split()[0] not in CHECKS or f.startswith(check))
        for check in CHECKS
    }
    return {**alone, **combined, "own": tuple(f for f in FEATURES if f.endswith(error_type)), **but, "all": FEATURES}


def named_set(error_type: str, name: str, candidates: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The feature set `name`: one of `candidates` (`feature_sets`), or any components joined by
    " + " (a set larger than the three components the search tries)."""
    if name in candidates:
        return candidates[name]
    chosen = name.split(" + ")
    if set(chosen) <= set(COMPONENTS) and len(set(chosen)) == len(chosen):
        return tuple(f"{component} {error_type}" for component in chosen)
    raise TrainingInputError(
        f"no {error_type} feature set {name!r}; the sets: {', '.join(candidates)}, "
        f"or components joined by ' + ' ({', '.join(COMPONENTS)})"
    )


def feature_matrix(examples: Sequence[Example], components: Mapping[str, Detector], score: ScoreExamples) -> np.ndarray:
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


def selection_slices(examples: Sequence[Example], error_type: str) -> dict[str, list[tuple[Example, bool]]]:
    """The slices of one dev set a choice must hold on: each recipe variant where the records name
    them (`explorer.evaluation.slices.variant_slices`), else the paper's slices but the ambiguous
    one (its errors are ambiguous by design), each with both classes."""
    variants = variant_slices(examples, error_type)
    if variants:
        return {f"variant {name}": members for name, members in variants}
    found = {}
    for chosen in SLICES:
        members = slice_members(examples, error_type, chosen.name)
        if not chosen.ambiguous_positives and len({label for _, label in members}) == 2:
            found[chosen.name] = members
    return found


def worst_slices(
    dev: Mapping[str, Mapping[str, list[tuple[Example, bool]]]], scores: Mapping[str, float]
) -> tuple[float | None, dict[str, float]]:
    """The mean over dev sets of each set's worst slice ROC AUC (a choice counts only if it holds
    on the worst slice of each), and every slice's AUC, from scores by example id."""
    aucs = {
        f"{name}: {slice_name}": roc_auc([label for _, label in members], [scores[e.id] for e, _ in members])
        for name, slices in dev.items()
        for slice_name, members in slices.items()
    }
    worst = [min(aucs[f"{name}: {s}"] for s in slices) for name, slices in dev.items() if slices]
    return (float(np.mean(worst)) if worst else None), aucs


def fit(
    error_type: str, features: Sequence[str], rows: np.ndarray, gold: Sequence[int], strength: float
) -> LogisticHead:
    """The head on the named `features` columns of rows of all `FEATURES`, but those constant on
    `rows` (the matching check's hallucination score is always 0): they could take no weight, and
    the verdict's evidence would list them as reasons that add nothing."""
    varying = [name for name in features if np.ptp(rows[:, FEATURES.index(name)]) != 0] or list(features)
    return LogisticHead.fit(error_type, varying, rows[:, [FEATURES.index(name) for name in varying]], gold, strength)


def train(
    error_type: str,
    train_set: Sequence[Example],
    dev_sets: Mapping[str, Sequence[Example]],
    components: Mapping[str, Detector],
    score: ScoreExamples,
    *,
    dev_is_held_out: bool = True,
    features: str | None = None,
    log: Callable[[str], None] = print,
) -> tuple[LogisticHead, dict[str, Any]]:
    """Fit `error_type` for each feature set (or the one named `features`) and C on the train
    examples of `error_type`'s slices (`slice_examples`); keep the fit whose worst slices on the dev
    sets are best (`worst_slices` over each set's `selection_slices`; ties: the smaller feature set,
    then the stronger regularization)."""
    started = time.monotonic()
    candidates = feature_sets(error_type)
    if features is not None:
        candidates = {features: named_set(error_type, features, candidates)}
    train_set = slice_examples(train_set, error_type)
    gold = [target(e, error_type) for e in train_set]
    if len(set(gold)) < 2:
        raise TrainingInputError(f"the training data needs examples with and without a {error_type} error")
    rows = feature_matrix(train_set, components, score)
    dev = {name: selection_slices(examples, error_type) for name, examples in dev_sets.items()}
    dev_examples = list(
        {e.id: e for slices in dev.values() for members in slices.values() for e, _ in members}.values()
    )
    dev_rows = dict(zip([e.id for e in dev_examples], feature_matrix(dev_examples, components, score)))
    dev_scored = any(dev.values())
    log(
        f"{error_type}: component scores of {len(train_set)} train and {len(dev_examples)} dev examples "
        f"({time.monotonic() - started:.0f} s)"
    )
    component_auc = {
        name: worst_slices(dev, {i: row[FEATURES.index(name)] for i, row in dev_rows.items()})[0]
        if dev_scored
        else None
        for name in FEATURES
        if name.endswith(error_type)
    }
    fits = []
    for set_name, chosen in candidates.items():
        for strength in REGULARIZATION:
            model = fit(error_type, chosen, rows, gold, strength)
            worst, aucs = worst_slices(dev, {i: p_error(model, row) for i, row in dev_rows.items()})
            fits.append((set_name, strength, worst, model, aucs))
            shown = "n/a" if worst is None else f"{worst:.3f}"
            log(f"{error_type}: {set_name} features, C={strength}: worst dev slices {shown}")
    if dev_is_held_out and dev_scored:
        kept = max(fits, key=lambda fit: fit[2])  # max keeps the first of equals: listed smallest, strongest first
    else:
        kept = next(fit for fit in fits if fit[0] == (features or "own") and fit[1] == UNTUNED_REGULARIZATION)
    record = training_record(
        error_type,
        components_identity(components),
        train_set,
        dev_examples,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=[[set_name, strength, worst] for set_name, strength, worst, _, _ in fits],
        started=started,
        dev_selection="mean over dev sets of each set's worst slice ROC AUC (explorer.training.stacked.worst_slices)",
        dev_slice_examples={name: {s: len(m) for s, m in slices.items()} for name, slices in dev.items()},
        kept_dev_slices=kept[4],
        component_dev_roc_auc=component_auc,
        kept_features=kept[0],
        kept_C=kept[1],
    )
    return kept[3], record


def labelled_arguments(
    train_set: Sequence[Example], components: Mapping[str, Detector], score: ScoreExamples
) -> tuple[list[Example], np.ndarray, list[int]]:
    """The train examples of the coverage slices that say which argument is dropped (error-free
    answers and those with a dropped argument: a coverage error that names none gives its arguments
    no label), their arguments' rows (`explorer.detectors.ops.argument_head.rows`) and whether each
    argument is dropped."""
    examples = [e for e in slice_examples(train_set, "coverage") if is_error_free(e.labels) or e.labels.uncovered]
    try:
        read = score(examples, [components[name] for name in COMPONENTS])
    except DetectorError as error:
        raise TrainingInputError(str(error)) from error
    rows, gold = [np.zeros((0, len(argument_head.FEATURES)))], []
    for example, results in zip(examples, read):
        keys, found = argument_head.rows(example, results)
        dropped = {(u.perspective, u.argument) for u in example.labels.uncovered}
        rows.append(found)
        gold += [int(key in dropped) for key in keys]
    return examples, np.vstack(rows), gold


def train_arguments(
    train_set: Sequence[Example],
    components: Mapping[str, Detector],
    score: ScoreExamples,
    log: Callable[[str], None] = print,
) -> tuple[LogisticHead, dict[str, Any]]:
    """The argument head (`explorer.detectors.ops.argument_head`) on `labelled_arguments`."""
    examples, rows, gold = labelled_arguments(train_set, components, score)
    if len(set(gold)) < 2:
        raise TrainingInputError("the argument head needs dropped and stated arguments among the training answers")
    log(f"arguments: {len(gold)} arguments of {len(examples)} answers, {sum(gold)} dropped")
    record = {"C": argument_head.STRENGTH, "train_answers": len(examples), "train_arguments": len(gold)}
    return argument_head.fit(rows, gold), {**record, "dropped": sum(gold)}


def save(
    model: LogisticHead,
    record: Mapping[str, Any],
    out: Path,
    arguments: tuple[LogisticHead, Mapping[str, Any]] | None = None,
) -> None:
    """Write `model.json` and `training.json` (with the model file's sha256) to folder `out`, and
    the argument head (`train_arguments`) beside a coverage head; without one, an argument head left
    there from before is removed, since it was fitted beside another head."""
    digest = model.save(out)
    if arguments is not None:
        head, fitted = arguments
        record = {**record, "arguments": {**fitted, "weights_sha256": head.save(out, argument_head.FILE)}}
    else:
        (Path(out) / argument_head.FILE).unlink(missing_ok=True)
    write_record({**record, "weights_sha256": digest}, out)


class StackedTrainer:
    """`explorer train --detector stacked`: the logistic regression over the components' scores."""

    description = "a logistic regression per error type over its components' example scores"
    settings = None
    no_step_options = "a logistic regression; its regularization and features are chosen on dev"
    reads_organic_errors = False
    model_help = "none: it reads its components as `explorer score` makes them, your trained weights before the shipped"

    def train(self, request: TrainingRequest) -> tuple[LogisticHead, dict[str, Any]]:
        if request.model:
            raise TrainingInputError(f"--model does not apply to the stacked detector ({self.model_help})")
        if request.score_examples is None:
            raise TrainingInputError("the stacked detector reads its components' scores through `score_examples`")
        try:
            components = create_components()
        except DetectorError as error:
            raise TrainingInputError(str(error)) from error
        return train(
            request.task,
            request.train_set,
            {"dev": request.dev_set},
            components,
            request.score_examples,
            dev_is_held_out=request.dev_is_held_out,
            log=request.log,
        )

    def save(self, model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
        save(model, record, out)
