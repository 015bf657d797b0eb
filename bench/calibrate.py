"""Fit each detector's calibration (Platt scaling) on the sample data's dev split and ship it.

    python bench/calibrate.py [--methods rouge,semantic,...] [--out explorer/resources/calibration.json]

Scores the dev split of `samples/synthetic.jsonl` (organic, paraphrased and synthetic
examples; ambiguous ones are left out, their label is partial) with each detector, through the
result cache (the shipped salience results serve that detector), fits
`explorer.evaluation.calibration.fit` per error type, prints each detector's dev AUC, the
threshold (P(error) = 0.5) and the verdict bands, and writes them with the detector's `info`.
The test split is never read. Detectors left out of `--methods` keep their entry in the file.
"""

from __future__ import annotations

import argparse
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

DATA = SAMPLE_DIR / "synthetic.jsonl"
SPLIT = "dev"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", default="rouge,semantic,alignment_classifier,cross_encoder,salience,classifier")
    parser.add_argument("--out", type=Path, default=calibration.CALIBRATION_FILE)
    args = parser.parse_args(argv)
    examples = [e for e in parse_jsonl(DATA).examples if e.split == SPLIT]
    known = calibration.read(args.out)
    fitted = dict(known.detectors)
    cache = ResultCache()
    print(f"{DATA.name}, {SPLIT} split: {len(examples)} examples")
    header = f"{'detector':<38}{'error':<15}{'pos/neg':>9}{'dev AUC':>9}"
    print(header + f"{'threshold':>11}{'unlikely <':>12}{'likely >=':>11}")
    for name in (m.strip() for m in args.methods.split(",") if m.strip()):
        started = time.perf_counter()
        detector = detectors.create(name)
        scored = score_examples(examples, [detector], cache)
        results = {s.example.id: s.results[name] for s in scored if name in s.results}
        failed = len(examples) - len(results)
        by_type = calibration.fit_detector(examples, results)
        fitted[name] = (detector.info(), by_type)
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
    data = f"{DATA.parent.name}/{DATA.name}, {SPLIT} split, ambiguous examples left out"
    ordered = {name: fitted[name] for name in detectors.names() if name in fitted}
    calibration.write(calibration.Calibrations(data=data, detectors=ordered), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
