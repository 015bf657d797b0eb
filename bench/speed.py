"""Speed and memory of every detector on the sample data: load time, seconds per example, peak RSS.

    python bench/speed.py                                  # every registered detector, 20 examples
    python bench/speed.py --detectors rouge,semantic --examples 50

Each detector runs in its own child process, so that its load time and peak RSS are its own.
Results are never taken from the cache: every example is scored. The device is whatever the
detector picks (CUDA when present for model-based detectors, else CPU); it is printed with the
figures. The machine may be shared: the load average before and after is printed.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.samples import load_samples  # noqa: E402
from explorer.detectors import DetectorError  # noqa: E402


def measure(detector_name: str, count: int, queue) -> None:
    import torch

    started = time.perf_counter()
    detector = detectors.create(detector_name)
    loaded = time.perf_counter() - started
    seconds, refused = [], 0
    for example in load_samples()[:count]:
        started = time.perf_counter()
        try:
            detector.score(example)
        except DetectorError:
            refused += 1
            continue
        seconds.append(time.perf_counter() - started)
    queue.put(
        {
            "load": loaded,
            "seconds": seconds,
            "refused": refused,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "device": "cuda" if torch.cuda.is_available() else "cpu",
            "threads": torch.get_num_threads(),
        }
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detectors", default=",".join(detectors.names()))
    parser.add_argument("--examples", type=int, default=20, help="the first N sample examples (default 20)")
    args = parser.parse_args(argv)
    detector_names = [m.strip() for m in args.detectors.split(",") if m.strip()]
    print(f"cpus: {os.cpu_count()}  load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'detector':<14}{'device':>7}{'load s':>9}{'median s/ex':>13}{'p90 s/ex':>10}{'peak RSS MiB':>14}")
    context = mp.get_context("spawn")
    for detector_name in detector_names:
        queue = context.Queue()
        child = context.Process(target=measure, args=(detector_name, args.examples, queue))
        child.start()
        figures = queue.get()
        child.join()
        seconds = sorted(figures["seconds"])
        median = statistics.median(seconds) if seconds else float("nan")
        p90 = seconds[int(0.9 * (len(seconds) - 1))] if seconds else float("nan")
        note = f"  ({figures['refused']} refused as too long)" if figures["refused"] else ""
        print(
            f"{detector_name:<14}{figures['device']:>7}{figures['load']:>9.2f}{median:>13.3f}{p90:>10.3f}"
            f"{figures['rss_mib']:>14.0f}{note}",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
