"""Training-data ablations of a learned detector: Chang et al. 2024, Table 2 (§5.2).

The paper trains its classifiers on growing training sets and reports each one's test ROC AUC.
The stages, each adding to the one before:

| stage  | adds to the training set                                                        |
|--------|---------------------------------------------------------------------------------|
| Synth  | train split: error-free organic responses and their unparaphrased synthetic errors |
| +Para  | train split: error-free paraphrased responses and their synthetic errors         |
| +Dev   | the dev split's examples of both kinds above (dev is then no longer held out)    |
| +Org   | organic errors that are not ambiguous, from train and dev                        |

While dev is held out (Synth, +Para) the trainer chooses its settings on the dev split's
error-free and synthetic examples, as `explorer train` does; from +Dev on it uses its defaults.
Each stage's detector is saved to a temporary cache folder, loaded the way `explorer score`
loads it (a stage whose weights would not be the ones loaded is an error, not a silent score of
the shipped weights), and scored on the evaluation examples (without the result cache); the
table holds the example-level ROC AUC of each error type on each slice of
`explorer.evaluation.slices`. Stages given in `done` (an earlier run's, read back from its
record) are kept, not trained again: a long ablation runs in several sessions.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer import detectors
from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES, has_error, is_ambiguous, is_error_free, kind_of
from explorer.evaluation.auc import Settings, evaluate
from explorer.evaluation.slices import SLICES
from explorer.scoring.runner import score_example
from explorer.training import TrainingRequest
from explorer.training.data import target

STAGES = ("Synth", "+Para", "+Dev", "+Org")
_UNPARAPHRASED = ("organic", "synthetic")
_PARAPHRASED = ("paraphrased", "synthetic_paraphrased")


def _clean_or_synthetic(example: Example, kinds: Sequence[str]) -> bool:
    labels = example.labels
    if labels.hallucination is None or labels.coverage_error is None:
        return False
    kind = kind_of(labels)
    if is_error_free(labels):
        return kind in kinds
    return kind in kinds and kind != "organic"  # an error of these kinds is a synthetic one


def _organic_error(example: Example) -> bool:
    labels = example.labels
    return kind_of(labels) == "organic" and not is_ambiguous(labels) and any(has_error(labels, t) for t in ERROR_TYPES)


def stage_sets(examples: Sequence[Example]) -> list[tuple[str, list[Example], bool]]:
    """Per stage: its training examples (input order) and whether dev is still held out."""
    chosen: list[tuple[str, list[Example], bool]] = []
    rules = {
        "Synth": lambda e: e.split == "train" and _clean_or_synthetic(e, _UNPARAPHRASED),
        "+Para": lambda e: e.split == "train" and _clean_or_synthetic(e, _PARAPHRASED),
        "+Dev": lambda e: e.split == "dev" and _clean_or_synthetic(e, _UNPARAPHRASED + _PARAPHRASED),
        "+Org": lambda e: e.split in ("train", "dev") and _organic_error(e),
    }
    taken: set[str] = set()
    for stage in STAGES:
        taken |= {e.id for e in examples if rules[stage](e)}
        chosen.append((stage, [e for e in examples if e.id in taken], stage in ("Synth", "+Para")))
    return chosen


@dataclass(frozen=True)
class StageResult:
    stage: str
    train_examples: int
    auc: dict[tuple[str, str], float | None]  # (error type, slice) -> ROC AUC
    seconds: float


def run_ablation(
    examples: Sequence[Example],
    evaluated: Sequence[Example],
    detector_name: str,
    *,
    model: str | None = None,
    seed: int = 0,
    steps: dict | None = None,
    done: Sequence[StageResult] = (),
    save: Callable[[list[StageResult]], object] = lambda results: None,
    log: Callable[[str], None] = print,
) -> list[StageResult]:
    """Train `detector_name` (each task of its weights: an error type, or one model for both) at
    each stage on `examples`, or keep the stage's result from `done`; score `evaluated`. `save`
    gets the results so far after each stage trained, so a run cut short keeps them."""
    trainer = detectors.trainer(detector_name)
    weights = detectors.weights(detector_name)
    selection = [e for e in examples if e.split == "dev" and _clean_or_synthetic(e, _UNPARAPHRASED + _PARAPHRASED)]
    kept = {r.stage: r for r in done}
    results = []
    for stage, train_set, held_out in stage_sets(examples):
        if stage in kept:
            log(f"{stage}: kept from the earlier run")
            results.append(kept[stage])
            continue
        started = time.monotonic()
        log(f"{stage}: training on {len(train_set)} examples")
        for error_type in ERROR_TYPES:
            if len({target(e, error_type) for e in train_set}) < 2:
                raise ValueError(f"{stage}: the training set needs examples with and without a {error_type} error")
        with tempfile.TemporaryDirectory(prefix="explorer-ablation-") as folder, _cache_at(Path(folder)):
            for task in weights.tasks or (None,):
                request = TrainingRequest(
                    task=task,
                    train_set=train_set,
                    dev_set=selection,
                    dev_is_held_out=held_out,
                    model=model,
                    seed=seed,
                    steps=steps or {},
                    log=lambda line: log(f"  {line}"),
                    work=Path(folder) / "work" / str(task),  # a resumable trainer's checkpoints, for this stage only
                )
                trained, record = trainer.train(request)
                saved = weights.user_dir(record["model"], task)
                trainer.save(trained, record, saved)
                if weights.find(record["model"], task) != saved:
                    raise RuntimeError(f"{stage}: {detector_name} would not load the weights just trained ({saved})")
            detector = detectors.create(detector_name, model=model)  # finds the weights just saved
            # scored inside the block: a detector may load its weights at its first example
            scored = {e.id: score_example(e, [detector], None).results for e in evaluated}
        table = evaluate(evaluated, scored, [detector_name], Settings(n_bootstrap=0), word_level=False)
        auc = {(c.error_type, c.slice): c.auc for c in table.example_cells}
        results.append(StageResult(stage, len(train_set), auc, time.monotonic() - started))
        save(results)
    return results


def stage_record(result: StageResult) -> dict:
    """One stage of the saved record (`explorer eval --ablation --out OUT` writes OUT.json)."""
    return {
        "stage": result.stage,
        "train_examples": result.train_examples,
        "seconds": round(result.seconds, 1),
        "roc_auc": [{"error_type": t, "slice": s, "auc": auc} for (t, s), auc in result.auc.items()],
    }


def stage_result(record: Any) -> StageResult:
    """`stage_record` read back; a record of another shape, or with a figure no run makes (an AUC
    outside [0, 1], a negative count), is a `ValueError` naming the field."""
    if not isinstance(record, dict):
        raise ValueError("a stage must be a JSON object")
    stage = record.get("stage")
    if stage not in STAGES:
        raise ValueError(f"stage: {stage!r} is not one of {', '.join(STAGES)}")
    train_examples, seconds, cells = record.get("train_examples"), record.get("seconds"), record.get("roc_auc")
    if not _is_number(train_examples, integer=True) or train_examples < 0:
        raise ValueError(f"{stage}: train_examples: {train_examples!r} is not a count")
    if not _is_number(seconds) or seconds < 0:
        raise ValueError(f"{stage}: seconds: {seconds!r} is not a duration")
    if not isinstance(cells, list):
        raise ValueError(f"{stage}: roc_auc must be a list")
    auc = {}
    slices = {s.name for s in SLICES}
    for i, cell in enumerate(cells):
        where = f"{stage}: roc_auc[{i}]"
        if not isinstance(cell, dict) or cell.get("error_type") not in ERROR_TYPES or cell.get("slice") not in slices:
            raise ValueError(f"{where} must name an error type and a slice")
        value = cell.get("auc")
        if value is not None and not (_is_number(value) and 0 <= value <= 1):
            raise ValueError(f"{where}: auc {value!r} is not a ROC AUC in [0, 1]")
        auc[(cell["error_type"], cell["slice"])] = value
    return StageResult(stage, train_examples, auc, seconds)


def _is_number(value: Any, *, integer: bool = False) -> bool:
    kinds = int if integer else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool) and math.isfinite(value)


@contextmanager
def _cache_at(folder: Path):
    """Point the explorer's cache (`EXPLORER_CACHE_DIR`) at `folder` for the block: each stage's
    weights are saved and found where `explorer train` and `explorer score` put and find them,
    without touching the user's own trained detectors."""
    previous = os.environ.get("EXPLORER_CACHE_DIR")
    os.environ["EXPLORER_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if previous is None:
            del os.environ["EXPLORER_CACHE_DIR"]
        else:
            os.environ["EXPLORER_CACHE_DIR"] = previous


def markdown_table(results: Sequence[StageResult], detector_name: str) -> str:
    """Stages as rows; ROC AUC (%) per error type and slice as columns, Table 2's layout."""
    columns = [(t, s.name, f"{'H' if t == 'hallucination' else 'C'}: {s.title}") for t in ERROR_TYPES for s in SLICES]
    lines = [
        f"Training-data ablation of `{detector_name}` (ROC AUC %, H: hallucination, C: coverage error)",
        "",
        "| stage | train examples | " + " | ".join(title for _, _, title in columns) + " | seconds |",
        "|---|---:|" + "---:|" * len(columns) + "---:|",
    ]
    for result in results:
        cells = ["n/a" if result.auc.get((t, s)) is None else f"{100 * result.auc[(t, s)]:.1f}" for t, s, _ in columns]
        lines.append(
            f"| {result.stage} | {result.train_examples} | " + " | ".join(cells) + f" | {result.seconds:.0f} |"
        )
    return "\n".join(lines) + "\n"
