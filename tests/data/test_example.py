import json

import pytest

from explorer.data.example import Labels
from explorer.data.jsonl import InvalidExample, parse_example, parse_jsonl, validate, write_jsonl
from tests.helpers import jsonl


def messages(loaded):
    return [str(error) for error in loaded.errors]


def test_reads_every_field(record):
    record["labels"].update(
        {
            "ambiguous": True,
            "ambiguous_type": "partial_coverage",
            "hallucinated_spans": [[0, 5]],
            "uncovered": [{"perspective": 1, "argument": 0, "spans": [[6, 10]]}, {"perspective": 0, "argument": 0}],
        }
    )
    example = parse_example(record)
    assert example.id == "r1" and example.topic == "sugar tax" and example.split == "test"
    assert [p.name for p in example.perspectives] == ["pro", "con"]
    assert example.labels.hallucinated_spans == ((0, 5),)
    assert example.labels.uncovered[0].spans == ((6, 10),)
    assert example.labels.uncovered[1].spans is None
    assert example.labels.ambiguous_type == "partial_coverage"


def test_round_trip_keeps_unknown_fields(record, tmp_path):
    record["model"] = "gpt-x"
    record["labels"]["annotator"] = 7
    example = parse_example(record)
    path = tmp_path / "out.jsonl"
    write_jsonl([example], path)
    assert json.loads(path.read_text(encoding="utf-8")) == record


def test_labels_and_optional_fields_may_be_absent(record):
    for key in ("labels", "topic", "split"):
        del record[key]
    example = parse_example(record)
    assert example.labels == Labels() and example.topic is None and example.split is None


def test_refchecker_records_become_one_reference_perspective():
    loaded = parse_jsonl(
        jsonl(
            {
                "question": "Is coffee healthy?",
                "response": "It has antioxidants.",
                "reference": "Coffee has antioxidants.",
            },
            {"id": "q2", "question": "Q?", "response": "A.", "reference": ["One.", "Two."], "source": "web"},
        )
    )
    assert loaded.ok
    first, second = loaded.examples
    assert first.id == "line-1" and first.query == "Is coffee healthy?"
    assert [(p.name, p.arguments) for p in first.perspectives] == [("reference", ("Coffee has antioxidants.",))]
    assert (
        second.id == "q2" and second.perspectives[0].arguments == ("One.", "Two.") and second.extra == {"source": "web"}
    )


def test_bad_lines_are_reported_with_line_and_field_and_good_lines_kept(record):
    bad_type = dict(record, id="bad-type", response=42)
    no_args = dict(record, id="no-args", perspectives=[{"name": "pro", "arguments": []}])
    bad_span = dict(record, id="bad-span", labels={"hallucinated_spans": [[5, 500]]})
    good2 = dict(record, id="r2")
    loaded = parse_jsonl(jsonl(record, "{not json", bad_type, "[1, 2]", no_args, bad_span, good2))
    assert [e.id for e in loaded.examples] == ["r1", "r2"]
    assert messages(loaded) == [
        "line 2: invalid JSON: Expecting property name enclosed in double quotes (column 2)",
        "line 3: response: must be a string, got number",
        "line 4: expected a JSON object, got list",
        "line 5: perspectives[0].arguments: a perspective needs at least one argument",
        "line 6: labels.hallucinated_spans[0]: [5, 500] is not a non-empty span inside a text of 60 characters",
    ]


def test_every_problem_of_a_line_is_reported(record):
    record.update(query="", perspectives=[{"name": "pro", "arguments": ["ok", 3, "  "]}], split="val")
    with pytest.raises(InvalidExample) as raised:
        parse_example(record)
    assert [str(e) for e in raised.value.errors] == [
        "query: must not be empty",
        "perspectives[0].arguments[1]: must be a string, got number",
        "perspectives[0].arguments[2]: must not be empty",
        'split: must be one of train, dev, test, got "val"',
    ]


def test_required_fields_and_label_types(record):
    del record["id"]
    record["labels"] = {"hallucination": "yes", "kind": "made-up", "uncovered": [{"perspective": 5, "argument": 0}]}
    with pytest.raises(InvalidExample) as raised:
        parse_example(record)
    assert [str(e) for e in raised.value.errors] == [
        "id: is required",
        "labels.hallucination: must be true or false, got string",
        'labels.kind: must be one of organic, paraphrased, synthetic, synthetic_paraphrased, got "made-up"',
        "labels.uncovered[0]: there is no argument 0 in perspective 5",
    ]


def test_duplicate_ids_keep_the_first_and_name_its_line(record):
    loaded = parse_jsonl(jsonl(record, dict(record, response="Other.")))
    assert len(loaded.examples) == 1 and loaded.examples[0].response == record["response"]
    assert messages(loaded) == ["line 2: id: 'r1' was already used on line 1"]


def test_duplicate_perspective_names_are_an_error(record):
    record["perspectives"][1]["name"] = "pro"
    with pytest.raises(
        InvalidExample, match=r"perspectives\[1\]\.name: 'pro' is already the name of perspectives\[0\]"
    ):
        parse_example(record)


def test_unnamed_perspectives_get_numbered_names(record):
    record["perspectives"] = [{"arguments": ["a"]}, {"name": " ", "arguments": ["b"]}]
    assert [p.name for p in parse_example(record).perspectives] == ["perspective 1", "perspective 2"]


def test_invalid_utf8_line_is_reported_and_the_rest_kept(record):
    data = jsonl(record).encode() + b'{"id": "\xff"}\n' + jsonl(dict(record, id="r3")).encode()
    loaded = parse_jsonl(data)
    assert [e.id for e in loaded.examples] == ["r1", "r3"]
    assert messages(loaded) == ["line 2: not valid UTF-8 (byte 0xff at byte 9)"]


def test_unicode_html_bom_crlf_and_blank_lines_are_kept_literally(record):
    record["response"] = "<script>alert('x')</script> 税金 🙂 مرحبا\u200b"
    record["labels"] = {}
    data = "\ufeff".encode() + jsonl(record).replace("\n", "\r\n").encode() + b"\r\n\r\n"
    loaded = parse_jsonl(data)
    assert loaded.ok and loaded.examples[0].response == record["response"]


def test_line_separator_inside_a_string_does_not_split_the_record(record):
    record["response"] = "first\u2028second"
    loaded = parse_jsonl(jsonl(record))
    assert loaded.ok and loaded.examples[0].response == "first\u2028second"


def test_long_inputs_are_not_truncated(record):
    record["response"] = "word " * 5000
    assert parse_example(record).response == record["response"]


def test_validate_checks_examples_built_in_code(record):
    example = parse_example(record)
    assert validate(example) == []
    broken = example.replace(response="  ")
    assert [str(e) for e in validate(broken)] == ["response: must not be empty"]


def test_content_hash_covers_what_detectors_read(record):
    example = parse_example(record)
    assert example.content_hash() == example.replace(topic="other", labels=Labels()).content_hash()
    assert example.content_hash() != example.replace(response="Different.").content_hash()


def test_reads_from_a_path(record, tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(jsonl(record), encoding="utf-8")
    assert parse_jsonl(path).examples[0].id == "r1"


def test_json_nested_too_deeply_is_a_bad_line_not_a_crash(record):
    loaded = parse_jsonl(jsonl("[" * 100_000, record))
    assert [e.id for e in loaded.examples] == ["r1"]
    assert messages(loaded) == ["line 1: invalid JSON: arrays or objects nested too deeply (column 1)"]


def test_lone_surrogates_are_rejected_where_they_are(record):
    # Written with JSON escapes, as other tools emit them; a valid pair stays one character.
    record["perspectives"][0]["arguments"].append("a \ud83d\ude00 pair")
    line = json.dumps(record).replace("poor families", "poor \\udc00families").replace("Should", "\\ud800Should")
    loaded = parse_jsonl(line)
    assert messages(loaded) == [
        "line 1: query: holds a lone surrogate \\ud800 at character 0, which is not Unicode text",
        "line 1: response: holds a lone surrogate \\udc00 at character 51, which is not Unicode text",
        "line 1: perspectives[1].arguments[0]: holds a lone surrogate \\udc00 at character 16, "
        "which is not Unicode text",
    ]
    assert parse_jsonl(json.dumps(dict(record, query="Fine?", response="Fine."))).ok


def test_lone_surrogates_in_fields_kept_as_they_are_are_rejected_with_their_place(record, tmp_path, capsys):
    """Issue 52: they passed validate, and synth and generate ended in a UnicodeEncodeError
    traceback after doing all the work."""
    from explorer.cli import main

    labels = {"hallucination": False, "coverage_error": False}
    lines = [  # json.dumps writes a lone surrogate as a JSON escape, as other tools do
        json.dumps({**record, "id": "bad", "note": {"source": ["fine", "bad \ud800 text"]}}),
        json.dumps({**record, "id": "good", "note": "ok", "labels": labels}),
        json.dumps({**record, "id": "label", "labels": {**labels, "annotator": "\udc00"}}),
        json.dumps({**record, "id": "key", "\udfffx": 1}),
    ]
    assert "\\ud800" in lines[0]
    loaded = parse_jsonl("\n".join(lines))
    assert [e.id for e in loaded.examples] == ["good"]
    assert messages(loaded) == [
        "line 1: note.source[1]: holds a lone surrogate \\ud800 at character 4, which is not Unicode text",
        "line 3: labels.annotator: holds a lone surrogate \\udc00 at character 0, which is not Unicode text",
        "line 4: \\udfffx (the key): holds a lone surrogate \\udfff at character 0, which is not Unicode text",
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = tmp_path / "synth.jsonl"
    assert main(["synth", str(path), "--out", str(out)]) == 1
    assert [e.id for e in parse_jsonl(out).examples][:1] == ["good"]
    assert "line 1: note.source[1]: holds a lone surrogate" in capsys.readouterr().err


def test_refchecker_problems_name_the_refchecker_fields():
    loaded = parse_jsonl(
        jsonl(
            {"question": " ", "response": "A.", "reference": "Ref."},
            {"question": "Q?", "response": "A.", "reference": ["ok", 3, ""]},
            {"question": "Q?", "response": "A.", "reference": ""},
            {"question": "Q?", "response": "A.", "reference": 5},
        )
    )
    assert messages(loaded) == [
        "line 1: question: must not be empty",
        "line 2: reference[1]: must be a string, got number",
        "line 2: reference[2]: must not be empty",
        "line 3: reference: must not be empty",
        "line 4: reference: must be a list of strings, got number",
    ]


def test_a_utf16_file_is_named_as_such(record):
    loaded = parse_jsonl(jsonl(record).encode("utf-16"))
    assert messages(loaded)[0] == "line 1: not valid UTF-8 (byte 0xff at byte 1); the file is UTF-16, save it as UTF-8"
