"""Choose the trust-trap thresholds on the sample data's train split, and print why.

    python bench/tune_trust.py

The sample data has no "trust trap" label, so the thresholds are set from what faithful,
aligned answers look like on train (dev and test are never read):
- query recall: the median over train responses: "aligned" means repeating more of the
  question than the typical answer does;
- K-F1++: the lowest K-F1++ of a train response written from its own arguments' words
  (`kind` organic) that states nothing unprovided (no hallucination label): a trap is an
  answer grounded less than every such answer. Rounded down to two decimals.
Then prints how often the rule fires per variant.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.samples import load_samples  # noqa: E402
from explorer.evaluation.trust import TrustThresholds, trust_frame  # noqa: E402


def variant(example_id: str) -> str:
    return re.sub(
        r"^.*?-(clean-alt|clean|paraphrased|hallucination2?|coverage2?|partial-[a-z]+|repetition|perspective-confusion)$",
        r"\1",
        example_id,
    )


def main() -> int:
    train = [e for e in load_samples() if e.split == "train"]
    frame = trust_frame(train)
    recall = math.floor(frame["query recall"].median() * 100) / 100
    grounded = [e.id for e in train if e.labels.kind == "organic" and not e.labels.hallucination]
    kf1_plus = math.floor(frame.loc[grounded, "K-F1++"].min() * 100) / 100
    print(f"{len(train)} train examples; {len(grounded)} organic without hallucination")
    print(f"query recall threshold = median {frame['query recall'].median():.3f} -> {recall:.2f}")
    print(f"K-F1++ threshold = lowest grounded {frame.loc[grounded, 'K-F1++'].min():.3f} -> {kf1_plus:.2f}")
    chosen = trust_frame(train, TrustThresholds(query_recall=recall, kf1_plus=kf1_plus))
    chosen["variant"] = [variant(e.id) for e in train]
    print("\ntrust trap rate per variant (train):")
    print(chosen.groupby("variant")["trust trap"].mean().round(2).to_string())
    print(f"\nchosen: TrustThresholds(query_recall={recall}, kf1_plus={kf1_plus})")
    if TrustThresholds() != TrustThresholds(query_recall=recall, kf1_plus=kf1_plus):
        print(f"(explorer/trust.py has {TrustThresholds()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
