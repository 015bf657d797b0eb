"""The project's own sample data (`sample_data/`), written by the team."""

from __future__ import annotations

from pathlib import Path

from explorer.example import Example, parse_jsonl

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLE_EXAMPLES = SAMPLE_DIR / "examples.jsonl"


def load_samples(path: Path = SAMPLE_EXAMPLES) -> list[Example]:
    """The sample examples; the file is the project's own, so a bad line is a bug."""
    loaded = parse_jsonl(path)
    if loaded.errors:
        raise ValueError(f"{path} has invalid lines: " + "; ".join(map(str, loaded.errors)))
    return loaded.examples


def picker_label(example: Example) -> str:
    topic = f"{example.topic} · " if example.topic else ""
    return f"{topic}{example.id} — {example.labels.summary()}"
