"""The verdict's floor (`explorer.detectors.stacked.SURE`) at other heights, on cached results.

    python bench/dev_sets.py --detectors stacked        # fills the cache for every set
    python bench/floor.py ../shared/data/npov_foreign/dev.jsonl ../shared/data/npov_foreign/dev_v3.jsonl \
        PERSPECTRUM.jsonl:dev explorer/resources/samples/synthetic.jsonl:test --floors 0.7,0.75,0.8,0.85

A stacked result keeps what each feature added to its head's log-odds (`details.EVIDENCE`) and
the meaning check's doubt, so its P(error) before the floor is read back from it, and the floor of a sure misstatement
(`details.misstatements`) is put under it at each height: every height is measured on the same
scores, without scoring again. Prints ROC AUC × 100 per file and slice (`explorer eval`'s:
`explorer.evaluation.slices`, the paper's and each variant's), "none" first. `FILE:SPLIT` keeps
one split (Perspectrum's built file holds train and dev: `explorer build-data --out
PERSPECTRUM.jsonl`). Only results in the cache count; the number read is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_auc_score  # noqa: E402

from explorer.config import cache_dir  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.detectors.details import EVIDENCE, misstatements  # noqa: E402
from explorer.detectors.ops.explained import unfloored  # noqa: E402
from explorer.detectors.stacked import StackedDetector  # noqa: E402
from explorer.evaluation.slices import rankable_slices, variant_slices  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402


def head_p(result, error_type: str) -> float:
    """The verdict's P(error) before any floor (`stacked.unfloored`), read back from the evidence."""
    return unfloored(EVIDENCE.of(result)[error_type])


def slices(examples) -> list[tuple[str, str, list]]:
    """`explorer eval`'s slices of `examples` (the paper's, then each variant's): error type, name, members."""
    found = [(error_type, chosen.name, members) for error_type, chosen, members in rankable_slices(examples)]
    for error_type in ERROR_TYPES:
        found += [(error_type, variant, members) for variant, members in variant_slices(examples, error_type)]
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
        scored = {}
        for example in examples:
            if (result := cache.get(detector, example)) is not None:
                found = misstatements(result)
                top = found[0]["misstated"] if found else 0.0
                scored[example.id] = ({t: head_p(result, t) for t in ERROR_TYPES}, top)
        print(f"{given}: {len(scored)} of {len(examples)} results cached")
        cached = [e for e in examples if e.id in scored]
        for floor in floors:
            cells = []
            for error_type, name, members in slices(cached):
                scores = []
                for example, _ in members:
                    heads, top = scored[example.id]
                    scores.append(max(heads[error_type], top if floor is not None and top >= floor else 0.0))
                auc = roc_auc_score([label for _, label in members], scores)
                cells.append(f"{error_type[:4]}. {name} {100 * auc:.1f}")
            print(f"  floor {floor if floor is not None else 'none'}: " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
