"""The meaning check's score joined to the verdict's P(error) by noisy-or at other weights, on
cached results: `1 - (1 - P) (1 - w · score)`, the floor of a sure misstatement kept under it.

    python bench/dev_sets.py --detectors stacked,meaning   # fills the cache for every set
    python bench/joins.py ../shared/data/npov_foreign/dev.jsonl:dev ../shared/data/npov_foreign/dev_v3.jsonl \
        PERSPECTRUM.jsonl:dev --error-type hallucination --weights 0,0.1,0.2,0.3

For coverage the shipped verdict already joins the meaning check's coverage score at
`stacked.DOUBT` (and the argument head's, kept as recorded); this reads the head's own P(error)
back from the evidence and joins at each weight instead (weight `DOUBT` gives the shipped
scores). For hallucination the shipped verdict joins the meaning check's hallucination score (its
misstatement) at `stacked.MISSTATED_WEIGHT`, read back and joined at each weight the same way. Prints
ROC AUC × 100 per file and slice (`explorer eval`'s), as `bench/floor.py` does; only examples
with both results cached count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_auc_score  # noqa: E402

from bench.floor import slices  # noqa: E402
from explorer.config import cache_dir  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.detectors.details import EVIDENCE  # noqa: E402
from explorer.detectors.ops.explained import at_least, joined, unfloored  # noqa: E402
from explorer.detectors.stacked import DOUBTED_BY, StackedDetector  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402


def rejoined(
    evidence,
    score: float,
    weight: float,
    doubt: float | None = None,
    argument: float | None = None,
    misstated: float | None = None,
) -> float:
    """The score an `evidence` record explains with `score` joined to its head's by noisy-or at
    `weight`, the floor kept; the meaning check's doubt and the argument head's likeliest dropped
    argument (coverage) and the meaning check's misstatement (hallucination) as recorded, or at
    weight `doubt`, `argument` and `misstated` where given (0 leaves one out)."""
    given = (("doubt", doubt), ("argument", argument), ("misstated", misstated))
    weights = {key: value for key, value in given if value is not None}
    return at_least(joined(unfloored(evidence, weights), score, weight), evidence.get("floor"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="+", help="JSON Lines with labels, FILE or FILE:SPLIT")
    parser.add_argument("--error-type", choices=ERROR_TYPES, default="hallucination")
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.4", help="comma-separated weights")
    args = parser.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    cache, detector = ResultCache(cache_dir(), seeds=[]), StackedDetector()
    judged_by = detector.components[DOUBTED_BY]
    for given in args.data:
        path, _, split = given.partition(":")
        examples = [e for e in parse_jsonl(Path(path)).examples if not split or e.split == split]
        scored = {}
        for example in examples:
            result, meaning = cache.get(detector, example), cache.get(judged_by, example)
            if result is not None and meaning is not None:
                scored[example.id] = (EVIDENCE.of(result)[args.error_type], meaning.score(args.error_type))
        print(f"{given}: {len(scored)} of {len(examples)} examples with both results cached")
        cached = [e for e in examples if e.id in scored]
        chosen = [(name, members) for error_type, name, members in slices(cached) if error_type == args.error_type]
        for weight in weights:
            cells = []
            for name, members in chosen:
                read = [scored[example.id] for example, _ in members]
                scores = [rejoined(evidence, score, weight, doubt=0.0, misstated=0.0) for evidence, score in read]
                cells.append(f"{name} {100 * roc_auc_score([label for _, label in members], scores):.1f}")
            print(f"  weight {weight}: " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
