"""How much of a slice's ROC AUC the number of arguments alone explains, and each detector's ROC
AUC on pairs of examples with the same number of arguments.

    python bench/argument_count.py ~/.cache/rag-error-explorer/perspectrum.jsonl [--split dev] \
        [--detectors stacked,rouge]

The paper's synthetic errors (Chang et al. 2024, §4.2) change the arguments: a hallucination
removes a stated argument from the input, a coverage error adds one. So in a synthetic slice the
error examples have fewer (hallucination) or more (coverage) arguments than the error-free ones,
and a detector that pools over arguments can rank them by count, which real answers would not
reward. For each slice of `explorer eval` (`explorer.evaluation.slices`) this prints the ROC AUC
of the count alone and, per detector, its usual ROC AUC beside the ROC AUC over only the
(error, error-free) pairs with equal counts (the Mann-Whitney statistic within each count,
pooled). Results go through the result cache. Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.evaluation.slices import rankable_slices  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_examples  # noqa: E402
from explorer.training.data import roc_auc  # noqa: E402


def same_count_auc(gold: np.ndarray, scores: np.ndarray, counts: np.ndarray) -> tuple[float, int]:
    """ROC AUC over the (positive, negative) pairs with equal counts (ties count one half), and
    the number of such pairs; NaN when there is none."""
    wins = pairs = 0.0
    for count in np.unique(counts):
        positives = scores[(counts == count) & gold]
        negatives = scores[(counts == count) & ~gold]
        differences = positives[:, None] - negatives[None, :]
        wins += (differences > 0).sum() + 0.5 * (differences == 0).sum()
        pairs += differences.size
    return (wins / pairs if pairs else float("nan")), int(pairs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--detectors", default="stacked,cross_encoder_tuned,alignment_classifier_tuned,semantic,rouge")
    args = parser.parse_args(argv)
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split]
    names = [name.strip() for name in args.detectors.split(",") if name.strip()]
    scored = {s.example.id: s for s in score_examples(examples, [detectors.create(n) for n in names], ResultCache())}
    print(f"{args.data.name}, {args.split} split: {len(examples)} examples")
    for error_type, chosen, members in rankable_slices(examples):
        gold = np.array([label for _, label in members], dtype=bool)
        counts = np.array([len(list(example.arguments())) for example, _ in members])
        _, pairs = same_count_auc(gold, counts.astype(float), counts)
        print(
            f"\n{error_type} · {chosen.title}: {gold.sum()} errors / {(~gold).sum()} error-free; "
            f"ROC AUC of the argument count alone {roc_auc(gold, counts):.3f} "
            f"(fewer arguments first: {roc_auc(gold, -counts):.3f}); {pairs} same-count pairs"
        )
        print(f"  {'detector':<48} {'ROC AUC':>8} {'same count':>10}")
        for name in names:
            results = [scored[example.id].results.get(name) for example, _ in members]
            if any(result is None for result in results):
                print(f"  {detectors.spec(name).title:<48} {'(some examples could not be scored)':>19}")
                continue
            values = np.array([getattr(result, error_type) for result in results])
            same, _ = same_count_auc(gold, values, counts)
            print(f"  {detectors.spec(name).title:<48} {roc_auc(gold, values):>8.3f} {same:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
