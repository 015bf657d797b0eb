"""On-disk cache of detector results, so each result is computed once.

A result is keyed by the detector's identity (name, code version, config, model weights) and
the hash of what it reads from the example (`Example.content_hash`). Editing an example,
changing a setting or a model, or upgrading a detector's code gives a new key; nothing stale
is served. Writes are atomic (temporary file + rename): an interrupted run leaves either a
whole result or none, and the next run resumes from there.

Read-only "seed" bundles (JSON Lines of `{"key": ..., "result": ...}`) ship precomputed
results, e.g. for `sample_data/`, so the app opens those examples instantly.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from explorer.detectors.base import Detector, DetectorResult
from explorer.example import Example

SHIPPED_SEEDS = Path(__file__).resolve().parent.parent / "sample_data" / "scores"


def default_cache_dir() -> Path:
    configured = os.environ.get("EXPLORER_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "rag-error-explorer"


def result_key(detector: Detector, example: Example) -> str:
    identity = json.dumps(detector.info(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{identity}\n{example.content_hash()}".encode()).hexdigest()


class ResultCache:
    def __init__(self, directory: Path | None = None, *, seeds: Sequence[Path] | None = None):
        self.directory = (directory or default_cache_dir()) / "results"
        self._seed_paths = list(SHIPPED_SEEDS.glob("*.jsonl")) if seeds is None else list(seeds)
        self._seeds: dict[str, dict] | None = None

    def _path(self, detector: Detector, key: str) -> Path:
        return self.directory / detector.name / key[:2] / f"{key}.json"

    def _seed_results(self) -> dict[str, dict]:
        if self._seeds is None:
            self._seeds = {}
            for path in self._seed_paths:
                for line in path.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        record = json.loads(line)
                        self._seeds[record["key"]] = record["result"]
        return self._seeds

    def get(self, detector: Detector, example: Example) -> DetectorResult | None:
        key = result_key(detector, example)
        path = self._path(detector, key)
        if path.exists():
            try:
                return DetectorResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
            except (json.JSONDecodeError, KeyError, TypeError):
                path.unlink(missing_ok=True)
        seeded = self._seed_results().get(key)
        return DetectorResult.from_dict(seeded) if seeded is not None else None

    def put(self, detector: Detector, example: Example, result: DetectorResult) -> None:
        path = self._path(detector, result_key(detector, example))
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as tmp:
            json.dump(result.to_dict(), tmp, ensure_ascii=False)
        os.replace(tmp.name, path)


def write_seed_bundle(entries: Iterable[tuple[Detector, Example, DetectorResult]], path: Path) -> int:
    """Write results as a seed bundle that `ResultCache` serves read-only; returns the count."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as out:
        for detector, example, result in entries:
            record = {"key": result_key(detector, example), "id": example.id, "result": result.to_dict()}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
