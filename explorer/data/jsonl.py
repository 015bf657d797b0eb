"""Reading and writing example files, with the line of every problem.

Reading never stops at a bad record: each problem becomes a `FormatError` naming the line, the
field and what is wrong, and every good record is kept (`explorer.data.records` checks one
record). The format is JSON Lines, one record a line; a reader also meets:

- gzip: a file that starts with gzip's signature is decompressed first (at most `MAX_UNZIPPED`
  bytes, so a small file cannot expand to fill the memory);
- only a regular file of at most `files.MAX_INPUT_BYTES` is read: a FIFO, a device such as
  `/dev/zero` or a bigger file is an `OSError` at once (`files.read_regular`);
- one JSON document: a JSON array of records, or records pretty-printed over several lines
  (`jq .`, `json.dump(indent=2)`). A file is read so when its first non-blank line opens an
  array (`[...`) or is a lone `{`. A record's line is the line it starts on. A JSON error stops
  the reading there (nothing marks where the next record would begin), keeping the records
  before it, unless reading the file as JSON Lines keeps more.

A key given twice in one object is an error (JSON keeps only the last value, silently). Labels
that contradict each other (`hallucination: false` with hallucinated spans) and keys that look
like labels but are not read as such (`records.misplaced_labels`) are warnings: the example is
kept. A RefChecker record without an id is named `line-N` (N its line), or
`line-N (2)` when the file gives that id to another record.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.data.example import Example
from explorer.data.labels import contradictions
from explorer.data.records import (
    FormatError,
    InvalidExample,
    misplaced_labels,
    parse_example,
    unused_name,
    validate,
)
from explorer.files import MAX_INPUT_BYTES, atomic_writer, read_regular

# One record's validation lives in `explorer.data.records`; callers import it from here too.
__all__ = [
    "DuplicateKeyError",
    "FormatError",
    "InvalidExample",
    "LoadResult",
    "dumps",
    "loads",
    "parse_example",
    "parse_jsonl",
    "validate",
    "write_jsonl",
]

GZIP_SIGNATURE = b"\x1f\x8b"
MAX_UNZIPPED = MAX_INPUT_BYTES
JSON_LINES, JSON_ARRAY, PRETTY_JSON = "JSON Lines", "a JSON array", "pretty-printed JSON"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass
class LoadResult:
    """Outcome of reading a file: the good examples, one error per problem found, and warnings
    about examples that were kept (e.g. contradictory labels). `lines_read` counts the records
    read: the non-empty lines of JSON Lines. `layout` says how the file was read."""

    examples: list[Example]
    errors: list[FormatError]
    lines_read: int = 0
    warnings: list[FormatError] = field(default_factory=list)
    layout: str = JSON_LINES

    @property
    def ok(self) -> bool:
        return not self.errors


class DuplicateKeyError(json.JSONDecodeError):
    """A key given twice in one object; a `JSONDecodeError`, so that every caller that handles
    invalid JSON handles it. Its position is the start of the value that holds it."""

    def __init__(self, key: str, text: str, position: int):
        problem = f"duplicate key {key!r}: an object gives it twice, and JSON would keep only the last value"
        super().__init__(problem, text, position)
        self.key = key


class _Decoder:
    """`json` with every duplicate key recorded (its `object_pairs_hook`)."""

    def __init__(self) -> None:
        self.duplicates: list[str] = []
        self.json = json.JSONDecoder(object_pairs_hook=self._object)

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                self.duplicates.append(key)
            result[key] = value
        return result

    def decode(self, text: str, position: int = 0) -> tuple[Any, int]:
        """The value starting at `position` and where it ends; raises `JSONDecodeError`, also for
        nesting too deep for Python's parser and for a duplicate key (`DuplicateKeyError`)."""
        self.duplicates.clear()
        try:
            value, end = self.json.raw_decode(text, position)
        except RecursionError:
            raise json.JSONDecodeError("arrays or objects nested too deeply", text, position) from None
        if self.duplicates:
            raise DuplicateKeyError(self.duplicates[0], text, position)
        return value, end


def loads(text: str) -> Any:
    """`json.loads` that refuses duplicate keys (`DuplicateKeyError`) and reports nesting too
    deep for Python's parser as invalid JSON (both are `JSONDecodeError`s)."""
    if text.startswith("\ufeff"):  # as json.loads does
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    value, end = _Decoder().decode(text, _WHITESPACE.match(text).end())
    end = _WHITESPACE.match(text, end).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _json_error(error: json.JSONDecodeError, line: int) -> FormatError:
    if isinstance(error, DuplicateKeyError):
        return FormatError("", error.msg, line)
    return FormatError("", f"invalid JSON: {error.msg} (column {error.colno})", line)


# A record as read: (line, decoded JSON value), or (line, FormatError) when it could not be decoded.
Entry = tuple[int, Any]


def _lines(data: bytes) -> list[Entry]:
    entries = []
    # Split on \n only: \r\n leaves a \r that json ignores as whitespace, and a U+2028 inside a
    # string must not cut a record in two (str.splitlines would).
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            # Windows PowerShell's `>` writes UTF-16 with a byte order mark.
            hint = "; the file is UTF-16, save it as UTF-8" if number == 1 and raw.startswith(_UTF16_BOMS) else ""
            problem = f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at byte {error.start + 1}){hint}"
            entries.append((number, FormatError("", problem, number)))
            continue
        try:
            entries.append((number, loads(text)))
        except json.JSONDecodeError as error:
            entries.append((number, _json_error(error, number)))
    return entries


def _layout(data: bytes) -> str:
    first = next((line.strip() for line in data.split(b"\n") if line.strip()), b"")
    if first.startswith(b"["):
        return JSON_ARRAY
    return PRETTY_JSON if first == b"{" else JSON_LINES


class _Document:
    """The records of one JSON document: top-level values, and the items of top-level arrays."""

    def __init__(self, text: str):
        self.text, self.position, self.line, self._counted = text, 0, 1, 0
        self.decoder = _Decoder()

    def _skip_space(self) -> str:
        self.position = _WHITESPACE.match(self.text, self.position).end()
        return self.text[self.position : self.position + 1]

    def _line_here(self) -> int:
        self.line += self.text.count("\n", self._counted, self.position)
        self._counted = self.position
        return self.line

    def _value(self) -> Entry:
        line = self._line_here()
        value, self.position = self.decoder.decode(self.text, self.position)
        return line, value

    def entries(self) -> list[Entry]:
        found: list[Entry] = []
        try:
            while self._skip_space():
                if self.text[self.position] != "[":
                    found.append(self._value())
                    continue
                self.position += 1
                if self._skip_space() == "]":
                    self.position += 1
                    continue
                while True:
                    self._skip_space()
                    found.append(self._value())
                    after = self._skip_space()
                    self.position += 1
                    if after == "]":
                        break
                    if after != ",":
                        raise json.JSONDecodeError("Expecting ',' delimiter", self.text, self.position - 1)
        except json.JSONDecodeError as error:
            line = self._line_here() if isinstance(error, DuplicateKeyError) else error.lineno
            problem = _json_error(error, line)
            stop = "; reading stopped here (the file is read as one JSON document, not line by line)"
            found.append((line, FormatError("", problem.message + stop, line)))
        return found


def _document(data: bytes) -> list[Entry]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [(line, FormatError("", f"not valid UTF-8 (byte 0x{data[error.start]:02x}); nothing was read", line))]
    return _Document(text).entries()


def _unzipped(data: bytes) -> bytes:
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        unzipped = stream.read(MAX_UNZIPPED + 1)
    if len(unzipped) > MAX_UNZIPPED:
        raise ValueError(f"it decompresses to more than {MAX_UNZIPPED:,} bytes")
    return unzipped


def parse_jsonl(source: str | bytes | Path) -> LoadResult:
    """Read examples from a path, bytes or text (see the module doc for the layouts read);
    keep every good record, report every bad one."""
    data = read_regular(source, MAX_INPUT_BYTES) if isinstance(source, Path) else source
    if isinstance(data, str):
        data = data.encode("utf-8")
    gzipped = data.startswith(GZIP_SIGNATURE)
    if gzipped:
        try:
            data = _unzipped(data)
        except (OSError, EOFError, zlib.error, ValueError) as error:
            return LoadResult(examples=[], errors=[FormatError("", f"not a readable gzip file: {error}")])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    result = _read(data, _layout(data))
    if result.layout != JSON_LINES and result.errors:
        # A broken document may be JSON Lines after all (a first line that only looks like an
        # array): keep whichever reading keeps more examples.
        as_lines = _read(data, JSON_LINES)
        if len(as_lines.examples) > len(result.examples):
            result = as_lines
    if gzipped:
        result.layout += ", gzipped"
    return result


def pasted_id(record: Any) -> str:
    """The id of a pasted record that has none, from its content: an id only names the example
    (in links and reports), so one derived from the text will do."""
    encoded = json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return f"pasted-{hashlib.sha1(encoded).hexdigest()[:8]}"


def parse_text(text: str) -> LoadResult:
    """Records pasted as text: JSON Lines, a JSON array, or JSON values one after another (also
    several on one line, as a paste of two records may put them); of the two readings, the one
    that keeps more examples. Every bad record is reported, as `parse_jsonl` does; a record
    without an id is named by `pasted_id`."""
    data = text.encode("utf-8")
    readings = []
    for layout, entries in ((JSON_LINES, _lines(data)), (PRETTY_JSON, _document(data))):
        named = [
            (line, {"id": pasted_id(record), **record} if isinstance(record, dict) and "id" not in record else record)
            for line, record in entries
        ]
        reading = LoadResult(examples=[], errors=[], layout=layout)
        _add_examples(named, reading)
        readings.append(reading)
    # Ties: the reading that could decode more of the text (two records on one line are records,
    # not "extra data"), then the one with fewer problems.
    return max(
        readings,
        key=lambda reading: (
            len(reading.examples),
            -sum(e.message.startswith("invalid JSON") for e in reading.errors),
            -len(reading.errors),
        ),
    )


def _read(data: bytes, layout: str) -> LoadResult:
    result = LoadResult(examples=[], errors=[], layout=layout)
    _add_examples(_lines(data) if layout == JSON_LINES else _document(data), result)
    return result


def _add_examples(entries: list[Entry], result: LoadResult) -> None:
    # Explicit ids first, so that a name made up for a record without one takes none of them.
    taken = {record["id"] for _, record in entries if isinstance(record, dict) and isinstance(record.get("id"), str)}
    first_line_of: dict[str, int] = {}
    for line, record in entries:
        result.lines_read += 1
        if isinstance(record, FormatError):
            result.errors.append(record)
            continue
        default_id = None
        if isinstance(record, dict) and "id" not in record:
            default_id = unused_name(f"line-{line}", taken)
            taken.add(default_id)
        try:
            example = parse_example(record, line=line, default_id=default_id)
        except InvalidExample as invalid:
            result.errors.extend(invalid.errors)
            continue
        if example.id in first_line_of:
            result.errors.append(
                FormatError("id", f"{example.id!r} was already used on line {first_line_of[example.id]}", line)
            )
            continue
        first_line_of[example.id] = line
        result.examples.append(example)
        result.warnings.extend(misplaced_labels(record, line))
        result.warnings.extend(FormatError("labels", message, line) for message in contradictions(example.labels))


def dumps(example: Example) -> str:
    return json.dumps(example.to_dict(), ensure_ascii=False)


def write_jsonl(examples: Iterable[Example], path: Path) -> None:
    """Write `examples` as JSON Lines, whole or not at all (`explorer.files.atomic_writer`)."""
    with atomic_writer(path) as out:
        for example in examples:
            out.write(dumps(example) + "\n")
