"""The project's own sample data (written by `sample_data/build.py`, shipped in the package)."""

from __future__ import annotations

from pathlib import Path

from explorer.config import SAMPLE_DIR, SAMPLE_EXAMPLES
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl

__all__ = ["SAMPLE_DIR", "SAMPLE_EXAMPLES", "load_samples", "picker_label"]


def load_samples(path: Path = SAMPLE_EXAMPLES) -> list[Example]:
    """The sample examples; the file is the project's own, so a bad line is a bug."""
    loaded = parse_jsonl(path)
    if loaded.errors:
        raise ValueError(f"{path} has invalid lines: " + "; ".join(map(str, loaded.errors)))
    return loaded.examples


def picker_label(example: Example) -> str:
    topic = f"{example.topic} · " if example.topic else ""
    return f"{topic}{example.id} — {example.labels.summary()}"
