"""The token tagger's ROC AUC per slice on the foreign NPOV dev set and on Perspectrum dev, for
the shipped adapter or another training run's, other ways of turning its word scores into an
example's hallucination score, and other ways of merging its two readings of an example.

    python bench/tagger_slices.py [--detector tagger_coverage] [--merge given|mean|lower] \
        [--adapter ~/.cache/rag-error-explorer/tagger-v2u-out/tokens] \
        [--perspectrum ~/.cache/rag-error-explorer/perspectrum.jsonl] [--aggregations]

`--adapter` is a folder `python -m explorer.training.tagger --out` wrote (`<out>/tokens`); the
tagger loads it as it loads a user's trained weights, from a temporary cache folder, so the
user's own cache is neither read nor written. The slices are `explorer eval`'s
(`explorer.evaluation.slices`); Perspectrum dev is the dev split of `explorer build-data`'s file.
With `--aggregations`, the hallucination ROC AUC of each alternative to the tagger's example
score (its highest word score) is printed beside it. `--merge` replaces the build's own way of
making one result of the example read as given and with each side's arguments reversed
(`explorer.detectors.tagger`): `given` reads it once, as given. The foreign dev set is for selection only:
nothing here trains on it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.example import Example  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.shared_data import shared_data_dir  # noqa: E402
from explorer.detectors.base import DetectorResult  # noqa: E402
from explorer.evaluation.slices import rankable_slices  # noqa: E402
from explorer.text.claims import sentence_spans  # noqa: E402


def _sentence_scores(example: Example, result: DetectorResult) -> list[list[float]]:
    return [
        scores
        for start, end in sentence_spans(example.response)
        if (scores := [w.score for w in result.response_words if start <= w.start and w.end <= end])
    ]


def _top(k: int) -> Callable[[Example, DetectorResult], float]:
    return lambda _, result: float(np.mean(sorted(w.score for w in result.response_words)[-k:] or [0.0]))


# Each: (example, tagger result) -> an example-level hallucination score.
AGGREGATIONS: dict[str, Callable[[Example, DetectorResult], float]] = {
    "max word (the tagger's)": lambda _, result: result.hallucination,
    "mean of the top 3 words": _top(3),
    "mean of the top 5 words": _top(5),
    "mean word": lambda _, result: float(np.mean([w.score for w in result.response_words] or [0.0])),
    "max over sentences of the mean": lambda example, result: max(
        (float(np.mean(s)) for s in _sentence_scores(example, result)), default=0.0
    ),
    "max over sentences of the share >= 0.5": lambda example, result: max(
        (float(np.mean(np.array(s) >= 0.5)) for s in _sentence_scores(example, result)), default=0.0
    ),
}


def use_adapter(name: str, adapter: Path, cache: Path) -> None:
    """Make `adapter` the user's trained tagger `name`, in the fresh cache folder `cache`."""
    from explorer.models.encoder import default_model_path, encoder_identity
    from explorer.models.trained import user_trained_dir

    os.environ["EXPLORER_CACHE_DIR"] = str(cache)
    shutil.copytree(adapter, user_trained_dir(name, encoder_identity(default_model_path()), "tokens"))


def slice_figures(name: str, examples: Sequence[Example], tagger, aggregations: bool) -> None:
    from sklearn.metrics import roc_auc_score

    for error_type, chosen, members in rankable_slices(examples):
        gold = [label for _, label in members]
        results = [(example, tagger.score(example)) for example, _ in members]
        auc = roc_auc_score(gold, [result.score(error_type) for _, result in results])
        print(f"{name:18s} {error_type:13s} {chosen.title:24s} {100 * auc:5.1f}  (n={len(gold)})", flush=True)
        if aggregations and error_type == "hallucination":
            for label, aggregate in AGGREGATIONS.items():
                scores = [aggregate(example, result) for example, result in results]
                print(f"{'':57s}{100 * roc_auc_score(gold, scores):5.1f}  {label}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", type=Path, help="a training run's adapter folder (default: the shipped one)")
    parser.add_argument("--perspectrum", type=Path, help="explorer build-data's file; its dev split is scored")
    parser.add_argument("--aggregations", action="store_true", help="other example scores from the word scores")
    parser.add_argument("--detector", choices=("tagger", "tagger_coverage"), default="tagger")
    parser.add_argument("--merge", choices=("given", "mean", "lower"), help="default: the build's own")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as cache:
        if args.adapter:
            use_adapter(args.detector, args.adapter, Path(cache))
        from explorer import detectors

        tagger = detectors.create(args.detector)
        if args.merge:
            tagger.merge = args.merge
        print(f"{args.detector} {tagger.model_identity()}, readings merged: {tagger.merge}")
        sets = [("foreign dev", parse_jsonl(shared_data_dir("npov_foreign") / "npov_foreign" / "dev.jsonl").examples)]
        if args.perspectrum:
            sets.append(("Perspectrum dev", [e for e in parse_jsonl(args.perspectrum).examples if e.split == "dev"]))
        for name, examples in sets:
            slice_figures(name, examples, tagger, args.aggregations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
