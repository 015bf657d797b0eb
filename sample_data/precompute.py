"""Precompute a detector's results for the sample data and write them as a shipped seed bundle.

    OMP_NUM_THREADS=1 python sample_data/precompute.py --detectors stacked
    python sample_data/precompute.py --detectors salience [--data explorer/resources/samples/examples.jsonl ...]

Writes `explorer/resources/samples/scores/<detector>.jsonl.gz`, which `explorer.scoring.cache.ResultCache` serves
read-only, so the app opens the sample examples at once. Results go through the user's result
cache as they are computed, so an interrupted run resumes. Salience takes minutes per example
on a CPU; the shipped bundle was computed on a GPU (`--out` lets such a run write elsewhere).
The stacked detector (the dataset page's default besides ROUGE-1, which needs no bundle) scores
the sample in about 5 minutes on one thread.

A bundle's results are keyed by the detector's identity, so once the detector or one it is made
of changes they are no longer served and the app scores afresh; `tests/scoring/test_shipped_scores.py`
fails then, naming the command that rewrites the bundle.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from explorer import detectors  # noqa: E402
from explorer.config import SAMPLE_EXAMPLES, SHIPPED_SCORES  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.scoring.cache import ResultCache, write_seed_bundle  # noqa: E402
from explorer.scoring.runner import score_example  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detectors", default="salience", help="comma-separated detectors")
    parser.add_argument("--data", type=Path, nargs="+", default=[SAMPLE_EXAMPLES])
    parser.add_argument("--out", type=Path, default=SHIPPED_SCORES)
    parser.add_argument("--model", help="causal LM for model-based detectors (default: the packaged one)")
    parser.add_argument("--part", default="1/1", help="K/N: score the K-th of N equal parts, written apart")
    args = parser.parse_args()

    examples = []
    for path in args.data:
        examples += parse_jsonl(path).examples
    part, parts = (int(n) for n in args.part.split("/"))
    examples = examples[part - 1 :: parts]
    suffix = f"-{part}of{parts}" if parts > 1 else ""
    cache = ResultCache(seeds=[])
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.detectors.split(","):
        options = {"model": args.model} if args.model and detectors.spec(name).uses_model else {}
        detector = detectors.create(name, **options)
        entries = []
        for example in tqdm(examples, desc=name, unit="example"):
            scored = score_example(example, [detector], cache)
            if name in scored.results:
                entries.append((detector, example, scored.results[name]))
            else:
                print(f"{example.id}: {scored.errors[name]}", file=sys.stderr)
        bundle = args.out / f"{name}{suffix}.jsonl.gz"
        count = write_seed_bundle(entries, bundle)
        print(f"{name}: {count} results -> {bundle}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
