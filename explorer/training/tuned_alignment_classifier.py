"""The alignment classifier retrained on the Perspectrum-built examples, reading the tuned matcher.

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.tuned_alignment_classifier --data ~/.cache/rag-error-explorer/perspectrum.jsonl

Same model as `explorer.detectors.alignment_classifier` (trained by `explorer.training.logistic`: a
logistic regression per task on the semantic alignment's similarities and word overlap), with
three changes:

- the alignment is computed with the tuned matcher (`explorer.models.matcher`), not plain MiniLM;
- it trains on the Perspectrum train split's error-free and synthetic examples plus the sample
  data's train split (`sample_data/synthetic.jsonl`);
- the regularization C is chosen on the Perspectrum dev split only (never the sample data's dev
  or test split).

The models go to `explorer/resources/alignment_classifier_tuned/<task>/` (JSON, a few hundred
bytes) with their `training.json`, where `alignment_classifier_tuned` finds them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.alignment_classifier_tuned import SHIPPED
from explorer.models.matcher import shared_matcher_encoder
from explorer.training import data as training_data
from explorer.training import logistic


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Retrain the alignment classifier on Perspectrum with the tuned matcher."
    )
    parser.add_argument("--data", type=Path, required=True, help="output of python -m explorer.data.perspectrum")
    parser.add_argument(
        "--sample", type=Path, default=SAMPLE_DIR / "synthetic.jsonl", help="sample data added to train"
    )
    parser.add_argument("--no-sample", action="store_true", help="train on Perspectrum train only")
    parser.add_argument("--out", type=Path, default=SHIPPED)
    parser.add_argument("--tasks", default=",".join(ERROR_TYPES))
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    foreign = parse_jsonl(args.data).examples
    train_set = training_data.training_examples(foreign, ["train"])
    if not args.no_sample:
        train_set += training_data.training_examples(parse_jsonl(args.sample).examples, ["train"])
    dev_set = training_data.training_examples(foreign, ["dev"])
    encoder = shared_matcher_encoder()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    for task in args.tasks.split(","):
        log(f"{task}: {len(train_set)} train examples, {len(dev_set)} Perspectrum dev examples")
        model, record = logistic.train(task, train_set, dev_set, encoder, log=log)
        record["train_data"] = ["perspectrum train (explorer.data.perspectrum, seed 0)"] + (
            [] if args.no_sample else ["sample_data/synthetic.jsonl train"]
        )
        record["dev_data"] = "perspectrum dev (explorer.data.perspectrum, seed 0)"
        record["command"] = "python -m explorer.training.tuned_alignment_classifier " + " ".join(sys.argv[1:])
        logistic.save(model, record, args.out / task)
        log(f"{task}: kept C={record['kept_C']}, written to {args.out / task}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
