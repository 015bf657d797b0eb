"""Every subset of the stacked detector's components as its feature set: the dev ROC AUC of each
fit on the foreign NPOV dev set (pooled, as the shipped command chooses, and per slice) and on
Perspectrum dev, for one error type.

    python bench/stacked_features.py --error-type hallucination \
        --data ~/.cache/rag-error-explorer/perspectrum.jsonl --organic ~/.cache/rag-error-explorer/written.jsonl

Each subset of `explorer.detectors.stacked.COMPONENTS` gives two feature sets (the components'
scores of the error type, or both of their scores), each fitted at every C of
`explorer.training.logistic.REGULARIZATION` on the head's half of the claims, as the shipped
heads are (`python -m explorer.cli.stacked ... --part head`). The components' scores go through
the result cache, so a second run costs seconds. The rows are sorted by the pooled foreign dev
ROC AUC; the feature sets the shipped command tries are marked. Nothing is written: a wider
search on dev sets this small would choose their noise.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.data.shared_data import shared_data_dir  # noqa: E402
from explorer.evaluation.slices import rankable_slices  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--error-type", choices=ERROR_TYPES, required=True)
    parser.add_argument("--data", type=Path, required=True, help="explorer build-data's file")
    parser.add_argument("--organic", type=Path, required=True, help="python -m explorer.data.written --out's file")
    parser.add_argument("--rows", type=int, default=15, help="how many fits to print")
    args = parser.parse_args(argv)
    from sklearn.metrics import roc_auc_score

    from explorer.detectors.stacked import COMPONENTS, FEATURES, create_components, p_error
    from explorer.scoring.cache import ResultCache
    from explorer.scoring.runner import all_results
    from explorer.training.data import foreign_training, is_labelled, target
    from explorer.training.logistic import REGULARIZATION
    from explorer.training.stacked import feature_matrix, feature_sets, fit, slice_examples

    error_type = args.error_type
    head_half = ["--data", str(args.data), "--organic", str(args.organic), "--part", "head"]
    given = foreign_training("", Path("unused"), head_half)
    components, score = create_components(), functools.partial(all_results, cache=ResultCache())
    train_set = slice_examples(given.train_set, error_type)
    rows, gold = feature_matrix(train_set, components, score), [target(e, error_type) for e in train_set]
    dev_sets = {
        "foreign": parse_jsonl(shared_data_dir("npov_foreign") / "npov_foreign" / "dev.jsonl").examples,
        "Perspectrum": [e for e in parse_jsonl(args.data).examples if e.split == "dev"],
    }
    columns = []  # (name, indices into the dev set's rows, gold)
    dev_rows = {}
    for name, examples in dev_sets.items():
        dev_rows[name] = feature_matrix(examples, components, score)
        pooled = [i for i, e in enumerate(examples) if is_labelled(e.labels) and slice_examples([e], error_type)]
        columns.append((f"{name} pooled", name, pooled, [target(examples[i], error_type) for i in pooled]))
        for slice_error_type, chosen, members in rankable_slices(examples):
            if slice_error_type == error_type:
                gold_of = {id(e): label for e, label in members}
                kept = [i for i, e in enumerate(examples) if id(e) in gold_of]
                columns.append((f"{name} {chosen.name}", name, kept, [gold_of[id(examples[i])] for i in kept]))
    shipped = set(feature_sets(error_type).values())
    fits = []
    for size in range(1, len(COMPONENTS) + 1):
        for chosen in itertools.combinations(COMPONENTS, size):
            for both in (False, True):
                features = tuple(
                    f for c in chosen for f in FEATURES if f.startswith(f"{c} ") and (both or f.endswith(error_type))
                )
                label = "+".join(chosen) + (" (both scores)" if both else "")
                for strength in REGULARIZATION:
                    model = fit(error_type, features, rows, gold, strength)
                    aucs = [
                        roc_auc_score(labels, [p_error(model, dev_rows[name][i]) for i in kept])
                        for _, name, kept, labels in columns
                    ]
                    fits.append((aucs, label + (" *" if features in shipped else ""), strength))
    print(f"{error_type}: ROC AUC x 100; * = a feature set the shipped command tries")
    print(" | ".join(["feature set", "C", *(name for name, *_ in columns)]))
    for aucs, label, strength in sorted(fits, key=lambda fit: -fit[0][0])[: args.rows]:
        print(" | ".join([label, str(strength), *(f"{100 * auc:.1f}" for auc in aucs)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
