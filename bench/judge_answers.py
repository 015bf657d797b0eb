"""Each generated answer's verdicts by several detectors: how often each flags a faithful answer.

    python bench/generator_eval.py ../shared/data/npov_foreign/dev.jsonl --no-check --out answers.jsonl
    python bench/judge_answers.py answers.jsonl --inputs ../shared/data/npov_foreign/dev.jsonl \
        --detectors stacked,classifier

`answers.jsonl` is what `bench/generator_eval.py` writes (an id and a response a line); each
answer is judged with the query and perspectives of the example of that id in `--inputs`.
Prints, per answer, each detector's calibrated verdict and P(error) for both error types, then
per detector how many answers got "likely" or "unclear" for either: on answers checked by hand
as faithful these are false alarms (`docs/generator-eval.md` lists which answers are).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.evaluation.verdict import verdicts  # noqa: E402

ORDER = ("none", "unlikely", "unclear", "likely")  # "none": no calibration fits the detector's result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("answers", type=Path, nargs="+")
    parser.add_argument("--inputs", type=Path, nargs="+", required=True, help="the files the answers' ids come from")
    parser.add_argument("--detectors", default=detectors.VERDICT_DETECTOR)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    inputs = {}
    for path in args.inputs:
        for example in parse_jsonl(path).examples:
            inputs.setdefault(example.id, example)
    chosen = [detectors.create(name.strip()) for name in args.detectors.split(",")]
    flagged: dict[str, Counter] = {d.name: Counter() for d in chosen}
    for path in args.answers:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["id"] not in inputs:
                raise SystemExit(f"{path}: id {row['id']!r} is in none of the --inputs files")
            example = replace(inputs[row["id"]], response=row["response"])
            shown = [row["id"]]
            for detector in chosen:
                judged = verdicts(example, detector.score(example))
                worst = max((judged[t].verdict or "none" for t in ERROR_TYPES), key=ORDER.index)
                flagged[detector.name][worst] += 1
                pieces = [f"{t[0].upper()} {judged[t].verdict} {judged[t].probability or 0:.2f}" for t in ERROR_TYPES]
                shown.append(f"{detector.name}: {', '.join(pieces)}")
            print(" | ".join(shown), flush=True)
    for name, counts in flagged.items():
        said = ", ".join(f"{counts[verdict]} {verdict}" for verdict in reversed(ORDER) if counts[verdict])
        print(f"{name}, the worse verdict of the two error types: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
