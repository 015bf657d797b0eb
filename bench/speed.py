"""Speed and memory of every detector on the sample data: load time, seconds per example, peak RSS.

    python bench/speed.py                                  # every registered detector, 20 examples
    python bench/speed.py --detectors rouge,semantic --examples 50
    python bench/speed.py --detectors stacked --record      # also into the speed record the cards read
    python bench/speed.py --detectors stacked --data written-second.jsonl --min-words 300   # long answers

Each detector runs in its own child process, so that its load time and peak RSS are its own.
Results are never taken from the cache: every example is scored. The device is whatever the
detector picks (CUDA when present for model-based detectors, else CPU); it is printed with the
figures. The machine may be shared: the load average before and after is printed, and the record
keeps each example's CPU seconds beside its wall-clock seconds (on one thread they match on an
idle machine; under load the CPU seconds still say what the detector costs).

`--record` (default path `explorer/resources/records/speed.json`) writes each measured detector's
figures into the speed record, with the machine, the commit and the load average, keeping the
entries of detectors not measured in this run; the detector cards and `explorer detectors` read it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.samples import load_samples  # noqa: E402
from explorer.detectors import DetectorError  # noqa: E402
from explorer.docs.records import SPEED_RECORD  # noqa: E402
from explorer.files import write_text  # noqa: E402


def examples_of(data: Path | None, min_words: int, count: int):
    """The first `count` examples of `data` (default: the samples) whose response has at least
    `min_words` words."""
    from explorer.data.jsonl import parse_jsonl

    found = parse_jsonl(data).examples if data else load_samples()
    return [e for e in found if len(e.response.split()) >= min_words][:count]


def measure(detector_name: str, examples, queue) -> None:
    import torch

    started = time.perf_counter()
    detector = detectors.create(detector_name)
    loaded = time.perf_counter() - started
    seconds, cpu_seconds, refused = [], [], 0
    for example in examples:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            detector.score(example)
        except DetectorError:
            refused += 1
            continue
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
    queue.put(
        {
            "load": loaded,
            "seconds": seconds,
            "cpu_seconds": cpu_seconds,
            "refused": refused,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "device": "cuda" if torch.cuda.is_available() else "cpu",
            "threads": torch.get_num_threads(),
        }
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detectors", default=",".join(detectors.names()))
    parser.add_argument("--examples", type=int, default=20, help="the first N examples (default 20)")
    parser.add_argument("--data", type=Path, help="JSON Lines examples to time (default: the sample data)")
    parser.add_argument("--min-words", type=int, default=0, help="only responses of at least this many words")
    parser.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=SPEED_RECORD,
        help=f"write the figures into this JSON record (default {SPEED_RECORD.relative_to(SPEED_RECORD.parents[3])})",
    )
    args = parser.parse_args(argv)
    if args.record and (args.data or args.min_words):
        parser.error("--record keeps the sample data's figures: leave out --data and --min-words")
    examples = examples_of(args.data, args.min_words, args.examples)
    words = statistics.median(len(e.response.split()) for e in examples) if examples else 0
    print(f"{len(examples)} examples, median {words:.0f} words")
    measured = {}
    detector_names = [m.strip() for m in args.detectors.split(",") if m.strip()]
    print(f"cpus: {os.cpu_count()}  load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'detector':<14}{'device':>7}{'load s':>9}{'median s/ex':>13}{'p90 s/ex':>10}{'peak RSS MiB':>14}")
    load_before = os.getloadavg()[0]
    context = mp.get_context("spawn")
    for detector_name in detector_names:
        queue = context.Queue()
        child = context.Process(target=measure, args=(detector_name, examples, queue))
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
        measured[detector_name] = {
            "device": figures["device"],
            "threads": figures["threads"],
            "load_seconds": round(figures["load"], 3),
            "median_seconds": round(median, 4),
            "median_cpu_seconds": round(statistics.median(figures["cpu_seconds"]), 4) if seconds else None,
            "p90_seconds": round(p90, 4),
            "peak_rss_mib": round(figures["rss_mib"]),
            "examples": len(seconds),
            "refused": figures["refused"],
        }
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.record:
        write_record(args.record, measured, load_before, os.getloadavg()[0])
        print(f"wrote {args.record}")
    return 0


def write_record(path: Path, measured: dict, load_before: float, load_after: float) -> None:
    """Merge this run's figures into the record at `path`, each with the run it came from."""
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True)
    run = {
        "commit": found.stdout.decode().strip() or "unknown",
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "load_average": [round(load_before, 2), round(load_after, 2)],
        "examples": "the first sample examples (explorer/resources/samples/examples.jsonl), never from the cache",
    }
    record["command"] = "python bench/speed.py --record"
    by_name = record.get("detectors", {})
    by_name.update({name: {**figures, "run": run} for name, figures in measured.items()})
    record["detectors"] = {name: by_name[name] for name in detectors.names() if name in by_name}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
