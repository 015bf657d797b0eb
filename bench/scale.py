"""Scoring one file with the local engine and with Ray Data on 1 and 2 workers: examples/s,
peak memory, the ratio to the local engine, Ray's start-up cost, and whether the outputs are
byte-identical.

    python bench/scale.py                              # ROUGE+semantic on 3,000 examples
    python bench/scale.py --examples 6000 --workers 1,2,4
    python bench/scale.py --fresh-arguments            # no text shared between examples
    python bench/scale.py --examples 0 --salience 3 --response-words 12
    python bench/scale.py --salience 8 --gpus-per-worker 1 --workers 1,2

The examples are copies of the sample data's `examples.jsonl` with new ids (not
`synthetic.jsonl`: its examples are edits of those and share most sentences). Each copy's
response gets a copy number in every sentence, so no response text repeats (a test set with
several answers per question: arguments and queries repeat, responses do not);
`--fresh-arguments` numbers every argument and query too. Salience examples keep only
the first `--response-words` words of the response, so that each takes seconds, not minutes.

Every run is `explorer score ... --no-cache` in a child process (nothing comes from the result
cache); its peak memory is the largest sum of the resident memory of the child and all its
descendants (Ray's own processes and workers included), sampled every 0.2 s, and its CPU time
the sum of the CPU time of those processes seen (sampled, so a little low). One thread per
process (OMP_NUM_THREADS=1). The machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.config import SAMPLE_DIR  # noqa: E402
from explorer.data.example import Example, Labels, Perspective  # noqa: E402
from explorer.data.jsonl import parse_jsonl, write_jsonl  # noqa: E402
from explorer.text.claims import sentence_spans  # noqa: E402
from explorer.text.words import DEFAULT_SEGMENTER  # noqa: E402


def numbered(text: str, copy: int) -> str:
    """`text` with ` (copy)` before the end of each sentence: a new text of the same shape."""
    spans = sentence_spans(text) or [(0, len(text))]
    pieces, last = [], 0
    for _, end in spans:
        stop = end - 1 if text[end - 1 : end] in ".!?" else end
        pieces.append(f"{text[last:stop]} ({copy}){text[stop:end]}")
        last = end
    return "".join(pieces) + text[last:]


def copies(examples: list[Example], count: int, fresh_arguments: bool) -> list[Example]:
    made = []
    for index in range(count):
        source, copy = examples[index % len(examples)], index // len(examples)
        changes = {"id": f"{source.id}~{copy}", "response": numbered(source.response, copy), "labels": Labels()}
        if fresh_arguments:
            changes["query"] = numbered(source.query, copy)
            changes["perspectives"] = tuple(
                Perspective(p.name, tuple(numbered(a, copy) for a in p.arguments)) for p in source.perspectives
            )
        made.append(source.replace(**changes))
    return made


def short_responses(examples: list[Example], count: int, words: int) -> list[Example]:
    made = []
    for source in examples[:count]:
        kept = DEFAULT_SEGMENTER.words(source.response)[:words]
        response = source.response[: kept[-1].end] + "." if kept else source.response
        made.append(source.replace(id=f"{source.id}-short", response=response, labels=Labels()))
    return made


def run(argv: list[str]) -> dict:
    """Wall time, summed peak RSS and CPU time of one command and all its descendants."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(child.pid)
    peak, cpu = 0, {}
    while child.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        rss = 0
        for process in tree:
            try:
                rss += process.memory_info().rss
                times = process.cpu_times()
                cpu[process.pid] = times.user + times.system
            except psutil.NoSuchProcess:
                continue
        peak = max(peak, rss)
        time.sleep(0.2)
    stderr = child.stderr.read()
    if child.wait() not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed:\n{stderr}")
    return {"seconds": time.perf_counter() - started, "peak_mib": peak / 2**20, "cpu": sum(cpu.values())}


def ray_start_up() -> dict:
    """Seconds to import Ray, start a local Ray and stop it, in a fresh process."""
    code = (
        "import time; t = time.perf_counter(); import ray, ray.data; i = time.perf_counter() - t; "
        "t = time.perf_counter(); "
        "ray.init(address='local', num_cpus=2, include_dashboard=False, logging_level='ERROR'); "
        "s = time.perf_counter() - t; t = time.perf_counter(); ray.shutdown(); "
        "print(i, s, time.perf_counter() - t)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, started, stopped = map(float, done.stdout.split())
    return {"import": imported, "init": started, "shutdown": stopped}


def score_command(path: Path, detector_names: str, out: Path, *extra: str) -> list[str]:
    """`explorer score` without the result cache, in a fresh interpreter."""
    return [
        sys.executable,
        "-m",
        "explorer",
        "score",
        str(path),
        "--detectors",
        detector_names,
        "--no-cache",
        "--quiet",
        "--out",
        str(out),
        *extra,
    ]


def compare(
    label: str, path: Path, detector_names: str, count: int, workers: list[int], gpus: float, out: Path
) -> None:
    engines = [("local", [])] + [
        (f"ray x{n}", ["--engine", "ray", "--workers", str(n)] + (["--gpus-per-worker", str(gpus)] if gpus else []))
        for n in workers
    ]
    print(f"\n{label}: {detector_names} on {count} examples")
    print(f"{'engine':<8} {'seconds':>8} {'examples/s':>10} {'ex/CPU-s':>9} {'peak MiB':>9} {'vs local':>8}  output")
    reference, local_rate = None, None
    for name, extra in engines:
        target = out / f"{label}-{name.replace(' ', '')}.jsonl"
        figures = run(score_command(path, detector_names, target, *extra))
        rate = count / figures["seconds"]
        local_rate = local_rate or rate
        data = target.read_bytes()
        reference = reference if reference is not None else data
        same = "identical" if data == reference else "DIFFERS from local"
        print(
            f"{name:<8} {figures['seconds']:>8.1f} {rate:>10.3g} {count / max(figures['cpu'], 1e-9):>9.3g} "
            f"{figures['peak_mib']:>9.0f} {rate / local_rate:>7.2f}x  {same}"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=3000, help="ROUGE+semantic examples (0: skip)")
    parser.add_argument("--fresh-arguments", action="store_true", help="number arguments and queries too")
    parser.add_argument("--workers", default="1,2", help="Ray worker counts (default 1,2)")
    parser.add_argument("--gpus-per-worker", type=float, default=0.0)
    parser.add_argument("--salience", type=int, default=0, help="salience examples (default 0: skip)")
    parser.add_argument("--response-words", type=int, default=12, help="words kept of a salience example's response")
    args = parser.parse_args(argv)
    workers = [int(n) for n in args.workers.split(",")]

    samples = parse_jsonl(SAMPLE_DIR / "examples.jsonl").examples
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="scale-") as folder:
        out = Path(folder)
        one = out / "one.jsonl"
        write_jsonl(copies(samples, 1, False), one)
        fixed_local = run(score_command(one, "rouge,semantic", out / "one-local.jsonl"))["seconds"]
        fixed_ray = run(score_command(one, "rouge,semantic", out / "one-ray.jsonl", "--engine", "ray"))["seconds"]
        start_up = ray_start_up()
        print(
            f"Ray start-up: import {start_up['import']:.1f} s, local Ray start {start_up['init']:.1f} s, "
            f"stop {start_up['shutdown']:.1f} s; one example end to end: local {fixed_local:.1f} s, "
            f"Ray (1 worker) {fixed_ray:.1f} s, so Ray's fixed cost is about {fixed_ray - fixed_local:.0f} s"
        )
        if args.examples:
            data = out / "scale.jsonl"
            write_jsonl(copies(samples, args.examples, args.fresh_arguments), data)
            label = "fresh-texts" if args.fresh_arguments else "new-responses"
            compare(label, data, "rouge,semantic", args.examples, workers, args.gpus_per_worker, out)
        if args.salience:
            data = out / "salience.jsonl"
            write_jsonl(short_responses(samples, args.salience, args.response_words), data)
            compare("salience", data, "salience", args.salience, workers, args.gpus_per_worker, out)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
