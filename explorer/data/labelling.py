"""Labels a user makes in the app, one move at a time, and the labels file they are kept in.

The moves are those of the labelling view (`explorer.ui.labelling`): mark words of the response
as hallucinated, mark an argument uncovered (whole, or the words it loses), take a mark back,
or say the answer has no error. Each move returns new `Labels` in the project's format (spans as
character offsets `[start, end)`), and the example-level flags follow the marks: an answer the
user has labelled has a hallucination exactly when some words are marked, and a coverage error
exactly when some argument is. What the user did not mark is taken as correct: labelling an
answer states all of its errors. Other label fields (`kind`, `ambiguous`, ...) are kept.

A selection snaps to whole words (`explorer.text.words`), so a drag that starts or ends inside a
word marks that word, and marks that overlap, touch or stand only spaces apart merge into one span.

The labels file holds the labelled examples whole, one JSON Lines record each, so it is itself
a labelled dataset: `explorer validate`, `explorer eval` and `explorer calibrate` read it as it
is. It is never the input file; opening a dataset with it shows the labels again, matched by
what the detectors read (`Example.content_hash`), so a label never lands on another answer that
happens to share an id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from explorer.data.example import Example, Labels, Span, UncoveredArgument
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.files import UnsafeOutputError, check_output
from explorer.text.words import DEFAULT_SEGMENTER


def snap(text: str, start: int, end: int) -> Span | None:
    """`[start, end)` widened to the whole words it touches; None when it touches no word."""
    inside = [w for w in DEFAULT_SEGMENTER.words(text) if w.start < end and start < w.end]
    return (inside[0].start, inside[-1].end) if inside else None


def merged(spans: Iterable[Span], text: str) -> tuple[Span, ...]:
    """`spans` of `text` sorted, those that overlap, touch or lie only spaces apart joined into one."""
    found: list[Span] = []
    for start, end in sorted(spans):
        if found and (start <= found[-1][1] or not text[found[-1][1] : start].strip()):
            found[-1] = (found[-1][0], max(found[-1][1], end))
        else:
            found.append((start, end))
    return tuple(found)


def without(spans: Iterable[Span], start: int, end: int) -> tuple[Span, ...]:
    """`spans` less every span that shares a character with `[start, end)`."""
    return tuple(span for span in spans if not (span[0] < end and start < span[1]))


def _with_marks(labels: Labels, spans: Sequence[Span], uncovered: Sequence[UncoveredArgument]) -> Labels:
    ordered = tuple(sorted(uncovered, key=lambda u: (u.perspective, u.argument)))
    return Labels(
        hallucination=bool(spans),
        coverage_error=bool(ordered),
        kind=labels.kind,
        ambiguous=labels.ambiguous,
        ambiguous_type=labels.ambiguous_type,
        hallucinated_spans=tuple(spans),
        uncovered=ordered,
        extra=labels.extra,
    )


def as_labelled(labels: Labels) -> Labels:
    """`labels` as a labelled answer's: flags set from the marks (for "no error", none)."""
    return _with_marks(labels, labels.hallucinated_spans, labels.uncovered)


def mark_words(example: Example, start: int, end: int) -> Labels:
    """The response's words in `[start, end)` marked hallucinated (snapped to whole words)."""
    span = snap(example.response, start, end)
    spans = (
        example.labels.hallucinated_spans
        if span is None
        else merged((*example.labels.hallucinated_spans, span), example.response)
    )
    return _with_marks(example.labels, spans, example.labels.uncovered)


def unmark_words(example: Example, start: int, end: int) -> Labels:
    """Every hallucinated span that shares a character with `[start, end)` taken back."""
    spans = without(example.labels.hallucinated_spans, start, end)
    return _with_marks(example.labels, spans, example.labels.uncovered)


def _argument(example: Example, perspective: int, argument: int) -> str:
    if not (0 <= perspective < len(example.perspectives)):
        raise IndexError(f"no perspective {perspective}")
    arguments = example.perspectives[perspective].arguments
    if not (0 <= argument < len(arguments)):
        raise IndexError(f"perspective {perspective} has no argument {argument}")
    return arguments[argument]


def mark_uncovered(example: Example, perspective: int, argument: int, words: Span | None = None) -> Labels:
    """Argument `argument` of perspective `perspective` uncovered: whole (`words` None, which
    replaces any lost words marked before), or the words in `words` added to its lost words."""
    text = _argument(example, perspective, argument)
    others = [u for u in example.labels.uncovered if (u.perspective, u.argument) != (perspective, argument)]
    before = next((u for u in example.labels.uncovered if (u.perspective, u.argument) == (perspective, argument)), None)
    if words is None:
        found = UncoveredArgument(perspective, argument)
    else:
        span = snap(text, *words)
        if span is None:
            return as_labelled(example.labels)
        if before is not None and before.spans is None:  # already uncovered whole: a word of it adds nothing
            return as_labelled(example.labels)
        previous = before.spans if before is not None and before.spans is not None else ()
        lost = merged((*previous, span), text)
        every_word = snap(text, 0, len(text))
        found = UncoveredArgument(perspective, argument, None if lost == (every_word,) else lost)
    return _with_marks(example.labels, example.labels.hallucinated_spans, [*others, found])


def unmark_uncovered(example: Example, perspective: int, argument: int, words: Span | None = None) -> Labels:
    """The argument covered again (`words` None), or its lost words in `words` taken back (the
    argument stays uncovered while some of its words are)."""
    text = _argument(example, perspective, argument)
    kept = []
    for u in example.labels.uncovered:
        if (u.perspective, u.argument) != (perspective, argument):
            kept.append(u)
        elif words is not None:
            lost = without(u.spans if u.spans is not None else ((0, len(text)),), *words)
            if lost:
                kept.append(UncoveredArgument(perspective, argument, lost))
    return _with_marks(example.labels, example.labels.hallucinated_spans, kept)


def no_errors(example: Example) -> Labels:
    """The answer labelled error-free: every mark taken back."""
    return _with_marks(example.labels, (), ())


class NotALabelsFile(ValueError):
    """A file named as the labels file that must not be written as one; the message says why."""


def open_labels_file(path: Path) -> list[Example]:
    """The labelled examples already in the labels file at `path` (none when it does not exist
    yet), after checking it may be written: the output guard's rules (`files.check_output`: no
    file of the repository or the shared data, no folder or device), and a file that is there
    must hold labelled examples only and no bad line, so a dataset named by mistake is never
    overwritten by its labelled part. `NotALabelsFile` says why not; `OSError` when it cannot
    be read."""
    path = Path(path)
    try:
        check_output(path)
    except UnsafeOutputError as error:
        raise NotALabelsFile(str(error)) from error
    if not path.exists():
        return []
    loaded = parse_jsonl(path)
    unlabelled = [e.id for e in loaded.examples if e.labels.hallucination is None or e.labels.coverage_error is None]
    if loaded.errors or unlabelled:
        problem = f"{len(loaded.errors)} line(s) that are no example" if loaded.errors else ""
        problem = problem or f"{len(unlabelled)} example(s) without both labels, e.g. {unlabelled[0]!r}"
        raise NotALabelsFile(f"{path} holds {problem}: a dataset, not a labels file; name a new file")
    return loaded.examples


def by_content(examples: Iterable[Example]) -> dict[str, Example]:
    """Labelled examples by `content_hash`, the last one winning (a file labelled twice)."""
    return {example.content_hash(): example for example in examples}


def apply(examples: Sequence[Example], labelled: Mapping[str, Example]) -> list[Example]:
    """`examples`, each with the labels `labelled` holds for its content, if any."""
    return [
        example.replace(labels=labelled[key].labels) if (key := example.content_hash()) in labelled else example
        for example in examples
    ]


def write_labels(path: Path, labelled: Iterable[Example]) -> None:
    """The labelled examples as JSON Lines, whole or not at all."""
    write_jsonl(labelled, Path(path))
