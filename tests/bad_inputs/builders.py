"""Builders of the bad-input corpus's cases (`tests.bad_inputs.corpus`): the base example,
JSON Lines from records, long texts, and the `Case` type with the outcome each file must get."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent

BASE: dict[str, Any] = {
    "topic": "Sugar tax",
    "query": "Should sugary drinks be taxed?",
    "perspectives": [
        {"name": "pro", "arguments": ["Taxes reduce sugar consumption.", "The revenue funds school meals."]},
        {"name": "con", "arguments": ["Taxes hurt poor families the most."]},
    ],
    "response": "Sugar taxes reduce consumption and fund school meals, but critics say they hurt poor families.",
}
FIRST, LAST = "good-first", "good-last"

# Sentences for the long responses: the arguments restated, plus claims no argument makes.
SENTENCES = [
    "Sugar taxes reduce the consumption of sweet drinks.",
    "The revenue from the tax pays for school meals.",
    "Critics say the tax hurts poor families the most.",
    "Some shops moved their prices before the tax began.",
    "Doctors in several countries support the measure.",
    "Manufacturers changed their recipes to use less sugar.",
    "Children drink fewer fizzy drinks where the tax applies.",
    "The effect on obesity rates is still debated by researchers.",
]


def good(example_id: Any, **changes: Any) -> dict[str, Any]:
    return {"id": example_id, **BASE, **changes}


def with_perspectives(*perspectives: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(p) for p in perspectives]


def words_text(count: int, *, punctuated: bool = True) -> str:
    """`count` words cycling through `SENTENCES`, as sentences or as one unpunctuated run."""
    words = " ".join(SENTENCES).split()
    chosen = [words[i % len(words)] for i in range(count)]
    text = " ".join(chosen)
    return text if punctuated else text.replace(".", "").replace(",", "")


def lines(*items: dict | str | bytes, end: bytes = b"\n") -> bytes:
    """JSON Lines: a dict is encoded as UTF-8 JSON, a str or bytes line is written as it is."""
    encoded = []
    for item in items:
        if isinstance(item, dict):
            encoded.append(json.dumps(item, ensure_ascii=False).encode("utf-8"))
        elif isinstance(item, str):
            encoded.append(item.encode("utf-8"))
        else:
            encoded.append(item)
    return end.join(encoded) + end


def around(*middle: dict | str | bytes) -> bytes:
    """`middle` between two good lines."""
    return lines(good(FIRST), *middle, good(LAST))


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    data: bytes
    kept: tuple[str, ...]
    errors: tuple[str, ...] = ()
    refused_by: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.jsonl"


HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=1;alert('img')\">"
GOOD_PAIR = (FIRST, LAST)


def bullets(count: int) -> str:
    """A bullet list of `count` claims cycling through `SENTENCES`: the most claims a character."""
    return "\n".join(f"- {SENTENCES[i % len(SENTENCES)][:-1]} ({i})." for i in range(count))
