"""How often a misstatement card shows: per dev slice, the share of answers on which each check
keeps at least one misstated argument (`explorer.render.findings.misstatements`): the cards
Inspect shows under the verdict when the check is chosen.

    OMP_NUM_THREADS=1 python bench/cards.py ../shared/data/npov_foreign/dev.jsonl \
        ../shared/data/npov_foreign/dev_v3.jsonl --detectors polarity,meaning

Slices: every file's faithful answers (no error, not ambiguous) and, where the records name a
`variant` (dev_v3: A faithful, R a distorted argument, N an invention, C a lost point, F both,
S a shape), each variant. Results go through the result cache (one cached before the check kept
its findings is scored again: `explorer.detectors.base.Detector.kept`).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import is_error_free  # noqa: E402
from explorer.render.findings import misstatements  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import all_results  # noqa: E402


def slices(example) -> list[str]:
    found = ["faithful"] if is_error_free(example.labels) else []
    variant = example.extra.get("variant")
    return found + ([f"variant {variant}"] if variant else [])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--detectors", default="polarity,meaning")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.detectors.split(",") if n.strip()]
    built = [detectors.create(name) for name in names]
    for path in args.data:
        examples = [e for e in parse_jsonl(path).examples if not e.labels.ambiguous]
        shown: dict[tuple[str, str], list[bool]] = defaultdict(list)
        for example, results in zip(examples, all_results(examples, built, cache=ResultCache())):
            for name in names:
                for part in slices(example):
                    shown[(part, name)].append(bool(misstatements(results[name])))
        print(f"{path.name}: answers with a misstatement card")
        for (part, name), cards in sorted(shown.items()):
            print(f"  {part:<10} {name:<9} {sum(cards):>3} of {len(cards):>3} ({sum(cards) / len(cards):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
