"""On-disk cache of detector results, so each result is computed once.

A result is keyed by the detector's identity (name, code version, config, model weights) and
the hash of what it reads from the example (`Example.content_hash`). Editing an example,
changing a setting or a model, or upgrading a detector's code gives a new key; nothing stale
is served. Writes are atomic (temporary file + rename): an interrupted run leaves either a
whole result or none, and the next run resumes from there.

Read-only "seed" bundles (JSON Lines of `{"key": ..., "result": ...}`, gzipped when they end
in `.gz`) ship precomputed results, e.g. for the shipped samples, so the app opens those examples
instantly.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from explorer.config import SHIPPED_SCORES, cache_dir
from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorResult

# `write_seed_bundle` writes the key first, so a line's key is read without parsing the line.
_SEED_KEY = re.compile(r'\{"key": "([0-9a-f]{64})"')


def result_key(detector: Detector, example: Example) -> str:
    identity = json.dumps(detector.info(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{identity}\n{example.content_hash()}".encode()).hexdigest()


class ResultCache:
    def __init__(self, directory: Path | None = None, *, seeds: Sequence[Path] | None = None):
        self.directory = (directory or cache_dir()) / "results"
        self._seed_paths = sorted(SHIPPED_SCORES.glob("*.jsonl*")) if seeds is None else list(seeds)
        self._seeds: dict[str, str] | None = None

    def _path(self, detector: Detector, key: str) -> Path:
        return self.directory / detector.name / key[:2] / f"{key}.json"

    def _seed_lines(self) -> dict[str, str]:
        """Each seeded key's line, parsed only when asked for (salience bundles hold tens of MB)."""
        if self._seeds is None:
            self._seeds = {}
            for path in self._seed_paths:
                for line in _read_text(path).splitlines():
                    if line.strip():
                        self._seeds[_SEED_KEY.match(line).group(1)] = line
        return self._seeds

    def get(self, detector: Detector, example: Example) -> DetectorResult | None:
        key = result_key(detector, example)
        path = self._path(detector, key)
        if path.exists():
            try:
                return DetectorResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
            except (json.JSONDecodeError, KeyError, TypeError):
                path.unlink(missing_ok=True)
        seeded = self._seed_lines().get(key)
        return DetectorResult.from_dict(json.loads(seeded)["result"]) if seeded is not None else None

    def put(self, detector: Detector, example: Example, result: DetectorResult) -> None:
        path = self._path(detector, result_key(detector, example))
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as tmp:
            json.dump(result.to_dict(), tmp, ensure_ascii=False)
        os.replace(tmp.name, path)


def _read_text(path: Path) -> str:
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def write_seed_bundle(entries: Iterable[tuple[Detector, Example, DetectorResult]], path: Path) -> int:
    """Write results as a seed bundle that `ResultCache` serves read-only; returns the count.

    A path ending in `.gz` is gzipped (salience heatmaps make ~150 kB of JSON per example).
    """
    count = 0
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as out:
        for detector, example, result in entries:
            record = {"key": result_key(detector, example), "id": example.id, "result": result.to_dict()}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
