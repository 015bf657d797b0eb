"""`explorer rates` on a large log: answers per second and peak memory, on each engine.

    python bench/rates.py                     # 10,000 answers, local and Ray (2 workers)
    python bench/rates.py --answers 20000 --workers 1,2 --bootstrap 1000

The log is copies of the sample data's 261 `examples.jsonl` answers under new ids, labels
removed, grouped by topic (26 groups). The detector is the verdict's (stacked) with its shipped
calibration; its results for those answers ship precomputed (`resources/samples/scores`) and reach
every copy through the result cache, so what is measured is reading the log, looking up 10,000
results and the estimate with its bootstrap, not the detector. Each run is a fresh `explorer
rates` process with its own empty cache folder; then the estimate alone from the same scores given
as a file (`--scores`, `explorer score`'s output). Peak memory is that of the process and its
descendants (Ray's included), and its CPU time the sum of theirs (sampled, a little low), as
`bench/scale.py` measures them: on a shared machine CPU time says more than the wall clock. The
reports of every run are compared byte for byte.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import run  # noqa: E402

from explorer import detectors  # noqa: E402
from explorer.config import SAMPLE_DIR  # noqa: E402
from explorer.data.example import Labels  # noqa: E402
from explorer.data.jsonl import parse_jsonl, write_jsonl  # noqa: E402


def explorer(*argv: str) -> list[str]:
    return [sys.executable, "-m", "explorer", *argv]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--workers", default="2", help="Ray worker counts, comma-separated; empty for none")
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")
    samples = parse_jsonl(SAMPLE_DIR / "examples.jsonl").examples
    log = [
        samples[i % len(samples)].replace(id=f"{samples[i % len(samples)].id}~{i}", labels=Labels())
        for i in range(args.answers)
    ]
    with tempfile.TemporaryDirectory(prefix="rates-") as folder:
        out = Path(folder)
        write_jsonl(log, out / "log.jsonl")
        rates = ["rates", str(out / "log.jsonl"), "--by", "topic", "--bootstrap", str(args.bootstrap), "--quiet"]
        engines = [("local", [])] + [
            (f"ray x{n}", ["--engine", "ray", "--workers", n]) for n in args.workers.split(",") if n
        ]
        scores = out / "scores.jsonl"
        print(f"\n{args.answers} answers, {detectors.VERDICT_DETECTOR}, {args.bootstrap} bootstrap rounds, by topic")
        print(f"{'run':<14}{'seconds':>9}{'answers/s':>11}{'CPU s':>8}{'answers/CPU-s':>15}{'peak MiB':>10}  report")
        reference = None
        for name, extra in [*engines, ("scores given", ["--scores", str(scores)])]:
            if name == "scores given":
                os.environ["EXPLORER_CACHE_DIR"] = str(out / "cache-score")
                run(
                    explorer(
                        "score",
                        str(out / "log.jsonl"),
                        "--detectors",
                        detectors.VERDICT_DETECTOR,
                        "--out",
                        str(scores),
                        "--quiet",
                    )
                )
            os.environ["EXPLORER_CACHE_DIR"] = str(out / f"cache-{name.replace(' ', '-')}")
            report = out / name.replace(" ", "-")
            figures = run(explorer(*rates, "--out", str(report), *extra))
            made = report.with_name(report.name + ".json").read_text()
            reference = reference if reference is not None else made
            same = "identical" if made == reference else "DIFFERS from local"
            print(
                f"{name:<14}{figures['seconds']:>9.1f}{args.answers / figures['seconds']:>11.0f}"
                f"{figures['cpu']:>8.1f}{args.answers / max(figures['cpu'], 1e-9):>15.0f}"
                f"{figures['peak_mib']:>10.0f}  {same}"
            )
        print("\n" + (out / "local.md").read_text())
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
