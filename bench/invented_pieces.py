"""How well "a piece that states no argument and says something" ranks invented content.

    python bench/invented_pieces.py --head DIR ../shared/data/npov_foreign/dev.jsonl \
        ../shared/data/npov_foreign/dev_v3.jsonl ~/.cache/rag-error-explorer/pd-dev.jsonl

Each answer is cut at every comma, semicolon and colon (`explorer.text.claims.piece_spans`); the
shipped meaning judge reads every argument beside every piece. A piece's *unstated* is 1 - its
highest P(states) over the arguments (no argument stated faithfully there: the invention check's
reading since version 2), its *absent* the least P(absent) (version 1's, which a turned argument
keeps low); the content head of `--head` (`python -m explorer.training.invention`) gives
P(content) from the piece's embedding. An answer's score under each reading is its highest piece's,
and the ROC AUC × 100 of each hallucination slice of `explorer eval` (and per `variant` where
records carry one) is printed for the two products and the three readings alone.
Selection data only: nothing here is fitted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.detectors.invention import judged, least_absent, unstated  # noqa: E402
from explorer.detectors.ops.logistic_head import LogisticHead  # noqa: E402
from explorer.evaluation.slices import rankable_slices, variant_slices  # noqa: E402
from explorer.text.claims import piece_spans  # noqa: E402

READINGS = ("content x unstated", "content x absent", "content", "unstated", "absent")


def readings(example, head: LogisticHead, encoder, judge) -> dict[str, float]:
    """The answer's highest score of each reading over its pieces."""
    response = example.response
    texts = [response[start:end] for start, end in piece_spans(response)]
    arguments = [text for _, _, text in example.arguments()]
    content = head.p_error(encoder.encode(texts))
    probabilities = judged(judge, texts, arguments)
    free, absent = unstated(probabilities), least_absent(probabilities)
    each = (content * free, content * absent, content, free, absent)
    return dict(zip(READINGS, (float(np.max(reading)) for reading in each)))


def slice_aucs(examples, scores: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """ROC AUC × 100 of each reading on each hallucination slice."""
    from sklearn.metrics import roc_auc_score

    slices = [(found.name, members) for kind, found, members in rankable_slices(examples) if kind == "hallucination"]
    slices += list(variant_slices(examples, "hallucination"))
    table = {}
    for name, members in slices:
        scored = [(example, label) for example, label in members if example.id in scores]
        if len({label for _, label in scored}) == 2:
            gold = [label for _, label in scored]
            table[name] = {r: 100 * roc_auc_score(gold, [scores[e.id][r] for e, _ in scored]) for r in READINGS}
    return table


def main(argv=None) -> int:
    from explorer.detectors.meaning import MeaningDetector
    from explorer.models.encoder import SentenceEncoder

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="labelled JSON Lines files (selection data)")
    parser.add_argument("--head", type=Path, required=True, help="a content head's folder (model.json)")
    args = parser.parse_args(argv)
    head, encoder, judge = LogisticHead.load(args.head), SentenceEncoder(), MeaningDetector().judge
    for path in args.data:
        examples = parse_jsonl(path).examples
        scores = {example.id: readings(example, head, encoder, judge) for example in examples}
        print(f"{path} ({len(examples)} examples), hallucination ROC AUC x 100: {' / '.join(READINGS)}")
        for name, row in slice_aucs(examples, scores).items():
            print(f"  {name:24s} " + " / ".join(f"{row[r]:.1f}" for r in READINGS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
