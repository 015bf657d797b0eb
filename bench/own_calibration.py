"""Calibrating on your own labels against the shipped calibration, on a recipe it was not fitted on.

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python bench/own_calibration.py [--data ~/.cache/rag-error-explorer/perspectrum.jsonl] \
        [--detectors stacked] [--seeds 5]

The shipped calibrations were fitted on the foreign NPOV dev set; the Perspectrum dev build
(templated answers, the paper's synthetic errors) is another recipe. Its claims are cut in two
halves (seeded): `explorer.evaluation.refit.fit_labels` (what `explorer calibrate` runs) refits the
detector on one half's labels, and both calibrations judge the other half. Prints, per detector,
error type and split, the Brier score (mean squared difference between P(error) and the gold
label: lower is better) of the shipped calibration and of the own one, with the Brier score of
always answering the calibrating half's share of errors for scale. Ambiguous answers are left out
as in every fit. Scores go through the result cache.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from explorer import detectors  # noqa: E402
from explorer.config import cache_dir  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.evaluation import calibration, refit  # noqa: E402
from explorer.evaluation.rates import probabilities  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_examples  # noqa: E402

DEFAULT_DATA = cache_dir() / "perspectrum.jsonl"


def brier(fit: calibration.Calibration, labels: list[bool], scores: list[float]) -> float:
    return float(np.mean((probabilities(fit, np.asarray(scores)) - np.asarray(labels, dtype=float)) ** 2))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the Perspectrum build (default: %(default)s)")
    parser.add_argument("--split", default="dev", choices=("train", "dev"), help="never a test split")
    parser.add_argument("--detectors", default=detectors.VERDICT_DETECTOR)
    parser.add_argument("--seeds", type=int, default=5, help="halvings of the claims, seeds 0 .. N-1")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # a shared 2-core machine: busy-waiting threads cost 4x beside another job
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split]
    claims = sorted({calibration.cluster_of(e) for e in examples})
    shipped = calibration.shipped()
    print(f"{args.data.name}, {args.split} split: {len(examples)} answers on {len(claims)} claims")
    print(
        f"{'detector':<12}{'error':<15}{'seed':>5}{'labels':>8}{'judged':>8}{'base rate':>11}{'shipped':>9}{'own':>9}"
    )
    wins: dict[str, list[bool]] = {}
    for name in (n.strip() for n in args.detectors.split(",") if n.strip()):
        scored = score_examples(examples, [detectors.create(name)], ResultCache())
        results = {s.example.id: s.results[name] for s in scored if name in s.results}
        for seed in range(args.seeds):
            order = list(claims)
            random.Random(seed).shuffle(order)
            labelled = set(order[: len(order) // 2])
            own = refit.fit_labels(
                [e for e in examples if calibration.cluster_of(e) in labelled],
                {name: results},
                source="one half of the claims",
                n_bootstrap=0,
            )
            for error_type in ERROR_TYPES:
                judged = [
                    (label, results[e.id].score(error_type))
                    for e in examples
                    if calibration.cluster_of(e) not in labelled
                    and e.id in results
                    and (label := calibration.dev_label(e, error_type)) is not None
                ]
                labels, scores = [y for y, _ in judged], [s for _, s in judged]
                fitted = own.calibrations.detectors[name][1].get(error_type)
                before = shipped.get(results[examples[0].id], error_type)
                if fitted is None or before is None:
                    print(f"{name:<28}{error_type:<15}{seed:>5}  no calibration to compare")
                    continue
                prior = fitted.positives / (fitted.positives + fitted.negatives)
                base = float(np.mean((prior - np.asarray(labels, dtype=float)) ** 2))
                mine, theirs = brier(fitted, labels, scores), brier(before, labels, scores)
                wins.setdefault(name, []).append(mine < theirs)
                print(
                    f"{name:<28}{error_type:<15}{seed:>5}{own.labels:>8}{len(judged):>8}"
                    f"{base:>11.4f}{theirs:>9.4f}{mine:>9.4f}"
                )
    for name, won in wins.items():
        print(f"{name}: the own calibration's Brier score is lower in {sum(won)} of {len(won)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
