"""How well the meaning judge fits pairs it trained on: a sample of a pairs file's *states* and
*misstates* pairs of the components half (the half the trainer draws from), each source's
misstatements against the statements of the same source (a rule's: against every statement),
scored by the judge the meaning check loads (the user's, else the shipped).

    OMP_NUM_THREADS=1 python bench/judge_fit.py ~/.cache/rag-error-explorer/judge-pairs.jsonl \
        --per-label 150

Prints per source ROC AUC of P(misstates) for misstates against states, and each label's mean
P(misstates). A low AUC on pairs it drew from says the judge underfits them (the learner, not
the data); the dev sets' figures say how it generalizes.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from explorer.detectors.meaning import MeaningDetector  # noqa: E402
from explorer.detectors.ops.judge import MISSTATES, STATES  # noqa: E402
from explorer.training.data import topic_half  # noqa: E402
from explorer.training.judge_data import read_pairs  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", type=Path, nargs="+", help="python -m explorer.training.judge_data")
    parser.add_argument("--per-label", type=int, default=150, help="pairs of each label a source (default 150)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    by_source: dict[str, dict[int, list]] = defaultdict(lambda: defaultdict(list))
    for path in args.pairs:
        for pair in read_pairs(path):
            if pair.label in (STATES, MISSTATES) and topic_half(pair.topic) == "components":
                by_source[pair.source.split("+")[-1]][pair.label].append(pair)
    judge = MeaningDetector().judge
    rng = random.Random(args.seed)
    every_states = [p for labelled in by_source.values() for p in labelled[STATES]]
    for source, labelled in sorted(by_source.items()):
        if not labelled[MISSTATES]:
            continue
        states = labelled[STATES] or every_states  # a rule's misstatements against every statement
        drawn = {
            label: rng.sample(ps, min(args.per_label, len(ps)))
            for label, ps in ((STATES, states), (MISSTATES, labelled[MISSTATES]))
        }
        pairs = drawn[STATES] + drawn[MISSTATES]
        misstated = np.asarray(judge.probabilities([(p.argument, p.text) for p in pairs]))[:, MISSTATES]
        truth = [p.label == MISSTATES for p in pairs]
        n = len(drawn[STATES])
        print(
            f"{source:12} {n:4} states {len(pairs) - n:4} misstates: ROC AUC {roc_auc_score(truth, misstated):.3f}, "
            f"mean P(misstates) {misstated[:n].mean():.2f} / {misstated[n:].mean():.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
