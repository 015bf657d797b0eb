"""ROC AUC per slice of the sample data, per detector (scikit-learn), for quick checks.

    python bench/sample_auc.py [--split test] [--detectors rouge,semantic]

Slices follow Chang et al. 2024's Table 1 as far as the sample data allows (it has no
synthetic examples): negatives are the error-free examples of the slice's kind, positives the
examples with the error of that kind. "full organic" takes unambiguous errors, "ambiguous
organic" the ambiguous ones, and each ambiguous type also gets its own slice. Paraphrased
examples are all error-free here, so they are reported as an extra negative set against the
full organic errors ("full vs paraphrased"). A slice without both classes is skipped.
Results go through the result cache. `explorer eval` (the evaluation page's engine) is the
full version with confidence intervals and significance tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.example import AMBIGUOUS_TYPES  # noqa: E402
from explorer.data.samples import load_samples  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_examples  # noqa: E402

ERRORS = {"hallucination": "hallucination", "coverage": "coverage_error"}


def error_free(example) -> bool:
    labels = example.labels
    return labels.hallucination is False and labels.coverage_error is False and not labels.ambiguous


def slices(examples, error: str) -> dict[str, tuple[list, list]]:
    """Slice name -> (positives, negatives)."""
    flag = ERRORS[error]
    organic = [e for e in examples if (e.labels.kind or "organic") == "organic"]
    clean_organic = [e for e in organic if error_free(e)]
    clean_paraphrased = [e for e in examples if e.labels.kind == "paraphrased" and error_free(e)]
    full = [e for e in organic if getattr(e.labels, flag) and not e.labels.ambiguous]
    ambiguous = [e for e in organic if getattr(e.labels, flag) and e.labels.ambiguous]
    found = {
        "full organic": (full, clean_organic),
        "full vs paraphrased": (full, clean_paraphrased),
        "ambiguous organic": (ambiguous, clean_organic),
    }
    for kind in AMBIGUOUS_TYPES:
        found[f"  {kind.replace('_', ' ')}"] = (
            [e for e in ambiguous if e.labels.ambiguous_type == kind],
            clean_organic,
        )
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Per-slice ROC AUC on the sample data.")
    parser.add_argument("--split", choices=("train", "dev", "test"), default="test")
    parser.add_argument("--detectors", default=",".join(detectors.names()))
    args = parser.parse_args(argv)
    examples = [e for e in load_samples() if e.split == args.split]
    chosen = [detectors.create(name.strip()) for name in args.detectors.split(",") if name.strip()]
    scored = {s.example.id: s.results for s in score_examples(examples, chosen, ResultCache())}
    print(f"sample data, {args.split} split: {len(examples)} examples")
    for error in ERRORS:
        print(f"\n{error} ROC AUC")
        print(f"{'slice':<26}{'pos':>4}{'neg':>5}" + "".join(f"{detectors.spec(d.name).title:>20}" for d in chosen))
        for name, (positives, negatives) in slices(examples, error).items():
            if not positives or not negatives:
                continue
            members = positives + negatives
            gold = [1] * len(positives) + [0] * len(negatives)
            cells = []
            for detector in chosen:
                scores = [getattr(scored[e.id][detector.name], error) for e in members]
                cells.append(f"{roc_auc_score(gold, scores):>20.3f}")
            print(f"{name:<26}{len(positives):>4}{len(negatives):>5}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
