"""One record to one `Example`: validation that names every problem (field and what is wrong).

RefChecker-style records `{"question", "response", "reference": str | [str]}` are read as one
perspective named "reference". Unknown fields are kept and written back; those that look like
labels the reader would then not use (`misplaced_labels`) are warnings. A perspective without
a name is called "perspective N" (N its position), or "perspective N (2)" when the record
names another perspective so. An example holds at most `MAX_CHARACTERS` characters of text
(query, perspective names, arguments and response together): beyond that the word maps and
alignments take memory out of proportion, and a record that big is almost always a mistake.
The query, the arguments and the response hold no run of more than `MAX_UNSPACED_RUN` characters
without a space (a run of dots, one endless "word"): every detector reads text as words, and
such a run is thousands of word pieces that are no words at all.
Reading files (with the line of each problem) lives in `explorer.data.jsonl`.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import regex

from explorer.data.example import (
    AMBIGUOUS_TYPES,
    KINDS,
    SPLITS,
    Example,
    Labels,
    Perspective,
    Span,
    UncoveredArgument,
)
from explorer.text.words import UNSPACED_SCRIPTS

_TOP_LEVEL_FIELDS = ("id", "topic", "query", "perspectives", "response", "labels", "split")

# 100,000 characters is about 15,000 words, tens of times the responses of the paper's data;
# `bench/example_size.py` measures time and memory up to it.
MAX_CHARACTERS = 100_000
# Characters between two spaces or line breaks; scripts written without spaces (Chinese,
# Japanese: a word a character) do not count. A URL rarely passes a few hundred characters; a
# 20,000-character run of dots held a worker 5 to 13 minutes before the taggers read it in full
# windows (issue 51), and still costs as much as a whole 100,000-character answer.
MAX_UNSPACED_RUN = 1_000
_UNSPACED_RUN = regex.compile(rf"[^\s{UNSPACED_SCRIPTS}]{{{MAX_UNSPACED_RUN + 1},}}")


_LABEL_FIELDS = (
    "hallucination",
    "coverage_error",
    "kind",
    "ambiguous",
    "ambiguous_type",
    "hallucinated_spans",
    "uncovered",
)


@dataclass(frozen=True)
class FormatError:
    """One problem with one input record: where (line, field) and what."""

    field: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"


class InvalidExample(ValueError):
    """Raised by `parse_example` with every problem found in the record."""

    def __init__(self, errors: list[FormatError]):
        super().__init__("; ".join(str(error) for error in errors))
        self.errors = errors


# json turns an escaped surrogate pair into one character, so any surrogate left is a lone one
# ("\ud800"): not Unicode text, and encoding it as UTF-8 (cache keys, output files) fails.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _shown(key: str) -> str:
    """A key as a field name in a message, a lone surrogate in it escaped (`\\ud800`)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list", dict: "object"}.get(
        type(value), type(value).__name__
    )


class _RecordReader:
    """Builds one `Example` from a decoded JSON value, collecting every problem on the way."""

    def __init__(self, line: int | None):
        self.line = line
        self.errors: list[FormatError] = []

    def problem(self, field_name: str, message: str) -> None:
        self.errors.append(FormatError(field_name, message, self.line))

    def text(self, record: Mapping, key: str, where: str, *, required: bool) -> str | None:
        if key not in record or record[key] is None:
            if required:
                self.problem(where, "is required")
            return None
        value = record[key]
        if not isinstance(value, str):
            self.problem(where, f"must be a string, got {_type_name(value)}")
            return None
        if required and not value.strip():
            self.problem(where, "must not be empty")
            return None
        if not self.unicode(value, where):
            return None
        return value

    def unicode(self, value: str, where: str) -> bool:
        surrogate = _SURROGATE.search(value)
        if surrogate:
            self.problem(
                where,
                f"holds a lone surrogate \\u{ord(surrogate.group()):04x} at character {surrogate.start()}, "
                "which is not Unicode text",
            )
        return surrogate is None

    def spaced(self, value: str | None, where: str) -> None:
        run = _UNSPACED_RUN.search(value) if value is not None else None
        if run:
            self.problem(
                where,
                f"characters {run.start():,}-{run.end():,} are {len(run.group()):,} characters without a space or "
                f"line break; the limit is {MAX_UNSPACED_RUN:,}, since the detectors read text as words: break the "
                "run up or leave it out",
            )

    def unknown_fields(self, record: Mapping, known: tuple[str, ...], prefix: str = "") -> None:
        """A lone surrogate anywhere in the fields kept as they are (their keys and values,
        nested), which every writer of the example would otherwise fail to encode at the end."""
        # Depth-first in the record's order, without recursion: nesting may be as deep as json reads.
        stack = [(f"{prefix}{_shown(key)}", key, value) for key, value in record.items() if key not in known][::-1]
        while stack:
            where, key, value = stack.pop()
            if isinstance(key, str) and not self.unicode(key, f"{where} (the key)"):
                continue
            if isinstance(value, str):
                self.unicode(value, where)
            elif isinstance(value, dict):
                stack += [(f"{where}.{_shown(k)}", k, v) for k, v in value.items()][::-1]
            elif isinstance(value, list):
                stack += [(f"{where}[{i}]", None, v) for i, v in enumerate(value)][::-1]

    def boolean(self, record: Mapping, key: str, where: str) -> bool | None:
        value = record.get(key)
        if value is not None and not isinstance(value, bool):
            self.problem(where, f"must be true or false, got {_type_name(value)}")
            return None
        return value

    def choice(self, record: Mapping, key: str, where: str, allowed: tuple[str, ...]) -> str | None:
        value = record.get(key)
        if value is not None and value not in allowed:
            self.problem(where, f"must be one of {', '.join(allowed)}, got {json.dumps(value, ensure_ascii=False)}")
            return None
        return value

    def spans(self, value: Any, where: str, text: str | None) -> tuple[Span, ...]:
        if not isinstance(value, list):
            self.problem(where, f"must be a list of [start, end] pairs, got {_type_name(value)}")
            return ()
        spans = []
        for i, span in enumerate(value):
            here = f"{where}[{i}]"
            if (
                not isinstance(span, list)
                or len(span) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)
            ):
                self.problem(here, f"must be a pair of integers [start, end], got {json.dumps(span)}")
                continue
            start, end = span
            if text is not None and not 0 <= start < end <= len(text):
                self.problem(here, f"[{start}, {end}] is not a non-empty span inside a text of {len(text)} characters")
                continue
            spans.append((start, end))
        return tuple(spans)

    def perspectives(self, record: Mapping) -> tuple[Perspective, ...]:
        value = record.get("perspectives")
        if value is None:
            self.problem("perspectives", "is required")
            return ()
        if not isinstance(value, list):
            self.problem("perspectives", f"must be a list, got {_type_name(value)}")
            return ()
        if not value:
            self.problem("perspectives", "needs at least one perspective")
            return ()
        perspectives = []
        seen_names: dict[str, int] = {}
        # An unnamed perspective's name must not take one the record gives another perspective.
        given = {item["name"] for item in value if isinstance(item, dict) and isinstance(item.get("name"), str)}
        for p, item in enumerate(value):
            where = f"perspectives[{p}]"
            if not isinstance(item, dict):
                self.problem(where, f"must be an object with name and arguments, got {_type_name(item)}")
                continue
            name = self.text(item, "name", f"{where}.name", required=False)
            if name is None or not name.strip():
                name = unused_name(f"perspective {p + 1}", given | set(seen_names))
            if name in seen_names:
                self.problem(f"{where}.name", f"{name!r} is already the name of perspectives[{seen_names[name]}]")
            seen_names.setdefault(name, p)
            arguments = item.get("arguments")
            if not isinstance(arguments, list):
                self.problem(f"{where}.arguments", f"must be a list of strings, got {_type_name(arguments)}")
                continue
            if not arguments:
                self.problem(f"{where}.arguments", "a perspective needs at least one argument")
            texts = []
            for a, argument in enumerate(arguments):
                if not isinstance(argument, str):
                    self.problem(f"{where}.arguments[{a}]", f"must be a string, got {_type_name(argument)}")
                elif not argument.strip():
                    self.problem(f"{where}.arguments[{a}]", "must not be empty")
                elif self.unicode(argument, f"{where}.arguments[{a}]"):
                    self.spaced(argument, f"{where}.arguments[{a}]")
                    texts.append(argument)
            perspectives.append(Perspective(name, tuple(texts)))
        return tuple(perspectives)

    def labels(self, record: Mapping, response: str | None, perspectives: tuple[Perspective, ...]) -> Labels:
        value = record.get("labels")
        if value is None:
            return Labels()
        if not isinstance(value, dict):
            self.problem("labels", f"must be an object, got {_type_name(value)}")
            return Labels()
        hallucinated = self.spans(value.get("hallucinated_spans", []), "labels.hallucinated_spans", response)
        return Labels(
            hallucination=self.boolean(value, "hallucination", "labels.hallucination"),
            coverage_error=self.boolean(value, "coverage_error", "labels.coverage_error"),
            kind=self.choice(value, "kind", "labels.kind", KINDS),
            ambiguous=self.boolean(value, "ambiguous", "labels.ambiguous"),
            ambiguous_type=self.choice(value, "ambiguous_type", "labels.ambiguous_type", AMBIGUOUS_TYPES),
            hallucinated_spans=hallucinated,
            uncovered=self.uncovered(value.get("uncovered", []), perspectives),
            extra={k: v for k, v in value.items() if k not in _LABEL_FIELDS},
        )

    def uncovered(self, value: Any, perspectives: tuple[Perspective, ...]) -> tuple[UncoveredArgument, ...]:
        if not isinstance(value, list):
            self.problem("labels.uncovered", f"must be a list, got {_type_name(value)}")
            return ()
        found = []
        for i, item in enumerate(value):
            where = f"labels.uncovered[{i}]"
            if not isinstance(item, dict):
                self.problem(where, f"must be an object with perspective and argument, got {_type_name(item)}")
                continue
            p, a = item.get("perspective"), item.get("argument")
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (p, a)):
                self.problem(where, "perspective and argument must be integer indices")
                continue
            if not 0 <= p < len(perspectives) or not 0 <= a < len(perspectives[p].arguments):
                self.problem(where, f"there is no argument {a} in perspective {p}")
                continue
            spans = None
            if "spans" in item and item["spans"] is not None:
                spans = self.spans(item["spans"], f"{where}.spans", perspectives[p].arguments[a])
            found.append(UncoveredArgument(p, a, spans))
        return tuple(found)


def _close_to(key: str, names: tuple[str, ...]) -> str | None:
    close = difflib.get_close_matches(key.lower(), names, n=1, cutoff=0.75)
    return close[0] if close else None


def misplaced_labels(record: Any, line: int | None = None) -> list[FormatError]:
    """Keys that look like gold labels but are not read as such: a key inside `labels` that is
    no label (`halucination`), a label outside `labels` (`hallucinated_spans` at the top), an
    unknown top-level key close to a field's name (`lables`). Each is kept as an unknown field,
    so without these warnings the example would silently read as unlabelled."""
    if not isinstance(record, dict) or _is_refchecker(record):
        return []
    found = []
    labels = record.get("labels")
    for key in labels if isinstance(labels, dict) else ():
        if key not in _LABEL_FIELDS:
            close = _close_to(key, _LABEL_FIELDS)
            hint = f" (did you mean {close!r}?)" if close else ""
            found.append(FormatError(f"labels.{key}", f"is not a label the explorer reads{hint}; kept as it is", line))
    for key in record:
        if key in _LABEL_FIELDS:
            found.append(FormatError(key, "is a label, but outside `labels` it is not read; move it into labels", line))
        elif key not in _TOP_LEVEL_FIELDS and (close := _close_to(key, _TOP_LEVEL_FIELDS)):
            message = f"is not a field the explorer reads (did you mean {close!r}?); kept as it is"
            found.append(FormatError(key, message, line))
    return found


def unused_name(name: str, taken: set) -> str:
    """`name`, or `name (2)`, `name (3)`... when it is taken."""
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name} ({number})", number + 1
    return candidate


def _is_refchecker(record: Mapping) -> bool:
    return "perspectives" not in record and "reference" in record and "question" in record


def _from_refchecker(record: Mapping, default_id: str) -> dict[str, Any]:
    """Map `{"question", "response", "reference"}` onto the native format."""
    references = record["reference"]
    native = {k: v for k, v in record.items() if k not in ("question", "reference")}
    native["query"] = record["question"]
    native["perspectives"] = [
        {"name": "reference", "arguments": [references] if isinstance(references, str) else references}
    ]
    if "id" not in native:
        native["id"] = default_id
    return native


def _refchecker_field(native: str, reference_is_text: bool) -> str:
    """A mapped field's name as the RefChecker record spells it, e.g. `reference[2]`."""
    if native == "query":
        return "question"
    arguments = "perspectives[0].arguments"
    if not native.startswith(arguments):
        return native
    rest = native.removeprefix(arguments)
    return "reference" + ("" if reference_is_text and rest == "[0]" else rest)


def parse_example(record: Any, *, line: int | None = None, default_id: str | None = None) -> Example:
    """Build an `Example` from one decoded JSON value, or raise `InvalidExample`.

    `default_id` names a RefChecker record that has no id (default `line-N`, or `example`).
    """
    reader = _RecordReader(line)
    if not isinstance(record, dict):
        reader.problem("", f"expected a JSON object, got {_type_name(record)}")
        raise InvalidExample(reader.errors)
    if _is_refchecker(record):
        reference_is_text = isinstance(record["reference"], str)
        try:
            default_id = default_id or (f"line-{line}" if line is not None else "example")
            return parse_example(_from_refchecker(record, default_id), line=line)
        except InvalidExample as invalid:
            # Problems name the fields the user wrote, not those of the native format.
            raise InvalidExample(
                [dataclasses.replace(e, field=_refchecker_field(e.field, reference_is_text)) for e in invalid.errors]
            ) from None
    example_id = reader.text(record, "id", "id", required=True)
    query = reader.text(record, "query", "query", required=True)
    response = reader.text(record, "response", "response", required=True)
    reader.spaced(query, "query")
    reader.spaced(response, "response")
    perspectives = reader.perspectives(record)
    labels = reader.labels(record, response, perspectives)
    topic = reader.text(record, "topic", "topic", required=False)
    split = reader.choice(record, "split", "split", SPLITS)
    reader.unknown_fields(record, _TOP_LEVEL_FIELDS)
    if isinstance(record.get("labels"), dict):
        reader.unknown_fields(record["labels"], _LABEL_FIELDS, "labels.")
    texts = [query, response, *(p.name for p in perspectives), *(a for p in perspectives for a in p.arguments)]
    size = sum(len(text) for text in texts if text is not None)
    if size > MAX_CHARACTERS:
        reader.problem(
            "",
            f"the example holds {size:,} characters of text (query, perspectives and response); "
            f"the limit is {MAX_CHARACTERS:,}: split it into several examples",
        )
    if reader.errors:
        raise InvalidExample(reader.errors)
    return Example(
        id=example_id,
        query=query,
        perspectives=perspectives,
        response=response,
        topic=topic,
        labels=labels,
        split=split,
        extra={k: v for k, v in record.items() if k not in _TOP_LEVEL_FIELDS},
    )


def validate(example: Example) -> list[FormatError]:
    """Problems with an example built in code (e.g. by the app's editor)."""
    try:
        parse_example(example.to_dict())
    except InvalidExample as invalid:
        return invalid.errors
    return []
