"""The cross-encoder retrained on the Perspectrum-built examples.

    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.tuned_cross_encoder --data ~/.cache/rag-error-explorer/perspectrum.jsonl --ship

Same model and training loop as `explorer.training.cross_encoder` (LoRA adapters and a head on
all-MiniLM-L6-v2, balanced batches of units), with two changes:

- it trains on the Perspectrum train split's error-free and synthetic examples plus the sample
  data's train split: about 20 times the sample's units, human paraphrases instead of the team's;
- the kept step is chosen on Perspectrum dev only (a seeded subset of `DEV_SUBSET` examples:
  scoring all of dev at every evaluation point would cost more than the training).

The adapters go to `--out FOLDER/<error type>/`, or with `--ship` to the shipped
`explorer/resources/cross_encoder_tuned/<error type>/` (about 1.4 MB each) with their
`training.json`, where `cross_encoder_tuned` finds them.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import Sequence
from typing import Any

from explorer import detectors
from explorer.cli import guard
from explorer.data.example import Example
from explorer.training import TrainingRequest, cross_encoder
from explorer.training import data as training_data


@dataclasses.dataclass(frozen=True)
class TrainingSettings(cross_encoder.TrainingSettings):
    steps: int = 400
    learning_rate: float = 1e-3
    eval_every: int = 100


SETTINGS = TrainingSettings()
DEV_SUBSET = 150


def dev_subset(dev_set: Sequence[Example], seed: int) -> list[Example]:
    return random.Random(seed).sample(list(dev_set), min(DEV_SUBSET, len(dev_set)))


class TunedCrossEncoderTrainer(cross_encoder.CrossEncoderTrainer):
    """`explorer train --detector cross_encoder_tuned`: the cross-encoder with `main`'s settings, its
    step chosen on a seeded `DEV_SUBSET` of the dev split."""

    description = f"the cross-encoder's LoRA adapters and head, step chosen on {DEV_SUBSET} dev examples"
    settings = TrainingSettings

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        return super().train(dataclasses.replace(request, dev_set=dev_subset(request.dev_set, request.seed)))


def build_parser():
    return training_data.foreign_parser(
        "explorer.training.tuned_cross_encoder",
        "Retrain the cross-encoder on Perspectrum.",
        detectors.weights("cross_encoder_tuned").shipped,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return guard.main(build_parser(), argv, lambda args: run(training_data.foreign_sets(args, argv)))


def run(given: training_data.ForeignTraining) -> int:
    dev_set = dev_subset(given.dev_set, SETTINGS.seed)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for error_type in given.error_types:
        log(f"{error_type}: {len(given.train_set)} train examples, {len(dev_set)} Perspectrum dev examples")
        model, record = cross_encoder.train(error_type, given.train_set, dev_set, SETTINGS, log=log)
        given.stamp(
            record, "explorer.training.tuned_cross_encoder", f", a {len(dev_set)}-example subset (seed {SETTINGS.seed})"
        )
        training_data.save_peft(model, record, given.out / error_type)
        log(f"{error_type}: kept step {record['kept_step']}, written to {given.out / error_type}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
