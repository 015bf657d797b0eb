"""Would bfloat16 change a salience verdict? The default attribution in bf16 against the shipped float32 results.

    python bench/salience_bf16.py [--examples 6] [--split dev]

Scores the shortest `--examples` examples of the sample synthetic file's `--split` (never the
test split) with SmolLM2-135M cast to bfloat16 on the CPU, and compares them with the shipped
float32 results of the same detector. A verdict is "error" when the score is at or above
Youden's threshold, chosen on the shipped float32 scores of the train and dev splits. Prints
per example the float32 and bf16 scores and verdicts, the largest change of a word score and
the Spearman correlation of the word scores, then the number of changed verdicts.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.config import SAMPLE_DIR  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.detectors.salience import SalienceDetector  # noqa: E402
from explorer.evaluation.statistics import youden_threshold  # noqa: E402
from explorer.models.loading import LoadedOnce  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402

LABEL = {"hallucination": lambda labels: labels.hallucination, "coverage": lambda labels: labels.coverage_error}


def thresholds(examples, detector, cache) -> dict[str, float]:
    chosen = {}
    for error_type in ERROR_TYPES:
        labels, scores = [], []
        for example in examples:
            label, result = LABEL[error_type](example.labels), cache.get(detector, example)
            if example.split in ("train", "dev") and label is not None and result is not None:
                labels.append(bool(label))
                scores.append(getattr(result, error_type))
        chosen[error_type] = youden_threshold(labels, scores)
    return chosen


def word_scores(result) -> np.ndarray:
    return np.array([w.score for w in result.response_words] + [w.score for w in result.argument_words])


def main() -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=6)
    parser.add_argument("--split", choices=("train", "dev"), default="dev")
    args = parser.parse_args()
    examples = parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples
    # an empty cache folder: only the shipped (float32) results answer
    detector, cache = SalienceDetector(), ResultCache(Path(tempfile.mkdtemp()), seeds=None)
    limits = thresholds(examples, detector, cache)
    print("thresholds (Youden, shipped float32, train+dev):", {k: round(v, 4) for k, v in limits.items()})
    lm = detector.language_model
    tokens = lm.tokenizer
    chosen = sorted((e for e in examples if e.split == args.split), key=lambda e: len(tokens(e.response).input_ids))
    in_bf16 = dataclasses.replace(lm, model=lm.model.to(torch.bfloat16))
    detector._language_model = LoadedOnce(lambda: in_bf16)
    changed = 0
    for example in chosen[: args.examples]:
        shipped = cache.get(detector, example)
        start = time.perf_counter()
        bf16 = detector.score(example)
        seconds = time.perf_counter() - start
        line = [f"{example.id} ({seconds:.0f} s)"]
        for error_type in ERROR_TYPES:
            before, after = getattr(shipped, error_type), getattr(bf16, error_type)
            flips = (before >= limits[error_type]) != (after >= limits[error_type])
            changed += flips
            line.append(f"{error_type} {before:.4f} -> {after:.4f}{' VERDICT CHANGED' if flips else ''}")
        words_before, words_after = word_scores(shipped), word_scores(bf16)
        rho = spearmanr(words_before, words_after).statistic
        line.append(f"word scores: max change {np.abs(words_before - words_after).max():.4f}, Spearman {rho:.4f}")
        print("; ".join(line), flush=True)
    print(f"verdicts changed: {changed} of {2 * min(args.examples, len(chosen))}")


if __name__ == "__main__":
    main()
