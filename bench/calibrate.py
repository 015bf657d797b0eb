"""Fit each detector's calibration (Platt scaling) on a labelled dev split and ship it.

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python bench/calibrate.py --data ~/.cache/rag-error-explorer/perspectrum.jsonl \
        [--detectors rouge,semantic,...] [--subset 150] [--out explorer/resources/calibration.json]

Scores the `--split` (default dev) of `--data` (default the sample data's `samples/synthetic.jsonl`:
organic, paraphrased and synthetic examples; ambiguous ones are left out, their label is
partial) with each detector, through the result cache (the shipped salience results serve that
detector), fits `explorer.evaluation.calibration.fit` per error type, prints each detector's dev
AUC, the threshold (P(error) = 0.5) and the verdict bands, and writes them with the detector's
`info` and the data they were fitted on. `--subset N` fits on N examples drawn with `--seed`
(for the slow detectors). A test split is refused. Detectors left out of `--detectors` keep their
entry (and its data) in the file.

Then it names the verdict detector the evidence supports: among the calibrations fitted on the
same data as this run, the highest mean dev ROC AUC over the two error types
(`explorer.detectors.VERDICT_DETECTOR` should name it; a test checks the shipped file).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.config import SAMPLE_DIR  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.data.labels import ERROR_TYPES  # noqa: E402
from explorer.evaluation import calibration  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_examples  # noqa: E402

SAMPLE = SAMPLE_DIR / "synthetic.jsonl"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--detectors", default=",".join(detectors.names()))
    parser.add_argument("--data", type=Path, default=SAMPLE, help="labelled JSON Lines (default: the sample data)")
    parser.add_argument("--split", default="dev", choices=("train", "dev"), help="never a test split")
    parser.add_argument("--subset", type=int, help="fit on this many examples of the split, drawn with --seed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=calibration.CALIBRATION_FILE)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # a shared 2-core machine: busy-waiting threads cost 4x beside another job
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split]
    if args.subset and args.subset < len(examples):
        examples = random.Random(args.seed).sample(examples, args.subset)
    source = source_of(args.data, args.split)
    subset = f", a {len(examples)}-example subset (seed {args.seed})" if args.subset else ""
    data = f"{source}{subset}, ambiguous examples left out"
    known = calibration.read(args.out)
    fitted = dict(known.detectors)
    fitted_on = {name: known.data_of(name) for name in fitted}
    cache = ResultCache()
    print(f"{data}: {len(examples)} examples")
    header = f"{'detector':<38}{'error':<15}{'pos/neg':>9}{'dev AUC':>9}"
    print(header + f"{'threshold':>11}{'unlikely <':>12}{'likely >=':>11}")
    for name in (m.strip() for m in args.detectors.split(",") if m.strip()):
        started = time.perf_counter()
        detector = detectors.create(name)
        scored = score_examples(examples, [detector], cache)
        results = {s.example.id: s.results[name] for s in scored if name in s.results}
        failed = len(examples) - len(results)
        by_type = calibration.fit_detector(examples, results)
        fitted[name] = (detector.info(), by_type)
        fitted_on[name] = data
        for error_type in ERROR_TYPES:
            fit = by_type[error_type]
            cuts = (
                f"{fit.threshold:>11.3f}{fit.unlikely_below:>12.3f}{fit.likely_from:>11.3f}"
                if fit.informative
                else f"{'no verdict: does not rank errors higher':>34}"
            )
            print(
                f"{detectors.spec(name).title:<38}{error_type:<15}{f'{fit.positives}/{fit.negatives}':>9}"
                f"{fit.auc:>9.3f}{cuts}"
            )
        note = f", {failed} example(s) not scored" if failed else ""
        print(f"  ({time.perf_counter() - started:.0f} s{note})")
    ordered = {name: fitted[name] for name in detectors.names() if name in fitted}
    kinds = sorted(set(fitted_on[name] for name in ordered))
    summary = kinds[0] if len(kinds) == 1 else "per detector (each entry's data)"
    written = calibration.Calibrations(data=summary, detectors=ordered, fitted_on=fitted_on)
    calibration.write(written, args.out)
    print(f"wrote {args.out}")
    ranking = calibration.ranking(written, source)
    print(f"mean dev ROC AUC on {source}: " + ", ".join(f"{name} {auc:.3f}" for name, auc in ranking))
    best = calibration.ranking(written, source, among=detectors.verdict_candidates())[0][0]
    print(f"verdict detector by this data, of those not slow: {best} (registry: {detectors.VERDICT_DETECTOR})")
    return 0


def source_of(path: Path, split: str) -> str:
    """The data a calibration was fitted on, as calibration.json names it (no local paths)."""
    name = "samples/synthetic.jsonl" if path.resolve() == SAMPLE.resolve() else path.name
    return f"{name}, {split} split"


if __name__ == "__main__":
    sys.exit(main())
