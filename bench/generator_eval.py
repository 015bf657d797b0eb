"""Greedy NPOV answers of the in-process generator, one per claim, timed and checked by the
verdict detector: the figures of `docs/generator-eval.md` (whose faithfulness column is a hand check).

    python bench/generator_eval.py ../shared/data/npov_foreign/dev.jsonl --adapter none --out before.jsonl
    python bench/generator_eval.py ~/.cache/rag-error-explorer/perspectrum.jsonl --split dev --claims 20 \
        --adapter none --out before-perspectrum.jsonl

Only each example's input (query and perspectives) is read; the first example of each claim
(`explorer.training.generator.one_per_claim`) is answered. The answers go to `--out` (keep them
out of the repository: they restate third-party arguments); seconds per answer are the process's
CPU time on one torch thread (the wall time on a shared machine says more about its neighbours),
generation only (the detector's time is not counted).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.evaluation.verdict import answer_check  # noqa: E402
from explorer.generation.backends import Backend, load_generator  # noqa: E402
from explorer.training.generator import answer, one_per_claim  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--split", help="read only this split (default: every example)")
    parser.add_argument("--claims", type=int, default=1000, help="answer the first N claims")
    parser.add_argument("--skip", type=int, default=0, help="of those, skip the first N (to split a run in two)")
    parser.add_argument("--no-check", action="store_true", help="skip the verdict detector's check (saves CPU)")
    parser.add_argument("--adapter", default="auto", help="auto (the packaged or user's adapter), none, or a folder")
    parser.add_argument("--no-guard", action="store_true", help="decode without the coverage guard")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    examples = [e for e in parse_jsonl(args.data).examples if args.split is None or e.split == args.split]
    generator = load_generator(Backend(adapter=args.adapter, guard=not args.no_guard))
    check = None if args.no_check else answer_check()
    print(f"{generator.generated_by}", file=sys.stderr)
    seconds, faithful = [], 0
    with args.out.open("w", encoding="utf-8") as out:
        for example in one_per_claim(examples, args.claims)[args.skip :]:
            started, cpu_started = time.monotonic(), time.process_time()
            answered = answer(generator, example)
            seconds.append(time.process_time() - cpu_started)
            wall = time.monotonic() - started
            ok = check(answered) if check else None
            faithful += bool(ok)
            row = {
                "id": example.id,
                "detector_faithful": ok,
                "cpu_seconds": round(seconds[-1], 2),
                "wall_seconds": round(wall, 2),
                "response": answered.response,
            }
            out.write(json.dumps({**row, "generated_by": generator.generated_by}) + "\n")
            out.flush()
            shown = {True: "ok", False: "error", None: "unchecked"}[ok]
            print(
                f"{example.id}: {shown} ({seconds[-1]:.1f} s CPU, {wall:.1f} s)",
                file=sys.stderr,
                flush=True,
            )
    mean = sum(seconds) / len(seconds)
    print(f"{faithful}/{len(seconds)} detector-faithful; {mean:.1f} CPU seconds per answer (generation only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
