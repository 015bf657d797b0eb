"""Bad and odd inputs from the corpus (`tests/bad_inputs/`) driven through the app with AppTest:
never a traceback, always a message that names the problem."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer import detectors
from explorer.data.jsonl import parse_jsonl
from explorer.evaluation.claim_level import claim_view_choice
from explorer.ui import state
from explorer.ui.text import literal
from tests.bad_inputs.corpus import CASES
from tests.helpers import ROOT

APP = str(ROOT / "app.py")
BY_NAME = {case.name: case for case in CASES}


def line_of(case_name: str, number: int) -> str:
    return BY_NAME[case_name].path.read_text(encoding="utf-8").split("\n")[number - 1]


@pytest.fixture
def inspect_page():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


@pytest.fixture
def dataset_page():
    """The dataset page with ROUGE alone, which scores an upload at once (no background job)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[state.DETECTORS] = ["rouge"]
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    assert not at.exception
    return at


def scored_detectors(at) -> list[str]:
    """The detectors in the Inspect page's scores table, in order."""
    bodies = "\n".join(element.proto.body for element in at.get("html"))
    return re.findall(r'data-score-of="([^"]+)\.hallucination"', bodies)


def paste(at: AppTest, text: str) -> None:
    at.text_area(key="inspect.paste").set_value(text).run()
    at.button(key="inspect.paste_load").click().run()


def upload(at: AppTest, case_name: str) -> None:
    data = BY_NAME[case_name].path.read_bytes()
    at.file_uploader(key=state.DATASET_UPLOADER).set_value((f"{case_name}.jsonl", data, "application/jsonl")).run()


@pytest.mark.parametrize("case_name", ["malformed-json", "non-utf8", "wrong-types", "deep-nesting", "nan-infinity"])
def test_an_uploaded_file_lists_its_problems_and_browses_its_good_examples(dataset_page, case_name):
    case = BY_NAME[case_name]
    upload(dataset_page, case_name)
    assert not dataset_page.exception
    assert any(
        e.label.endswith(f"{len(case.errors)} problem(s) in the file; the other lines were loaded")
        for e in dataset_page.expander
    )
    assert dataset_page.code[0].value == "\n".join(case.errors)
    assert any(
        c.value == f"{len(case.kept)} of {len(case.kept)} examples match the filters." for c in dataset_page.caption
    )


def test_an_uploaded_file_without_a_good_line_says_so(dataset_page):
    upload(dataset_page, "utf16-file")
    assert not dataset_page.exception
    assert dataset_page.code[0].value.startswith("line 1: not valid UTF-8 (byte 0xff at byte 1); the file is UTF-16")
    assert [e.value for e in dataset_page.error] == ["The file holds no valid example."]


def test_precomputed_scores_that_are_not_numbers_are_refused_with_the_line(dataset_page):
    upload(dataset_page, "malformed-json")
    scores = '{"id": "good-first", "scores": {"ext": {"hallucination": NaN, "coverage": 0.1, "per_perspective": {}}}}'
    expander = next(e for e in dataset_page.expander if e.label.startswith("Precomputed scores"))
    expander.file_uploader[0].set_value(("scores.jsonl", scores.encode(), "application/jsonl")).run()
    assert not dataset_page.exception
    assert [e.value for e in dataset_page.error] == [
        literal("scores.jsonl: line 1: scores.ext.hallucination: must be a number in [0, 1], got NaN")
    ]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[" * 100_000, "invalid JSON: arrays or objects nested too deeply (line 1, column 1)"),
        (line_of("lone-surrogate", 2), BY_NAME["lone-surrogate"].errors[0].removeprefix("line 2: ")),
        (line_of("refchecker-bad", 2), "reference: must be a list of strings, got number"),
        (line_of("wrong-types", 3), "perspectives: must be a list, got string"),
        (line_of("not-objects", 2), "expected a JSON object, got list"),
        (
            line_of("duplicate-keys", 2),
            "invalid JSON: duplicate key 'query': an object gives it twice, and JSON would keep only the last value "
            "(line 1, column 1)",
        ),
    ],
    ids=[
        "deep-nesting",
        "lone-surrogate",
        "refchecker-bad",
        "wrong-types",
        "not-an-object",
        "key-twice",
    ],
)
def test_a_pasted_bad_record_names_its_problem_and_keeps_the_example(inspect_page, text, problem):
    before = inspect_page.subheader[0].value
    paste(inspect_page, text)
    assert not inspect_page.exception
    assert [e.value for e in inspect_page.error] == [literal(problem)]
    assert inspect_page.subheader[0].value == before


def test_a_paste_of_two_records_on_one_line_reads_both_and_names_each_ones_problems(inspect_page):
    """Two records pasted at once are records, not "Extra data" after the first (issue 48)."""
    before = inspect_page.subheader[0].value
    paste(inspect_page, line_of("malformed-json", 5))  # {"id": "a"} {"id": "b"}
    assert not inspect_page.exception
    assert [e.value for e in inspect_page.error] == [
        literal(f"{field}: is required") for _ in "ab" for field in ("query", "response", "perspectives")
    ]
    assert inspect_page.subheader[0].value == before


@pytest.mark.parametrize(
    "case_name",
    [
        "html-script",
        "markdown",
        "emoji",
        "right-to-left",
        "cjk",
        "zero-width",
        "control-characters",
        "ten-perspectives",
    ],
)
def test_a_pasted_odd_example_is_scored_and_shown_as_typed(inspect_page, case_name):
    example = parse_jsonl(BY_NAME[case_name].path).examples[0]
    paste(inspect_page, json.dumps(example.to_dict(), ensure_ascii=False))
    assert not inspect_page.exception
    assert not inspect_page.error
    assert inspect_page.subheader[0].value == literal(example.query)
    assert inspect_page.text_area(key="inspect.response").value == example.response
    assert scored_detectors(inspect_page) == ["rouge", detectors.VERDICT_DETECTOR]


def test_an_example_a_detector_refuses_shows_its_reason_beside_the_others(inspect_page):
    paste(inspect_page, line_of("punctuation-run", 1))
    assert not inspect_page.exception
    refusal = BY_NAME["punctuation-run"].refused_by[detectors.VERDICT_DETECTOR]
    title = detectors.spec(detectors.VERDICT_DETECTOR).title
    assert any(w.value.startswith(f"{title}: {refusal}") for w in inspect_page.warning)
    claim_view = detectors.spec(claim_view_choice().detector).title
    assert any(w.value.startswith(f"The claim view needs the {claim_view}, which failed") for w in inspect_page.warning)
    assert scored_detectors(inspect_page) == ["rouge"]


def test_an_example_too_long_for_the_tagger_keeps_its_verdict_and_says_what_was_left_out(inspect_page):
    paste(inspect_page, line_of("many-arguments", 1))
    assert not inspect_page.exception
    assert detectors.VERDICT_DETECTOR in scored_detectors(inspect_page)
    captions = " ".join(c.value for c in inspect_page.caption)
    assert "Token tagger (MiniLM) could not read this example" in captions and "512" in captions
