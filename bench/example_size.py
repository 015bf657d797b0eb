"""Time and memory of the semantic detector against the number of claims, up to the limits.

    python bench/example_size.py                       # 100, 250, 500 and 1,000 claims
    python bench/example_size.py --claims 50,1000,1001

An example holds at most `explorer.data.records.MAX_CHARACTERS` characters and its response
at most `explorer.detectors.ops.alignment.MAX_CLAIMS` claims. The response here is a bullet
list (the shape that makes the most claims per character) over the three arguments of the
bad-input corpus's base example. Each size runs in its own child process, so the peak RSS is
its own; the figure is the peak while scoring (and writing the result as the cache would) minus
the RSS after the model loaded. The last column is the MiB of the result JSON that hold the
claim x claim similarities, the only part that grows with the square of the claims. The machine
may be shared: the load average before and after is printed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.records import MAX_CHARACTERS, InvalidExample, parse_example  # noqa: E402
from explorer.detectors import DetectorError  # noqa: E402
from explorer.detectors.ops.alignment import MAX_CLAIMS  # noqa: E402
from tests.bad_inputs.builders import BASE, bullets  # noqa: E402


def measure(claims: int, queue) -> None:
    import torch

    from explorer.detectors.semantic import SemanticDetector

    torch.set_num_threads(1)
    detector = SemanticDetector()
    detector.encoder.encode(["load the model"])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    response = bullets(claims)
    started = time.perf_counter()
    try:
        result = detector.score(parse_example({"id": "size", **BASE, "response": response}))
    except (InvalidExample, DetectorError) as error:
        seconds = time.perf_counter() - started
        queue.put({"refused": f"{error} ({seconds:.2f} s)", "characters": len(response)})
        return
    record = json.dumps(result.to_dict())
    seconds = time.perf_counter() - started
    queue.put(
        {
            "characters": len(response),
            "claims": len(result.details["alignment"]["claims"]),
            "seconds": seconds,
            "peak_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
            "json_mib": len(record) / 2**20,
            "matrix_mib": len(json.dumps(result.details["alignment"]["claim_similarity"])) / 2**20,
        }
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", default="100,250,500,1000", help="comma-separated bullet counts")
    args = parser.parse_args(argv)
    print(f"limits: {MAX_CHARACTERS:,} characters an example, {MAX_CLAIMS:,} claims a response")
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print(
        "| claims | characters | seconds | peak RSS over the loaded model (MiB) | result JSON (MiB) | claim x claim |"
    )
    print("|---|---|---|---|---|---|")
    context = mp.get_context("spawn")
    for count in (int(c) for c in args.claims.split(",")):
        queue = context.Queue()
        child = context.Process(target=measure, args=(count, queue))
        child.start()
        figures = queue.get()
        child.join()
        if "refused" in figures:
            print(f"| {count:,} | {figures['characters']:,} | refused: {figures['refused']} | | | |")
            continue
        print(
            f"| {figures['claims']:,} | {figures['characters']:,} | {figures['seconds']:.1f} "
            f"| {figures['peak_mib']:.0f} | {figures['json_mib']:.1f} | {figures['matrix_mib']:.1f} |"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
