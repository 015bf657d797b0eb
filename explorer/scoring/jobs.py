"""Background jobs with progress, so slow detectors never block the app.

The app submits a job (e.g. salience for one example) and keeps rendering what it already
has; a fragment polls the job for `done / total` and an estimate of the time left. A job is
identified by a key (e.g. the result-cache key), so asking twice for the same work while it
runs returns the running job instead of starting another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from explorer.detectors.base import Progress


@dataclass
class Job:
    key: str
    description: str
    future: Future | None = None
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.monotonic)

    def report(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    @property
    def finished(self) -> bool:
        return self.future is not None and self.future.done()

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0

    def seconds_left(self) -> float | None:
        """Linear estimate from the pace so far; None until there is a pace to go by."""
        if not self.done or not self.total:
            return None
        elapsed = time.monotonic() - self.started
        return elapsed / self.done * (self.total - self.done)

    def result(self) -> Any:
        """The job's return value; re-raises the exception the job raised."""
        return self.future.result()


class JobRunner:
    """Runs jobs one at a time on a worker thread (models are not shared across threads)."""

    def __init__(self, workers: int = 1):
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="explorer-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def submit(self, key: str, description: str, work: Callable[[Progress], Any]) -> Job:
        with self._lock:
            existing = self._jobs.get(key)
            if existing is not None and not (existing.finished and existing.future.exception() is not None):
                return existing
            job = Job(key, description)
            self._jobs[key] = job
            job.future = self._executor.submit(work, job.report)
            return job

    def get(self, key: str) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def running(self) -> list[Job]:
        with self._lock:
            return [job for job in self._jobs.values() if not job.finished]

    def forget(self, key: str) -> None:
        with self._lock:
            self._jobs.pop(key, None)
