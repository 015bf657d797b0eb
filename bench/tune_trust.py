"""Choose the trust-trap thresholds on a foreign dev split, and print why.

    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python bench/tune_trust.py --data ~/.cache/rag-error-explorer/perspectrum.jsonl [--false-alarms 0.05]

No data has a "trust trap" label, so the thresholds come from what faithful answers written
outside the team look like (the split's error-free responses: human paraphrases of the given
arguments in the Perspectrum build):
- query recall: the median over the split's responses: "aligned" means repeating more of the
  question than the typical answer does;
- K-F1++: the `--false-alarms` quantile of the error-free responses' K-F1++, rounded down to two
  decimals: a trap is grounded less than all but that share of faithful answers.
Then prints how often the rule fires per gold label on the split, and per variant on the sample
data's train split, at these thresholds and at the shipped ones. A test split is refused.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.samples import load_samples  # noqa: E402
from explorer.evaluation.trust import TrustThresholds, choose_thresholds, trust_frame  # noqa: E402


def variant(example_id: str) -> str:
    return re.sub(
        r"^.*?-(clean-alt|clean|paraphrased|hallucination2?|coverage2?|partial-[a-z]+|repetition|perspective-confusion)$",
        r"\1",
        example_id,
    )


def label(example) -> str:
    if example.labels.hallucination:
        return "hallucination"
    return "coverage error" if example.labels.coverage_error else "error-free"


def rates(examples, group, thresholds: TrustThresholds) -> str:
    frame = trust_frame(examples, thresholds)
    frame["group"] = [group(e) for e in examples]
    return (100 * frame.groupby("group")["trust trap"].mean()).round(1).to_string()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="labelled JSON Lines written outside the team")
    parser.add_argument("--split", default="dev", choices=("train", "dev"), help="never a test split")
    parser.add_argument("--false-alarms", type=float, default=0.05, help="share of error-free answers flagged")
    args = parser.parse_args(argv)
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split and not e.labels.ambiguous]
    frame = trust_frame(examples)
    faithful = [e.id for e in examples if label(e) == "error-free"]
    chosen, shipped = choose_thresholds(examples, args.false_alarms), TrustThresholds()
    print(f"{args.data.name}, {args.split} split: {len(examples)} examples, {len(faithful)} error-free")
    print(f"query recall threshold = median {frame['query recall'].median():.3f} -> {chosen.query_recall:.2f}")
    print(
        f"K-F1++ threshold = {args.false_alarms:.0%} quantile of error-free answers "
        f"{frame.loc[faithful, 'K-F1++'].quantile(args.false_alarms):.3f} -> {chosen.kf1_plus:.2f}"
    )
    train = [e for e in load_samples() if e.split == "train"]
    for name, thresholds in (("chosen", chosen), ("shipped", shipped)):
        print(f"\n% trust traps at the {name} {thresholds}:")
        print(f"{args.split} split by gold label:\n{rates(examples, label, thresholds)}")
        print(f"sample train split by variant:\n{rates(train, lambda e: variant(e.id), thresholds)}")
    print(f"\nchosen: {chosen}")
    if chosen != shipped:
        print(f"(explorer/evaluation/trust.py has {shipped})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
