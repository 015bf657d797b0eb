"""`explorer train`: one protocol for every learned detector's trainer.

A learned detector names its trainer and its weights in its `DetectorSpec` (`trainer="module:Class"`,
`weights=Weights(...)`); the CLI finds both there (`explorer.detectors.trainer(name)`,
`explorer.detectors.weights(name)`), so a new learned detector needs its detector module, its
trainer module and one registry entry.

Every trainer fits one task of its weights (an error type, or the one task of a model that
answers both) on error-free and synthetic examples of the train split
(`explorer.training.data.training_examples`), chooses what it chooses (steps, regularization)
on the dev split, and returns the model with its `training.json` record
(`explorer.training.data.training_record`); `save` writes both where the detector finds them
(`explorer.models.trained.Weights`). `explorer train --detector NAME --help` shows the trainer's
`description`, `model_help` and the defaults of its `settings`.

Training sits below scoring and evaluation, so what a trainer reads from them comes in its
request, built by the command that runs it (`explorer.cli.train`): the stacked trainer's
components' results through the result cache (`score_examples`), the generator's dev check of
its answers by the verdict detector (`check_answer`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorResult

# Each example's results by the detectors (name -> result), in the examples' order; raises
# `DetectorError` naming the example that could not be scored.
ScoreExamples = Callable[[Sequence[Example], Sequence[Detector]], Iterable[Mapping[str, DetectorResult]]]


class TrainingInputError(ValueError):
    """The data, model or options cannot be trained on: a usage error, not a crash."""


@dataclass(frozen=True)
class TrainingRequest:
    """What `explorer train` asks of a trainer. `steps` holds only the step options the user gave
    (`steps`, `batch_size`, `learning_rate`, `eval_every`); the trainer's defaults fill the rest."""

    task: str | None
    train_set: Sequence[Example]
    dev_set: Sequence[Example]
    dev_is_held_out: bool
    model: str | None = None
    seed: int = 0
    steps: Mapping[str, Any] = field(default_factory=dict)
    log: Callable[[str], None] = print
    work: Path | None = None  # a resumable trainer's checkpoint folder (`--work`): a rerun resumes from it
    score_examples: ScoreExamples | None = None  # None: the trainer scores what it reads itself, uncached
    check_answer: Callable[[Example], bool] | None = None  # whether an answer passes; None: answers unchecked


class Trainer(Protocol):
    """Fits one learned detector for one task of its weights."""

    description: str  # what it trains, for `--help`
    # Its settings dataclass: the field defaults are the defaults (`--steps`, `--batch-size`, `--lr`,
    # `--eval-every` set the fields of those names); None for a fit without steps.
    settings: type | None
    # None when the trainer takes gradient steps; else why `--steps` and its kin do not apply.
    no_step_options: str | None
    model_help: str  # what `--model` names for it, and its default
    # True where it learns from where answers mark their errors: `explorer train` then gives it
    # organic answers with errors too, not only the faithful ones and the synthetic errors.
    reads_organic_errors: bool

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        """Fit the model; returns it with its training record. Bad data or a missing model
        raise `TrainingInputError`."""

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        """Write the model and `training.json` to folder `out`."""
