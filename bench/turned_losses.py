"""Where the meaning check loses a turned argument: the judge, or the reading around it.

    OMP_NUM_THREADS=1 python bench/turned_losses.py ../shared/data/npov_foreign/dev_v3.jsonl --show

For every answer with one argument stated with its meaning turned (`variant` R: one uncovered
argument, the turned statement its hallucinated span), the judge the meaning check loads
(the user's, else the shipped) reads the argument beside the turned statement itself, and the
check reads the whole answer as it does when scoring. Each turned argument is then:

- *caught*: the check finds it misstated;
- *judge*: the judge, shown the turned statement itself, says it is not misstated
  (P(misstates) under `SAID`): no reading of the answer around it can help;
- *reading*: the judge, shown the turned statement, says misstated, but the check does not:
  it judged other pieces (the shortlist), or another piece stated the argument, or the piece
  stated another argument (`explorer.detectors.meaning`, steps 1-3).

Beside it, the judge's ROC AUC of P(misstates) on the turned statements against every
faithful answer's statements of its arguments (`argument_spans` of the `A` answers): how well
the judge ranks the right pairs, before any reading. It differs from the judge trainer's dev
figure for the same file (`explorer.training.judge.example_dev_pairs`), which pairs the argument
with the answer's pieces that hold the turned words, not with the marked words alone. Figures
printed, nothing written.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_auc_score  # noqa: E402

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.written import argument_statements  # noqa: E402
from explorer.detectors.details import FINDINGS  # noqa: E402
from explorer.detectors.meaning import MeaningDetector  # noqa: E402
from explorer.detectors.ops.judge import MISSTATES  # noqa: E402

SAID = 0.5  # P(misstates) at which the judge is said to call a pair misstated
CAUGHT, JUDGE, READING = "caught", "judge", "reading"


def loss(finding: str, judged_misstated: float) -> str:
    """Where a turned argument is lost, from the check's finding for it and the judge's
    P(misstates) on the turned statement itself."""
    if finding == "misstates":
        return CAUGHT
    return READING if judged_misstated >= SAID else JUDGE


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="JSON Lines whose records name a `variant`")
    parser.add_argument("--show", action="store_true", help="print each turned argument and its piece")
    args = parser.parse_args(argv)
    check = MeaningDetector()
    for path in args.data:
        examples = parse_jsonl(path).examples
        turned, faithful = [], []
        for example in examples:
            variant = example.extra.get("variant")
            if variant == "R" and len(example.labels.uncovered) == 1 and example.labels.hallucinated_spans:
                [argument] = example.labels.uncovered
                start, end = example.labels.hallucinated_spans[0]
                turned.append((example, (argument.perspective, argument.argument), example.response[start:end]))
            elif variant == "A":
                for (p, a), spans in argument_statements(example).items():
                    start, end = spans[0]
                    faithful.append((example.perspectives[p].arguments[a], example.response[start:end]))
        if not turned:
            print(f"{path}: no answer with one turned argument (variant R)")
            continue
        pairs = [(e.perspectives[p].arguments[a], text) for e, (p, a), text in turned] + faithful
        misstated = [float(row[MISSTATES]) for row in check.judge.probabilities(pairs)]
        counts: Counter[str] = Counter()
        for (example, key, text), judged in zip(turned, misstated):
            finding = next(f for f in FINDINGS.of(check.score(example)) if tuple(f["argument"]) == key)
            where = loss(finding["finding"], judged)
            counts[where] += 1
            if args.show:
                piece = example.response[slice(*finding["piece"])] if finding["piece"] else "-"
                argument = example.perspectives[key[0]].arguments[key[1]]
                print(f"  {where:8s} judge {judged:.2f} | {argument}\n    turned: {text}")
                print(f"    check:  {finding['finding']} {piece}")
        labels = [1] * len(turned) + [0] * len(faithful)
        auc = roc_auc_score(labels, misstated) if faithful else float("nan")
        print(
            f"{path}: {len(turned)} turned arguments: "
            + ", ".join(f"{where} {counts[where]}" for where in (CAUGHT, JUDGE, READING))
            + f"; judge ROC AUC, turned statements vs {len(faithful)} faithful ones: {100 * auc:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
