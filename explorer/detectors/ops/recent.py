"""The last results a detector computed, by example content, so the app's reruns reuse them.

The app reruns a page on every widget change and scores the same example again; a fast learned
detector keeps its recent results in memory instead of running its encoder again. Thread-safe:
the app's sessions share one detector (`st.cache_resource`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from explorer.data.example import Example
from explorer.detectors.base import DetectorResult


class RecentResults:
    """At most `size` results, the least recently used dropped first."""

    def __init__(self, size: int = 256):
        self.size = size
        self._results: OrderedDict[str, DetectorResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, example: Example, compute: Callable[[Example], DetectorResult]) -> DetectorResult:
        key = example.content_hash()
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
        result = compute(example)
        with self._lock:
            self._results[key] = result
            while len(self._results) > self.size:
                self._results.popitem(last=False)
        return result
