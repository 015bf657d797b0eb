"""Synthetic errors made from error-free examples (Chang et al. 2024, §4.2).

The paper makes training and test errors without writing new responses, by changing the input
of an error-free example so that the unchanged response no longer fits it:

- **hallucination**: one given argument is removed from the input; the response still states
  it, so that statement is now unsupported. `hallucinated_spans` are the response sentences
  that put the removed argument into words, when the example records them (the optional
  `verbalizations` field, below), else empty;
- **coverage error**: one unused argument of the same topic and perspective is added to the
  input; the response does not state it, and `uncovered` points at it.

Where the paper is silent, this module decides:

- an argument is never removed from a perspective that has only one (every perspective stays
  non-empty, as the example format requires);
- the added argument comes from the spare arguments of the topic and perspective (the sample
  data's `spare_arguments.jsonl`) and, only when there are none, from other examples of the
  topic with a perspective of the same name; an argument the example already has is never
  added. Falling back to other examples only when there are no spares matters: the sample data's
  examples of one topic share their arguments (some reworded), so another example's argument
  is often one the response already states. The topic is the example's `topic`, else its query;
- it goes in at a random position of its perspective (not always last, so a classifier
  cannot learn "the last argument is the missing one");
- the choices come from a random generator seeded with the seed, the source id and the error
  type, so one example's synthetic errors do not depend on which other examples are in the file.

Synthetic examples get the id `<source id>-synthetic-hallucination` / `-synthetic-coverage`,
kind `synthetic` (or `synthetic_paraphrased` when made from a `paraphrased` example), the source's
topic and split, and a `synthetic` field saying what was changed.

`verbalizations` (an optional top-level field, written by `sample_data/build.py`) lists where
the response puts each argument into words: `[{"perspective": p, "argument": a, "spans":
[[start, end], ...]}]`. The edits here keep it pointing at the right arguments.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from explorer.data.example import Example, Labels, Perspective, Span, UncoveredArgument
from explorer.data.labels import is_error_free
from explorer.files import MAX_INPUT_BYTES, read_regular

VERBALIZATIONS = "verbalizations"
PROVENANCE = "synthetic"

SparePool = Mapping[tuple[str, str], Sequence[str]]
"""Unused arguments by (topic, perspective name)."""

ArgumentRef = tuple[int, int]


def synthetic_kind(example: Example) -> str:
    return "synthetic_paraphrased" if example.labels.kind in ("paraphrased", "synthetic_paraphrased") else "synthetic"


def topic_key(example: Example) -> str:
    return example.topic or example.query


# --------------------------------------------------------------------------------------
# Verbalizations: where the response states each argument


def verbalizations(example: Example) -> dict[ArgumentRef, tuple[Span, ...]]:
    """The recorded response spans of each argument; malformed or stale entries are ignored."""
    found: dict[ArgumentRef, tuple[Span, ...]] = {}
    records = example.extra.get(VERBALIZATIONS)
    if not isinstance(records, list):
        return found
    for record in records:
        try:
            p, a = int(record["perspective"]), int(record["argument"])
            spans = tuple((int(start), int(end)) for start, end in record["spans"])
        except (KeyError, TypeError, ValueError):
            continue
        in_range = 0 <= p < len(example.perspectives) and 0 <= a < len(example.perspectives[p].arguments)
        if in_range and all(0 <= start < end <= len(example.response) for start, end in spans):
            found[(p, a)] = spans
    return found


def with_verbalizations(example: Example, found: Mapping[ArgumentRef, Sequence[Span]] | None) -> Example:
    """`example` with its `verbalizations` field set to `found` (None: removed, unknown)."""
    extra = {k: v for k, v in example.extra.items() if k != VERBALIZATIONS}
    if found is not None:
        extra[VERBALIZATIONS] = [
            {"perspective": p, "argument": a, "spans": [list(span) for span in found[(p, a)]]} for p, a in sorted(found)
        ]
    return example.replace(extra=extra)


def _remap(example: Example, edited: Example, move: Callable[[ArgumentRef], ArgumentRef | None]) -> Example:
    """`edited` with `example`'s verbalizations carried over through `move` (None: dropped)."""
    if VERBALIZATIONS not in example.extra:
        return edited
    moved = {}
    for ref, spans in verbalizations(example).items():
        target = move(ref)
        if target is not None:
            moved[target] = spans
    return with_verbalizations(edited, moved)


# --------------------------------------------------------------------------------------
# The two edits of §4.2, on any example


def remove_argument(example: Example, perspective: int, argument: int) -> Example:
    """`example` without that argument; gold labels are dropped (they described the old input).

    Raises ValueError when it is the perspective's last argument.
    """
    arguments = example.perspectives[perspective].arguments
    if len(arguments) < 2:
        raise ValueError(f"perspective {example.perspectives[perspective].name!r} has only this argument")
    perspectives = list(example.perspectives)
    perspectives[perspective] = Perspective(
        perspectives[perspective].name, arguments[:argument] + arguments[argument + 1 :]
    )
    edited = example.replace(perspectives=tuple(perspectives), labels=Labels())

    def move(ref: ArgumentRef) -> ArgumentRef | None:
        p, a = ref
        if p != perspective or a < argument:
            return ref
        return None if a == argument else (p, a - 1)

    return _remap(example, edited, move)


def insert_argument(example: Example, perspective: int, position: int, text: str) -> Example:
    """`example` with `text` as argument `position` of that perspective; gold labels dropped."""
    arguments = example.perspectives[perspective].arguments
    if not 0 <= position <= len(arguments):
        raise ValueError(f"position {position} is outside 0..{len(arguments)}")
    perspectives = list(example.perspectives)
    perspectives[perspective] = Perspective(
        perspectives[perspective].name, arguments[:position] + (text,) + arguments[position:]
    )
    edited = example.replace(perspectives=tuple(perspectives), labels=Labels())
    return _remap(
        example, edited, lambda ref: (ref[0], ref[1] + 1) if ref[0] == perspective and ref[1] >= position else ref
    )


# --------------------------------------------------------------------------------------
# The paper's procedure


def removable_arguments(example: Example) -> list[ArgumentRef]:
    """Arguments whose removal leaves their perspective non-empty."""
    return [(p, a) for p, a, _ in example.arguments() if len(example.perspectives[p].arguments) > 1]


def addable_arguments(example: Example, pool: SparePool) -> list[tuple[int, str]]:
    """`(perspective, text)` of unused arguments of the example's topic, per perspective."""
    own = {text for _, _, text in example.arguments()}
    return [
        (p, text)
        for p, perspective in enumerate(example.perspectives)
        for text in pool.get((topic_key(example), perspective.name), ())
        if text not in own
    ]


def _rng(seed: int, example: Example, error_type: str) -> random.Random:
    return random.Random(f"{seed}\n{example.id}\n{error_type}")


def _synthetic(source: Example, edited: Example, error_type: str, labels: Labels, change: dict[str, Any]) -> Example:
    extra = dict(edited.extra)
    extra[PROVENANCE] = {"source": source.id, "error": error_type} | change
    return edited.replace(id=f"{source.id}-synthetic-{error_type}", labels=labels, extra=extra)


def make_hallucination(example: Example, seed: int = 0, choice: ArgumentRef | None = None) -> Example | None:
    """A synthetic hallucination: one argument removed from the input (a seeded random one
    unless `choice` names it); None when every perspective has a single argument."""
    candidates = removable_arguments(example)
    if not candidates:
        return None
    p, a = choice if choice is not None else _rng(seed, example, "hallucination").choice(candidates)
    if (p, a) not in candidates:
        raise ValueError(f"argument {a} of perspective {p} cannot be removed (it is missing or the last one)")
    spans = verbalizations(example).get((p, a), ())
    labels = Labels(
        hallucination=True,
        coverage_error=False,
        kind=synthetic_kind(example),
        ambiguous=False,
        hallucinated_spans=tuple(sorted(spans)),
    )
    change = {"removed": {"perspective": p, "argument": a, "text": example.perspectives[p].arguments[a]}}
    return _synthetic(example, remove_argument(example, p, a), "hallucination", labels, change)


def make_coverage_error(
    example: Example, pool: SparePool, seed: int = 0, choice: tuple[int, str] | None = None
) -> Example | None:
    """A synthetic coverage error: an unused argument of the topic added to the input at a
    random position (a seeded random argument unless `choice` gives `(perspective, text)`);
    None when the pool has no argument for the example's topic and perspectives."""
    rng = _rng(seed, example, "coverage")
    if choice is None:
        candidates = addable_arguments(example, pool)
        if not candidates:
            return None
        choice = rng.choice(candidates)
    p, text = choice
    position = rng.randint(0, len(example.perspectives[p].arguments))
    labels = Labels(
        hallucination=False,
        coverage_error=True,
        kind=synthetic_kind(example),
        ambiguous=False,
        uncovered=(UncoveredArgument(p, position),),
    )
    change = {"added": {"perspective": p, "argument": position, "text": text}}
    return _synthetic(example, insert_argument(example, p, position, text), "coverage", labels, change)


def addition_pool(examples: Iterable[Example], spare: SparePool | None = None) -> dict[tuple[str, str], list[str]]:
    """Arguments that can be added, by (topic, perspective name): the spare ones where a topic
    and perspective has any, else those of the given examples (see the module docstring)."""
    pool: dict[tuple[str, str], list[str]] = {key: list(texts) for key, texts in (spare or {}).items() if texts}
    from_examples: dict[tuple[str, str], list[str]] = {}
    for example in examples:
        for perspective in example.perspectives:
            texts = from_examples.setdefault((topic_key(example), perspective.name), [])
            texts.extend(t for t in perspective.arguments if t not in texts)
    for key, texts in from_examples.items():
        pool.setdefault(key, texts)
    return pool


def synthesize(examples: Sequence[Example], spare: SparePool | None = None, seed: int = 0) -> list[Example]:
    """A synthetic hallucination and a synthetic coverage error of every error-free example,
    in input order (examples where one cannot be made get only the other)."""
    pool = addition_pool(examples, spare)
    made = []
    for example in examples:
        if not is_error_free(example.labels):
            continue
        for synthetic in (make_hallucination(example, seed), make_coverage_error(example, pool, seed)):
            if synthetic is not None:
                made.append(synthetic)
    return made


def read_spare_arguments(path: Path) -> dict[tuple[str, str], list[str]]:
    """`spare_arguments.jsonl`: lines of `{"topic", "perspective", "arguments": [...]}`."""
    pool: dict[tuple[str, str], list[str]] = {}
    for number, line in enumerate(read_regular(Path(path), MAX_INPUT_BYTES).decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            key, texts = (record["topic"], record["perspective"]), record["arguments"]
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: line {number}: expected {{topic, perspective, arguments}}: {error}") from error
        if not all(isinstance(t, str) and t.strip() for t in texts):
            raise ValueError(f"{path}: line {number}: arguments must be non-empty strings")
        pool.setdefault(key, []).extend(texts)
    return pool
