"""Reading files that are not plain JSON Lines, and names the reader makes up (issue 14,
problem 10); the corpus cases in `tests/bad_inputs/files_and_limits.py` cover the rest."""

import gzip
import json

import pytest

from explorer.cli import main
from explorer.data import jsonl
from explorer.data.jsonl import DuplicateKeyError, loads, parse_jsonl
from tests.bad_inputs.builders import FIRST, FOLDER, LAST, good, lines


def test_an_unnamed_perspective_never_takes_a_name_the_record_gives():
    record = good(
        "x",
        perspectives=[
            {"arguments": ["A."]},
            {"name": "perspective 1", "arguments": ["B."]},
            {"name": "perspective 1 (2)", "arguments": ["C."]},
            {"arguments": ["D."]},
        ],
    )
    (example,) = parse_jsonl(json.dumps(record)).examples
    assert [p.name for p in example.perspectives] == [
        "perspective 1 (3)",
        "perspective 1",
        "perspective 1 (2)",
        "perspective 4",
    ]


def test_a_gzip_file_that_would_unpack_past_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(jsonl, "MAX_UNZIPPED", 1_000)
    loaded = parse_jsonl(gzip.compress(lines(*(good(f"e{i}") for i in range(20)))))
    assert loaded.examples == []
    assert [str(e) for e in loaded.errors] == ["not a readable gzip file: it decompresses to more than 1,000 bytes"]


def test_a_cut_gzip_file_is_one_clear_error():
    data = gzip.compress(lines(good(FIRST), good(LAST)))
    loaded = parse_jsonl(data[: len(data) // 2])
    assert loaded.examples == [] and str(loaded.errors[0]).startswith("not a readable gzip file: ")


@pytest.mark.parametrize(
    "case, layout",
    [("json-array", "a JSON array"), ("pretty-printed", "pretty-printed JSON"), ("gzip", "JSON Lines, gzipped")],
)
def test_validate_says_how_it_read_the_file(case, layout, capsys):
    main(["validate", str(FOLDER / f"{case}.jsonl")])
    assert f"record(s), read as {layout}" in capsys.readouterr().out


def test_loads_refuses_a_key_given_twice_at_any_depth():
    with pytest.raises(DuplicateKeyError, match="duplicate key 'b'"):
        loads('{"a": [{"b": 1, "b": 2}]}')
    assert loads('{"a": {"b": 1}, "c": {"b": 2}}') == {"a": {"b": 1}, "c": {"b": 2}}


@pytest.mark.parametrize(
    "layout",
    ["lines", "one line", "array", "pretty", "bad middle"],
)
def test_pasted_text_holds_several_records_in_any_layout(layout):
    """Issue 48: two records pasted at once were "invalid JSON: Extra data (line 2, column 1)"."""
    first, second = good("a"), {key: value for key, value in good("b").items() if key != "id"}
    text = {
        "lines": f"{json.dumps(first)}\n{json.dumps(second)}",
        "one line": f"{json.dumps(first)} {json.dumps(second)}",
        "array": json.dumps([first, second]),
        "pretty": f"{json.dumps(first, indent=2)}\n{json.dumps(second, indent=2)}",
        "bad middle": f"{json.dumps(first)}\n{{bad\n{json.dumps(second)}",
    }[layout]
    read = jsonl.parse_text(text)
    assert [e.id for e in read.examples] == ["a", jsonl.pasted_id(second)]
    assert [str(e) for e in read.errors] == (
        ["line 2: invalid JSON: Expecting property name enclosed in double quotes (column 2)"]
        if layout == "bad middle"
        else []
    )
