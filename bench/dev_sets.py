"""Each detector's figures on each evaluation set, with intervals: the record the detector cards read.

    python bench/dev_sets.py                                  # every detector that is not slow, every set
    python bench/dev_sets.py --detectors classifier --sets foreign   # add or refresh one detector's entries

For each set it runs `explorer eval` (the command a user runs: ROC AUC per error type and slice
with a 95% percentile-bootstrap interval, word-level ROC AUC, hallucinated-span F1) into a
temporary folder and keeps, per detector, what the cards show. Entries of detectors or sets not
named in this run stay as they were, so a slow detector can be added on a machine with a GPU;
each entry records the commit and detector version it was measured with. The record is written
after each set, so an interrupted run keeps the sets it finished. Results go through the result
cache (`--no-cache` to recompute).

| set | file | what it is |
|---|---|---|
| `foreign` | `npov_foreign/dev.jsonl` of the shared data | 226 answers written outside the team, the selection set |
| `foreign_v3` | `npov_foreign/dev_v3.jsonl` of the shared data | 151 answers of a second recipe, also per variant |
| `perspectrum` | Perspectrum dev (`explorer build-data`) | templated answers with the paper's synthetic errors |
| `sample` | the sample set's test split with its synthetic errors | the demo data the app opens with |

The record: `explorer/resources/records/dev_sets.json` (written whole or not at all); then
`python -m explorer.docs` rewrites the cards from it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.cli import main as explorer_cli  # noqa: E402
from explorer.config import CHECKOUT, SAMPLE_DIR, cache_dir, shared_data_dir  # noqa: E402
from explorer.docs.records import DEV_SETS_RECORD, EVALUATION_SETS  # noqa: E402
from explorer.files import write_text  # noqa: E402


def set_file(name: str, work: Path) -> Path:
    """The JSON Lines file of evaluation set `name`, built first where it is built (Perspectrum)."""
    if name == "sample":
        return SAMPLE_DIR / "synthetic.jsonl"
    shared = shared_data_dir()
    if shared is None:
        raise SystemExit("the shared data folder is missing: set EXPLORER_SHARED_DATA")
    if name in ("foreign", "foreign_v3"):
        return shared / EVALUATION_SETS[name].file
    built = work / "perspectrum.jsonl"
    if explorer_cli(["build-data", "--out", str(built), "--data", str(shared / "perspectrum")]) != 0:
        raise SystemExit("explorer build-data failed")
    return built


def summary(report: dict, name: str) -> dict:
    """What the cards show of detector `name` in one `explorer eval` report."""
    examples: dict = {}
    for cell in report["example_level"]:
        if cell["method"] == name and cell["auc"] is not None:
            examples.setdefault(cell["error_type"], {})[cell["slice"]] = {
                "auc": cell["auc"],
                "ci": [cell["ci_low"], cell["ci_high"]],
                "positives": cell["positives"],
                "negatives": cell["negatives"],
            }
    words: dict = {}
    for cell in report["word_level"]:
        if cell["method"] == name and cell["auc"] is not None:
            words.setdefault(cell["error_type"], {})[cell["slice"]] = cell["auc"]
    spans = {
        cell["slice"]: {key: cell[key] for key in ("precision", "recall", "f1")}
        for cell in report.get("span_level", [])
        if cell["method"] == name and cell.get("f1") is not None
    }
    variants: dict = {}
    for cell in report.get("variant_level", []):
        if cell["method"] == name and cell["auc"] is not None:
            variants.setdefault(cell["error_type"], {})[cell["slice"].removeprefix("variant:")] = {
                "auc": cell["auc"],
                "ci": [cell["ci_low"], cell["ci_high"]],
                "positives": cell["positives"],
                "negatives": cell["negatives"],
            }
    return {
        "example": examples,
        "variants": variants,
        "word": words,
        "spans": spans,
        "unscored": report["unscored_examples"].get(name, 0),
    }


def commit() -> str:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=CHECKOUT, capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fast = [name for name in detectors.names() if not detectors.spec(name).background_for_one()]
    parser.add_argument("--detectors", default=",".join(fast), help="default: every detector that is not slow")
    parser.add_argument("--sets", default=",".join(EVALUATION_SETS), help=f"default: {','.join(EVALUATION_SETS)}")
    parser.add_argument("--record", type=Path, default=DEV_SETS_RECORD)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.detectors.split(",") if n.strip()]
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in sets if s not in EVALUATION_SETS]
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; known: {', '.join(EVALUATION_SETS)}")
    record = json.loads(args.record.read_text(encoding="utf-8")) if args.record.exists() else {}
    record.setdefault("sets", {})
    record.setdefault("detectors", {})
    record["command"] = "python bench/dev_sets.py"
    here = commit()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for set_name in sets:
            about = EVALUATION_SETS[set_name]
            path = set_file(set_name, work)
            started = time.perf_counter()
            command = ["eval", str(path), "--detectors", ",".join(names), "--out", str(work / set_name), "--quiet"]
            command += ["--bootstrap", str(args.bootstrap)] + (["--split", about.split] if about.split else [])
            command += ["--no-cache"] if args.no_cache else ["--cache-dir", str(cache_dir())]
            code = explorer_cli(command)
            if code not in (0, 1):
                raise SystemExit(f"explorer eval on {set_name} exited {code}")
            report = json.loads((work / f"{set_name}.json").read_text(encoding="utf-8"))
            record["sets"][set_name] = {
                "title": about.title,
                "file": about.file,
                "split": about.split,
                "examples": report["n_examples"],
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "bootstrap_resamples": report["settings"]["bootstrap_resamples"],
                "confidence": report["settings"]["confidence"],
            }
            for name in names:
                entry = record["detectors"].setdefault(name, {})
                entry[set_name] = {
                    **summary(report, name),
                    "version": detectors.detector_class(name).version,
                    "commit": here,
                }
            save(record, args.record)  # after each set: an interrupted run keeps the sets it finished
            print(f"{set_name}: {report['n_examples']} examples in {time.perf_counter() - started:.0f} s", flush=True)
    print(f"wrote {args.record}")
    return 0


def save(record: dict, path: Path) -> None:
    record["detectors"] = {name: record["detectors"][name] for name in detectors.names() if name in record["detectors"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.exit(main())
