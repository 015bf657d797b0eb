"""What a training step of the meaning judge costs here, by how much of MiniLM it trains.

    python bench/judge_step.py --pairs ~/.cache/rag-error-explorer/judge-pairs.jsonl --ranks 16,64 --full

Times forward, backward and an AdamW step on batches drawn from the judge's pairs
(`python -m explorer.training.judge_data`), as `explorer.training.judge` trains them, for LoRA
adapters of each rank and, with `--full`, for every weight of the encoder. Prints the trainable
parameters and the median step after the first (which pays for the allocator's first growth).
Batches vary in length, so steps vary too: compare medians of one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from explorer.detectors.ops.judge import LABELS  # noqa: E402
from explorer.models.encoder import default_model_path, load_pair_classifier  # noqa: E402
from explorer.training.data import encoder_lora  # noqa: E402
from explorer.training.judge import batch_loss  # noqa: E402
from explorer.training.judge_data import read_pairs  # noqa: E402


def step_seconds(model, tokenizer, batches) -> list[float]:
    limit = int(model.config.max_position_embeddings)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    model.train()
    seconds = []
    for batch in batches:
        started = time.perf_counter()
        batch_loss(model, tokenizer, limit, batch).backward()
        optimizer.step()
        optimizer.zero_grad()
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--ranks", default="16", help="comma-separated LoRA ranks")
    parser.add_argument("--full", action="store_true", help="also train every weight of the encoder")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    pairs = read_pairs(args.pairs)
    rng = random.Random(0)
    batches = [[rng.choice(pairs) for _ in range(args.batch_size)] for _ in range(args.steps)]
    ways = [(f"LoRA rank {rank}", int(rank)) for rank in args.ranks.split(",") if rank.strip()]
    ways += [("every weight", None)] if args.full else []
    for name, rank in ways:
        tokenizer, model = load_pair_classifier(default_model_path(), len(LABELS))
        if rank is None:
            model.requires_grad_(True)
        else:
            model, _ = encoder_lora(model, rank, "SEQ_CLS")
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        seconds = step_seconds(model, tokenizer, batches)
        print(
            f"{name}: {trainable / 1e6:.2f}M trainable, median step {statistics.median(seconds[1:]):.2f} s "
            f"(batch {args.batch_size}, {args.threads} thread(s), steps 2-{args.steps})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
