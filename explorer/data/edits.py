"""The error-injection lab's edits of an example.

Every edit is a pure function from an `Example` to a new one, so the lab can show any
detector's scores before and after side by side (`explorer.evaluation.table.score_changes`).
Edits of the input or the response drop the gold labels (they described the text before the
edit), except a new order of the arguments (`with_argument_orders`: the labels, renumbered,
still hold; the example's other records are dropped); the paper's synthetic procedure (Chang
et al. 2024, §4.2, `explorer.data.synthetic`) sets new ones. Where the example records where the
response states each argument (`verbalizations`), the edits keep that record pointing at the
right arguments, so a synthetic hallucination made after other edits still marks its span.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from explorer.data import synthetic
from explorer.data.example import Example, Labels, Perspective

drop_argument = synthetic.remove_argument


def add_argument(example: Example, perspective: int, text: str, position: int | None = None) -> Example:
    """`text` as a new argument of `perspective`, last unless `position` says where."""
    if not text.strip():
        raise ValueError("the new argument is empty")
    at = len(example.perspectives[perspective].arguments) if position is None else position
    return synthetic.insert_argument(example, perspective, at, text.strip())


def move_argument(example: Example, perspective: int, argument: int, to_perspective: int) -> Example:
    """The argument moved to the end of another perspective (the response is unchanged, so a
    response that voices it for its old side now confuses perspectives)."""
    if to_perspective == perspective:
        raise ValueError("the argument is already in that perspective")
    text = example.perspectives[perspective].arguments[argument]
    stated = synthetic.verbalizations(example).get((perspective, argument))
    moved = synthetic.remove_argument(example, perspective, argument)
    moved = synthetic.insert_argument(moved, to_perspective, len(moved.perspectives[to_perspective].arguments), text)
    if stated is None:
        return moved
    found = synthetic.verbalizations(moved)
    found[(to_perspective, len(moved.perspectives[to_perspective].arguments) - 1)] = stated
    return synthetic.with_verbalizations(moved, found)


def edit_argument(example: Example, perspective: int, argument: int, text: str) -> Example:
    """The argument's text replaced; where the response stated the old text is forgotten."""
    if not text.strip():
        raise ValueError("the argument text is empty; drop the argument instead")
    arguments = list(example.perspectives[perspective].arguments)
    arguments[argument] = text.strip()
    perspectives = list(example.perspectives)
    perspectives[perspective] = Perspective(perspectives[perspective].name, tuple(arguments))
    found = synthetic.verbalizations(example)
    found.pop((perspective, argument), None)
    edited = example.replace(perspectives=tuple(perspectives), labels=Labels())
    return synthetic.with_verbalizations(edited, found) if synthetic.VERBALIZATIONS in example.extra else edited


def edit_response(example: Example, response: str) -> Example:
    """The response replaced; the recorded verbalization spans no longer apply and are dropped."""
    if not response.strip():
        raise ValueError("the response is empty")
    return synthetic.with_verbalizations(example.replace(response=response, labels=Labels()), None)


def apply_synthetic(
    example: Example,
    error_type: str,
    pool: synthetic.SparePool,
    seed: int = 0,
    choice: tuple[int, int] | tuple[int, str] | None = None,
) -> Example:
    """The paper's synthetic procedure for one error type (the argument `choice` names, else a
    seeded random one); ValueError when it cannot apply. The errors the example's labels already
    record stay recorded (`_with_earlier_errors`): a coverage error made after a hallucination
    leaves an example with both."""
    if error_type == "hallucination":
        made = synthetic.make_hallucination(example, seed, choice)
        reason = "every perspective has a single argument, and none may be removed"
    else:
        made = synthetic.make_coverage_error(example, pool, seed, choice)
        reason = f"no unused argument is known for the topic {synthetic.topic_key(example)!r}"
    if made is None:
        raise ValueError(f"no synthetic {error_type} error can be made: {reason}")
    return _with_earlier_errors(example, made)


def _with_earlier_errors(before: Example, made: Example) -> Example:
    """`made`'s labels plus the errors `before`'s labels recorded, which one synthetic edit leaves
    true: the response is unchanged, so a hallucinated span stays hallucinated, and an uncovered
    argument stays uncovered (renumbered past an argument added or removed before it; gone if
    it was the argument removed)."""
    earlier, labels = before.labels, made.labels
    if not (earlier.hallucination or earlier.coverage_error):
        return made
    removed = added = None
    change = made.extra[synthetic.PROVENANCE]
    if "removed" in change:
        removed = (change["removed"]["perspective"], change["removed"]["argument"])
    else:
        added = (change["added"]["perspective"], change["added"]["argument"])
    uncovered = []
    for entry in earlier.uncovered:
        p, a = entry.perspective, entry.argument
        if removed is not None and p == removed[0]:
            if a == removed[1]:
                continue
            a -= a > removed[1]
        if added is not None and p == added[0] and a >= added[1]:
            a += 1
        uncovered.append(dataclasses.replace(entry, perspective=p, argument=a))
    merged = dataclasses.replace(
        labels,
        hallucination=bool(labels.hallucination or earlier.hallucination),
        # an unnamed uncovered argument stays; a named one only if it was not the one removed
        coverage_error=bool(labels.coverage_error or (earlier.coverage_error and (uncovered or not earlier.uncovered))),
        hallucinated_spans=tuple(sorted({*earlier.hallucinated_spans, *labels.hallucinated_spans})),
        uncovered=(*uncovered, *labels.uncovered),
    )
    return made.replace(labels=merged)


def argument_changes(before: Example, after: Example) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Arguments of `before` no longer in `after` (removed), and of `after` not in `before`
    (added), as `(perspective, argument)` of their own example. Perspectives pair by name; an
    argument moved to another perspective, or rewritten, is removed on one side and added on the other."""

    def texts(example: Example) -> dict[tuple[str, str], list[tuple[int, int]]]:
        found: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for p, a, text in example.arguments():
            found.setdefault((example.perspectives[p].name, text), []).append((p, a))
        return found

    old, new = texts(before), texts(after)
    removed = {ref for key, refs in old.items() for ref in refs[len(new.get(key, [])) :]}
    added = {ref for key, refs in new.items() for ref in refs[len(old.get(key, [])) :]}
    return removed, added


def with_argument_orders(example: Example, orders: Sequence[Sequence[int]]) -> Example:
    """`example` with each perspective's arguments in the order its entry of `orders` gives (the
    old indices, new first), its uncovered arguments renumbered. Unlike the other edits it keeps
    the labels, which stay true: the response and the hallucinated spans are unchanged. Answers
    state a side's arguments in any order, and a detector that learns to pair the k-th argument
    with the k-th sentence fails on the others."""
    perspectives = tuple(
        dataclasses.replace(p, arguments=tuple(p.arguments[i] for i in order))
        for p, order in zip(example.perspectives, orders, strict=True)
    )
    uncovered = tuple(
        dataclasses.replace(u, argument=list(orders[u.perspective]).index(u.argument)) for u in example.labels.uncovered
    )
    labels = dataclasses.replace(example.labels, uncovered=uncovered)
    return dataclasses.replace(example, perspectives=perspectives, labels=labels, extra={})


def reversed_arguments(example: Example) -> Example:
    """`example` with each perspective's arguments in reverse order (`with_argument_orders`)."""
    return with_argument_orders(example, [range(len(p.arguments))[::-1] for p in example.perspectives])
