"""Does a detector care in which order the arguments are given? It should not.

    python bench/argument_order.py ../shared/data/npov_foreign/dev.jsonl --detectors tagger,stacked,classifier

Scores each error-free example twice: as given, and with every perspective's arguments in
reverse order (the response unchanged). A detector that aligns arguments with the response by
position (the k-th argument with the k-th sentence), not by content, scores the reversed input
higher, though nothing in the answer changed. Prints per detector the mean example scores and
how many are at or above 0.5, both ways, and the example whose score rose most.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.edits import reversed_arguments  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES, is_error_free  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--detectors", default=detectors.VERDICT_DETECTOR)
    parser.add_argument("--split", help="read only this split (default: every example)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    examples = [
        e
        for e in parse_jsonl(args.data).examples
        if is_error_free(e.labels)
        and (args.split is None or e.split == args.split)
        and any(len(p.arguments) > 1 for p in e.perspectives)
    ]
    print(f"{len(examples)} error-free examples with a perspective of two or more arguments ({args.data})")
    for name in args.detectors.split(","):
        detector = detectors.create(name.strip())
        given = np.array([[detector.score(e).score(t) for t in ERROR_TYPES] for e in examples])
        turned = np.array([[detector.score(reversed_arguments(e)).score(t) for t in ERROR_TYPES] for e in examples])
        for column, error_type in enumerate(ERROR_TYPES):
            rise = turned[:, column] - given[:, column]
            worst = int(rise.argmax())
            print(
                f"{name} {error_type}: mean {given[:, column].mean():.3f} as given, {turned[:, column].mean():.3f} "
                f"reversed; >= 0.5: {(given[:, column] >= 0.5).sum()} and {(turned[:, column] >= 0.5).sum()}; "
                f"largest rise {rise[worst]:+.3f} ({examples[worst].id})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
