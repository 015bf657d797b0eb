"""Example-level ROC AUC per slice on a labelled JSON Lines set (default: the Perspectrum-dev-built
examples) for semantic alignment with plain MiniLM and with one or more matcher adapters: the
check used to choose the matcher's epoch, without shipping each candidate first.

    python -m explorer.data.perspectrum --out /tmp/perspectrum.jsonl
    python bench/perspectrum_dev.py /tmp/perspectrum.jsonl --adapter epoch1=/tmp/m/epochs/epoch-1 ...

Only the `dev` split is read unless `--split` says otherwise (never select on the sample test split).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.detectors.semantic import SemanticDetector  # noqa: E402
from explorer.detectors.semantic_tuned import SemanticTunedDetector  # noqa: E402
from explorer.evaluation.slices import rankable_slices  # noqa: E402
from explorer.models.matcher import MatcherEncoder  # noqa: E402
from explorer.training.data import roc_auc  # noqa: E402


def slice_aucs(examples, score_of) -> dict[str, float]:
    out = {}
    for error_type, chosen, members in rankable_slices(examples):
        labels = [label for _, label in members]
        scores = [
            getattr(score_of[e.id], "hallucination" if error_type == "hallucination" else "coverage")
            for e, _ in members
        ]
        out[f"{error_type}/{chosen.name}"] = roc_auc(labels, scores)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--adapter", action="append", default=[], help="NAME=DIR, repeatable")
    parser.add_argument("--no-plain", action="store_true", help="skip plain MiniLM")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split]
    candidates = [] if args.no_plain else [("plain MiniLM", SemanticDetector())]
    for item in args.adapter:
        name, _, folder = item.partition("=")
        candidates.append((name, SemanticTunedDetector(encoder=MatcherEncoder(folder))))
    print(f"{len(examples)} {args.split} examples of {args.data}")
    for name, detector in candidates:
        started = time.perf_counter()
        results = {e.id: detector.score(e) for e in examples}
        cells = slice_aucs(examples, results)
        figures = "  ".join(f"{k} {v:.3f}" for k, v in cells.items())
        print(f"{name:<16} {figures}  ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
