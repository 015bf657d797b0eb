"""Models loaded at first use, once, and adapters merged into their models' weights.

Importing torch and PEFT and reading weights takes seconds that a page of cached results (the
shipped samples' seeds) or a cache key (which needs only a model's identity) does not need, so
every detector builds its model when it first scores. The app's sessions share detectors
(`st.cache_resource`), so the first use is guarded: two threads asking at once load it once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class LoadedOnce(Generic[T]):
    """`load()`'s value, computed at the first call and returned by every later one."""

    def __init__(self, load: Callable[[], T]):
        self._load = load
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._value is not None

    def __call__(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._load()
            return self._value


def merged_adapter(model, adapter_dir: Path):
    """`model` with the LoRA adapter saved in `adapter_dir` merged into its weights, in eval mode.
    Merged, an adapter costs nothing per call (unmerged, its low-rank products took 19-20% more
    CPU time on the tagger's long answers and the generator's greedy answers); outputs move by
    float rounding only (token probabilities under 1e-5)."""
    from peft import PeftModel

    return PeftModel.from_pretrained(model, adapter_dir).merge_and_unload().eval()
