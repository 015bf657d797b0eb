"""The verdict's floor (`explorer.detectors.stacked.SURE`) at other heights, on cached results.

    python bench/dev_sets.py --detectors stacked        # fills the cache for every set
    python bench/floor.py ../shared/data/npov_foreign/dev.jsonl ../shared/data/npov_foreign/dev_v3.jsonl \
        PERSPECTRUM.jsonl:dev explorer/resources/samples/synthetic.jsonl:test --floors 0.7,0.75,0.8,0.85

A stacked result keeps what each feature added to its head's log-odds (`details.EVIDENCE`), so
the head's own P(error) is read back from it, and the floor of a sure misstatement
(`details.misstatements`) is put under it at each height: every height is measured on the same
scores, without scoring again. Prints ROC AUC × 100 per file and slice (`explorer eval`'s slices
on organic, synthetic and paraphrased answers; each variant against the `A` answers where the
records name variants), "none" first. `FILE:SPLIT` keeps one split (Perspectrum's built file
holds train and dev: `explorer build-data --out PERSPECTRUM.jsonl`). Only results in the cache
count; the number read is printed.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_auc_score  # noqa: E402

from explorer.config import cache_dir  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES, is_ambiguous, is_error_free  # noqa: E402
from explorer.detectors.details import EVIDENCE, misstatements  # noqa: E402
from explorer.detectors.stacked import StackedDetector  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402

LABEL = {"hallucination": "hallucination", "coverage": "coverage_error"}
VARIANTS = {"hallucination": ("R", "N", "F", "S1"), "coverage": ("R", "C", "F", "S2")}
KINDS = {"organic": "organic", "synthetic": "organic", "synthetic_paraphrased": "paraphrased"}


def head_p(result, error_type: str) -> float:
    """The head's own P(error), before any floor: the logistic of the evidence's log-odds."""
    evidence = EVIDENCE.of(result)[error_type]
    return 1 / (1 + math.exp(-(evidence["intercept"] + sum(f["push"] for f in evidence["features"]))))


def slices(rows, error_type: str) -> dict[str, tuple[list, list]]:
    """Per slice, (rows with the error, rows without any) as `explorer eval` pairs them."""
    found = {}
    key = LABEL[error_type]
    if any(example.extra.get("variant") for example, *_ in rows):
        clean = [r for r in rows if r[0].extra.get("variant") == "A"]
        for variant in VARIANTS[error_type]:
            found[variant] = (
                [r for r in rows if r[0].extra.get("variant") == variant and getattr(r[0].labels, key)],
                clean,
            )
        return found
    for kind, base in KINDS.items():
        clean = [r for r in rows if (r[0].labels.kind or "organic") == base and is_error_free(r[0].labels)]
        errors = [
            r
            for r in rows
            if (r[0].labels.kind or "organic") == kind and getattr(r[0].labels, key) and not is_ambiguous(r[0].labels)
        ]
        if errors and clean:
            found[kind] = (errors, clean)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="+", help="JSON Lines with labels, FILE or FILE:SPLIT")
    parser.add_argument("--floors", default="0.7,0.75,0.8,0.85,0.9", help="comma-separated heights")
    args = parser.parse_args(argv)
    floors = [None, *(float(f) for f in args.floors.split(","))]
    cache, detector = ResultCache(cache_dir(), seeds=[]), StackedDetector()
    for given in args.data:
        path, _, split = given.partition(":")
        examples = [e for e in parse_jsonl(Path(path)).examples if not split or e.split == split]
        rows = []
        for example in examples:
            if (result := cache.get(detector, example)) is not None:
                found = misstatements(result)
                rows.append(
                    (example, {t: head_p(result, t) for t in ERROR_TYPES}, found[0]["misstated"] if found else 0.0)
                )
        print(f"{given}: {len(rows)} of {len(examples)} results cached")
        for floor in floors:
            cells = []
            for error_type in ERROR_TYPES:
                for name, (errors, clean) in slices(rows, error_type).items():
                    scores = [
                        max(h[error_type], top if floor is not None and top >= floor else 0.0)
                        for _, h, top in errors + clean
                    ]
                    auc = roc_auc_score([1] * len(errors) + [0] * len(clean), scores)
                    cells.append(f"{error_type[:4]}. {name} {100 * auc:.1f}")
            print(f"  floor {floor if floor is not None else 'none'}: " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
