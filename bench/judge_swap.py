"""The shipped verdict with another judge under the meaning and invention checks: how a judge
run's checkpoint would move them before any head is refitted.

    python bench/dev_sets.py --detectors stacked,meaning    # fills the cache for every set
    python bench/judge_swap.py WORK/step-2400 ../shared/data/npov_foreign/dev.jsonl:dev \
        ../shared/data/npov_foreign/dev_v3.jsonl PERSPECTRUM.jsonl:dev --joins 0.1,0.3

`ADAPTER` is a folder with `adapter_config.json` and `adapter_model.safetensors` (a checkpoint
of `python -m explorer.training.judge --work WORK`, or a kept adapter). Each example's meaning
and invention checks are scored again with that judge; the verdict's other components come from
the result cache (an example without them is skipped) and the shipped heads combine them
(`StackedDetector.combine`: with the shipped adapter it gives the shipped results). Prints ROC
AUC × 100 per file and slice (`explorer eval`'s): the meaning check alone and the verdict, shipped
-> swapped, and for hallucination the swapped verdict with the meaning check's misstatement
joined by noisy-or at each of `--joins` (`bench/joins.py`). About 1-2 s an example on one thread.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_auc_score  # noqa: E402

from bench.floor import slices  # noqa: E402
from bench.joins import rejoined  # noqa: E402
from explorer.config import cache_dir  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.detectors.base import DetectorError  # noqa: E402
from explorer.detectors.details import EVIDENCE  # noqa: E402
from explorer.detectors.invention import InventionDetector  # noqa: E402
from explorer.detectors.meaning import MeaningDetector  # noqa: E402
from explorer.detectors.ops.judge import Judge  # noqa: E402
from explorer.detectors.stacked import StackedDetector  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402

JUDGED = ("meaning", "invention")


def adapter_only(folder: Path, into: Path) -> Path:
    """A copy in `into` of the adapter's two files alone: a checkpoint folder also holds the
    optimizer's state, which the judge's digest (its results' identity) would read too."""
    copy = into / "adapter"
    copy.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        shutil.copy(folder / name, copy / name)
    return copy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("adapter", type=Path, help="the judge's adapter folder")
    parser.add_argument("data", nargs="+", help="JSON Lines with labels, FILE or FILE:SPLIT")
    parser.add_argument("--joins", default="0.1,0.3", help="weights of the misstatement joined to hallucination")
    args = parser.parse_args(argv)
    joins = [float(w) for w in args.joins.split(",")]
    with tempfile.TemporaryDirectory(prefix="judge-swap-") as into:
        return swap(Judge(adapter_only(args.adapter, Path(into))), args.data, joins)


def swap(judge: Judge, data, joins) -> int:
    """Each file's slices read with `judge` under the meaning and invention checks."""
    swapped = {"meaning": MeaningDetector(judge=judge), "invention": InventionDetector(judge=judge)}
    cache, verdict = ResultCache(cache_dir(), seeds=[]), StackedDetector()
    shipped_meaning = verdict.components["meaning"]
    for given in data:
        path, _, split = given.partition(":")
        examples = [e for e in parse_jsonl(Path(path)).examples if not split or e.split == split]
        read = {}
        for example in examples:
            shipped = cache.get(verdict, example)
            results = {
                name: cache.get(verdict.components[name], example) for name in verdict.read if name not in JUDGED
            }
            if shipped is None or None in results.values():
                continue
            missing = {}
            for name, detector in swapped.items():
                try:
                    results[name] = detector.score(example)
                except DetectorError as error:
                    missing[name] = str(error)
            before = cache.get(shipped_meaning, example)
            read[example.id] = (before, results.get("meaning"), shipped, verdict.combine(example, results, missing))
        print(f"{given}: {len(read)} of {len(examples)} examples read")
        kept = [e for e in examples if e.id in read]
        for error_type, name, members in slices(kept):
            print(f"  {error_type} {name}: " + slice_line(error_type, members, read, joins), flush=True)
    return 0


def slice_line(error_type: str, members, read, joins) -> str:
    """One slice's ROC AUCs: the meaning check and the verdict, shipped -> swapped, and the joins."""
    labels = [label for _, label in members]

    def auc(score) -> str:
        return f"{100 * roc_auc_score(labels, [score(read[e.id]) for e, _ in members]):.1f}"

    def alone(result) -> float:
        return result.score(error_type) if result is not None else 0.0

    cells = [
        f"meaning {auc(lambda r: alone(r[0]))} -> {auc(lambda r: alone(r[1]))}",
        f"verdict {auc(lambda r: r[2].score(error_type))} -> {auc(lambda r: r[3].score(error_type))}",
    ]
    if error_type == "hallucination":
        cells += [
            f"joined at {w} {auc(lambda r, w=w: rejoined(EVIDENCE.of(r[3])[error_type], alone(r[1]), w))}"
            for w in joins
        ]
    return " | ".join(cells)


if __name__ == "__main__":
    sys.exit(main())
