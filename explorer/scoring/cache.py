"""On-disk cache of detector results, so each result is computed once.

A result is keyed by the detector's identity (name, code version, config, model weights; for a
detector made of others, `Detector.parts`, theirs too) and the hash of what it reads from the
example (`Example.content_hash`). Editing an example, changing a setting or a model, or
upgrading a detector's code gives a new key; nothing stale is served. Writes are atomic
(`explorer.files.write_text`): an interrupted run leaves either a whole result or none, and the
next run resumes from there.

The cache is best-effort: it never stops a run. An entry that cannot be read (a FIFO, a link to
`/dev/zero`, a file over `MAX_ENTRY_BYTES`: only regular files are read, within bounds), is not
a result, or does not fit its example (a score outside [0, 1], a span outside the text, another
example's perspectives; `DetectorResult.problem`) is a miss: the result is computed again and
the entry overwritten. A folder that cannot be written (read-only, full, under a file) leaves results
uncached. Either is logged once per cache (`logging`, logger `explorer.scoring.cache`); a failed
write leaves no temporary file behind.

Read-only "seed" bundles (JSON Lines of `{"key": ..., "result": ...}`, gzipped when they end
in `.gz`) ship precomputed results, e.g. for the shipped samples, so the app opens those examples
instantly.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import logging
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path

from explorer.config import SHIPPED_SCORES, cache_dir
from explorer.data.example import Example
from explorer.detectors.base import Detector, DetectorResult
from explorer.files import WriteError, read_regular, write_text

# `write_seed_bundle` writes the key first, so a line's key is read without parsing the line.
_SEED_KEY = re.compile(r'\{"key": "([0-9a-f]{64})"')

log = logging.getLogger(__name__)


# A detector's info is fixed once it is built; working it out (e.g. a model's package version)
# for every example of a dataset cost as much as reading the results.
_IDENTITIES: weakref.WeakKeyDictionary[Detector, str] = weakref.WeakKeyDictionary()
# Results read back are kept in memory, shared read-only (`DetectorResult` is frozen): a page
# that shows a dataset reads hundreds of them on every run.
MEMORY_ENTRIES = 2048
# A salience result of a long example is a few MB of JSON; far past that an entry is not one.
MAX_ENTRY_BYTES = 64 << 20
# Word scores only shade words: six decimals are finer than any shade, and whole floats were
# most of a bundle's bytes (the stacked detector's on the sample: 1.07 MB gzipped, 0.63 MB rounded).
SEED_DIGITS = 6


def _identity(detector: Detector) -> str:
    identity = _IDENTITIES.get(detector)
    if identity is None:
        made_of = {name: _identity(part) for name, part in detector.parts().items()}
        # Only a detector made of others names them, so the keys of all the rest stay as they were.
        whole = {**detector.info(), "parts": made_of} if made_of else detector.info()
        identity = _IDENTITIES[detector] = json.dumps(whole, sort_keys=True, ensure_ascii=False)
    return identity


def result_key(detector: Detector, example: Example) -> str:
    return hashlib.sha256(f"{_identity(detector)}\n{example.content_hash()}".encode()).hexdigest()


class ResultCache:
    def __init__(self, directory: Path | None = None, *, seeds: Sequence[Path] | None = None):
        self.directory = (directory or cache_dir()) / "results"
        self._seed_paths = sorted(SHIPPED_SCORES.glob("*.jsonl*")) if seeds is None else list(seeds)
        self._seeds: dict[str, str] | None = None
        self._warned: set[str] = set()
        self._memory: OrderedDict[str, DetectorResult] = OrderedDict()
        self._lock = threading.Lock()

    def _path(self, detector: Detector, key: str) -> Path:
        return self.directory / detector.name / key[:2] / f"{key}.json"

    def _warn_once(self, kind: str, message: str) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning(message)

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
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        result = self._read(detector, example, key)
        if result is not None:
            self._remember(key, result)
        return result

    def _read(self, detector: Detector, example: Example, key: str) -> DetectorResult | None:
        path = self._path(detector, key)
        try:
            data = read_regular(path, MAX_ENTRY_BYTES)
        except (FileNotFoundError, NotADirectoryError):  # not cached (or no cache folder at all)
            data = None
        except OSError as error:  # a folder, FIFO or device in the entry's place, no permission, an I/O error
            self._bad_entry(path, error.strerror or str(error))
            data = None
        if data is not None:
            result = self._valid(data, detector, example, path)
            if result is not None:
                return result
        seeded = self._seed_lines().get(key)
        return self._valid(seeded, detector, example, None, seeded=True) if seeded is not None else None

    def _valid(
        self, data: bytes | str, detector: Detector, example: Example, path: Path | None, *, seeded: bool = False
    ) -> DetectorResult | None:
        try:
            record = json.loads(data)
            result = DetectorResult.from_dict(record["result"] if seeded else record)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            problem = f"not JSON: {error}"
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            problem = f"not a detector result: {type(error).__name__} {error}"
        else:
            problem = (
                f"a result of {result.detector!r}" if result.detector != detector.name else result.problem(example)
            )
            if problem is None and (missing := [k for k in detector.kept if k not in result.details]):
                problem = f"written before the detector kept its {', '.join(missing)}"
            if problem is None:
                return result
        self._bad_entry(path, problem)
        return None

    def _bad_entry(self, path: Path | None, problem: str) -> None:
        if path is not None and path.is_file():
            with contextlib.suppress(OSError):
                path.unlink()  # not read again; the result is computed and written anew
        self._warn_once(
            "read",
            f"ignoring the cached result {path or 'in a seed bundle'} ({problem}); it is computed again "
            "(further unusable entries are recomputed without a warning)",
        )

    def _remember(self, key: str, result: DetectorResult) -> None:
        with self._lock:
            self._memory[key] = result
            self._memory.move_to_end(key)
            while len(self._memory) > MEMORY_ENTRIES:
                self._memory.popitem(last=False)

    def put(self, detector: Detector, example: Example, result: DetectorResult) -> None:
        """Store `result`; a cache that cannot be written only loses the result (logged once)."""
        path = self._path(detector, result_key(detector, example))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Not fsynced, as before: an entry a power cut empties is a miss, computed again.
            write_text(path, json.dumps(result.to_dict(), ensure_ascii=False), owned=True, durable=False)
        except (OSError, WriteError) as error:
            reason = error.reason if isinstance(error, WriteError) else error.strerror or error
            self._warn_once(
                "write",
                f"cannot write to the result cache in {self.directory} ({reason}); "
                "scoring goes on, but results are not cached",
            )


def _read_text(path: Path) -> str:
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def _rounded_words(result: DetectorResult) -> dict:
    """`result.to_dict()` with its word scores (each word list's last column) to `SEED_DIGITS` decimals."""
    record = result.to_dict()
    record["words"] = {
        side: [[*word[:-1], round(word[-1], SEED_DIGITS)] for word in words] for side, words in record["words"].items()
    }
    return record


def _seed_writer(path: Path):
    if path.suffix != ".gz":
        return open(path, "w", encoding="utf-8")
    # No time stamp in the gzip header: the same results make the same bytes, so a rerun of
    # `sample_data/precompute.py` changes the shipped file only when its results changed.
    return io.TextIOWrapper(gzip.GzipFile(path, "wb", mtime=0), encoding="utf-8")


def write_seed_bundle(entries: Iterable[tuple[Detector, Example, DetectorResult]], path: Path) -> int:
    """Write results as a seed bundle that `ResultCache` serves read-only; returns the count.

    A path ending in `.gz` is gzipped (salience heatmaps make ~150 kB of JSON per example).
    Word scores are rounded to `SEED_DIGITS` decimals; example scores are kept whole, so a
    shipped verdict is the one the detector gives.
    """
    count = 0
    path = Path(path)
    with _seed_writer(path) as out:
        for detector, example, result in entries:
            record = {"key": result_key(detector, example), "id": example.id, "result": _rounded_words(result)}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
