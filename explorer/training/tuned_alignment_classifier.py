"""The alignment classifier retrained on the Perspectrum-built examples, reading the tuned matcher.

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.tuned_alignment_classifier --data ~/.cache/rag-error-explorer/perspectrum.jsonl --ship

Same model as `explorer.detectors.alignment_classifier` (trained by `explorer.training.logistic`: a
logistic regression per error type on the semantic alignment's similarities and word overlap), with
three changes:

- the alignment is computed with the tuned matcher (`explorer.models.matcher`), not plain MiniLM;
- it trains on the Perspectrum train split's error-free and synthetic examples plus the sample
  data's train split (`sample_data/synthetic.jsonl`);
- the regularization C is chosen on the Perspectrum dev split only (never the sample data's dev
  or test split).

The models go to `--out FOLDER/<error type>/`, or with `--ship` to the shipped
`explorer/resources/alignment_classifier_tuned/<error type>/` (JSON, a few hundred bytes) with
their `training.json`, where `alignment_classifier_tuned` finds them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from explorer import detectors
from explorer.cli import guard
from explorer.models.encoder import SentenceEncoder
from explorer.models.matcher import shared_matcher_encoder
from explorer.training import data as training_data
from explorer.training import logistic


class TunedLogisticTrainer(logistic.LogisticTrainer):
    """`explorer train --detector alignment_classifier_tuned`: the logistic regression on the tuned
    matcher's alignment (C chosen on the dev split of the files given: Perspectrum dev for `main`'s data)."""

    description = "a logistic regression per error type on the tuned matcher's alignment and word overlap"
    model_help = "the tuned matcher's adapter folder (default: the user's matcher, else the shipped one)"

    def encoder(self, model: str | None) -> SentenceEncoder:
        return shared_matcher_encoder(model)


def build_parser():
    return training_data.foreign_parser(
        "explorer.training.tuned_alignment_classifier",
        "Retrain the alignment classifier on Perspectrum with the tuned matcher.",
        detectors.weights("alignment_classifier_tuned").shipped,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return guard.main(build_parser(), argv, lambda args: run(training_data.foreign_sets(args, argv)))


def run(given: training_data.ForeignTraining) -> int:
    train_set, dev_set = given.train_set, given.dev_set
    encoder = shared_matcher_encoder()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for error_type in given.error_types:
        log(f"{error_type}: {len(train_set)} train examples, {len(dev_set)} Perspectrum dev examples")
        model, record = logistic.train(error_type, train_set, dev_set, encoder, log=log)
        given.stamp(record, "explorer.training.tuned_alignment_classifier")
        logistic.save(model, record, given.out / error_type)
        log(f"{error_type}: kept C={record['kept_C']}, written to {given.out / error_type}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
