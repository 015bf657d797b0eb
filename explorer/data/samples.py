"""The project's own sample data (written by `sample_data/build.py`, shipped in the package)."""

from __future__ import annotations

from pathlib import Path

from explorer.config import SAMPLE_DIR, SAMPLE_EXAMPLES
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import kind_of

__all__ = ["SAMPLE_DIR", "SAMPLE_EXAMPLES", "load_samples", "picker_label"]


def load_samples(path: Path = SAMPLE_EXAMPLES) -> list[Example]:
    """The sample examples; the file is the project's own, so a bad line is a bug."""
    loaded = parse_jsonl(path)
    if loaded.errors:
        raise ValueError(f"{path} has invalid lines: " + "; ".join(map(str, loaded.errors)))
    return loaded.examples


def picker_label(example: Example) -> str:
    """What a sample shows first, then its topic and id: "Hallucination (repetition) · Nuclear
    power · nuclear-power-repetition". A narrow box cuts the end, never what the sample is for."""
    shows = example.labels.summary()
    if kind_of(example.labels) != "organic" and "(" not in shows:
        shows += f" ({kind_of(example.labels).replace('_', ' ')})"
    topic = f" · {example.topic}" if example.topic else ""
    return f"{shows[:1].upper()}{shows[1:]}{topic} · {example.id}"
