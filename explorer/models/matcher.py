"""The tuned argument matcher as a sentence encoder: the packaged all-MiniLM-L6-v2 with the LoRA
adapter trained by `explorer.training.matcher` (`MATCHER`: the user's, else the shipped one).

It is a `SentenceEncoder` (same cache, thread and length handling) whose identity names the
adapter's sha256, so cached results of the plain encoder are never reused for it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from explorer.models.encoder import SentenceEncoder
from explorer.models.trained import ADAPTER_FILE, MATCHER


class MatcherNotFoundError(FileNotFoundError):
    pass


def adapter_sha256(adapter_dir: Path) -> str:
    return hashlib.sha256((Path(adapter_dir) / ADAPTER_FILE).read_bytes()).hexdigest()


class MatcherEncoder(SentenceEncoder):
    """MiniLM + the matcher's LoRA adapter; `adapter_dir` defaults to `MATCHER.find()`."""

    def __init__(self, adapter_dir: str | Path | None = None, **options):
        self.adapter_dir = Path(adapter_dir) if adapter_dir else MATCHER.find()
        if not (self.adapter_dir / ADAPTER_FILE).is_file():
            raise MatcherNotFoundError(
                f"no matcher adapter in {self.adapter_dir} (train one: explorer train --detector semantic_tuned)"
            )
        super().__init__(**options)
        self.adapter_hash = adapter_sha256(self.adapter_dir)

    def _load(self):
        model = super()._load()
        model.load_adapter(str(self.adapter_dir))
        return model.eval()

    def identity(self) -> str:
        return f"{super().identity()} + matcher LoRA {self.adapter_hash[:16]}"


def shared_matcher_encoder(adapter_dir: str | Path | None = None) -> MatcherEncoder:
    """One matcher encoder per adapter folder in the process (weights and embedding cache shared)."""
    return _matcher_at((Path(adapter_dir) if adapter_dir else MATCHER.find()).resolve())


@functools.cache
def _matcher_at(path: Path) -> MatcherEncoder:
    return MatcherEncoder(path)
