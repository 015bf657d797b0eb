"""The error-injection lab page, driven through Streamlit's AppTest (ROUGE only: it is instant)."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from explorer.data.samples import load_samples
from explorer.ui import lab, state
from tests.helpers import ROOT

APP = str(ROOT / "app.py")
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture
def app():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge"]
    at.switch_page("app_pages/lab.py").run()
    assert not at.exception
    return at


def changes(at) -> dict[tuple[str, str], tuple[float, float, float]]:
    frame = at.dataframe[0].value
    return {(r.detector, r.score): (r.before, r.after, r.change) for r in frame.itertuples()}


def html_bodies(at) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def test_opens_on_the_first_sample_with_scores_before_and_after(app):
    first = load_samples()[0]
    assert app.title[0].value == "Error-injection lab"
    assert app.session_state[state.LAB_BEFORE].id == first.id
    assert app.selectbox(key=state.LAB_SAMPLE).value == first.id  # the picker names the sample shown
    rouge = changes(app)[("ROUGE-1", "hallucination")]
    assert rouge[0] == rouge[1] and rouge[2] == 0
    assert "data-score=" in html_bodies(app)


def test_dropping_an_argument_the_response_states_raises_rouge_hallucination(app):
    app.selectbox(key=state.LAB_DROP_CHOICE).select_index(0).run()
    app.button(key=state.LAB_DROP).click().run()
    assert not app.exception and not app.error
    before, after, change = changes(app)[("ROUGE-1", "hallucination")]
    assert after > before and change == pytest.approx(after - before)
    first = load_samples()[0]
    assert len(app.session_state[state.LAB_AFTER].perspectives[0].arguments) == len(first.perspectives[0].arguments) - 1
    assert app.session_state[state.LAB_EDITS] == [f"dropped pro 1: {first.perspectives[0].arguments[0][:90]}…"]
    # The dropped argument is framed as removed on the before side, beside the after side.
    assert html_bodies(app).count('data-tag="removed"') == 1


def test_adding_an_argument_the_response_misses_raises_rouge_coverage(app):
    app.text_area(key=state.LAB_ADD_TEXT).set_value("Zebras migrate across the Serengeti every winter season.").run()
    app.button(key=state.LAB_ADD).click().run()
    before, after, _ = changes(app)[("ROUGE-1", "coverage")]
    assert after > before


def test_the_synthetic_buttons_apply_the_papers_procedure(app):
    app.button(key=state.LAB_SYNTHETIC_HALLUCINATION).click().run()
    made = app.session_state[state.LAB_AFTER]
    assert made.id.endswith("-synthetic-hallucination") and made.labels.kind == "synthetic"
    assert made.labels.hallucination and made.labels.hallucinated_spans
    assert changes(app)[("ROUGE-1", "hallucination")][2] > 0
    app.button(key=state.LAB_SYNTHETIC_COVERAGE).click().run()
    made = app.session_state[state.LAB_AFTER]
    assert made.labels.coverage_error and len(made.labels.uncovered) == 1
    assert changes(app)[("ROUGE-1", "coverage")][2] > 0
    app.button(key=state.LAB_RESET).click().run()
    assert app.session_state[state.LAB_AFTER] == app.session_state[state.LAB_BEFORE]


def test_the_inspect_pages_example_can_be_taken_over(app):
    last = load_samples()[-1]
    app.session_state[state.CURRENT_EXAMPLE] = last
    app.radio(key=state.LAB_SOURCE).set_value(lab.SOURCES[1]).run()
    app.button(key=state.LAB_USE_CURRENT).click().run()
    assert app.session_state[state.LAB_BEFORE].id == last.id
    assert app.subheader[0].value == last.query


def test_pasted_html_shows_as_text(app):
    record = {
        "id": "x",
        "query": HOSTILE,
        "perspectives": [{"name": HOSTILE, "arguments": [HOSTILE, "Taxes reduce sugar consumption."]}],
        "response": HOSTILE + " taxes reduce sugar consumption",
    }
    app.radio(key=state.LAB_SOURCE).set_value(lab.SOURCES[2]).run()
    app.text_area(key=state.LAB_PASTE).set_value(json.dumps(record)).run()
    app.button(key=state.LAB_PASTE_LOAD).click().run()
    app.button(key=state.LAB_DROP).click().run()
    assert not app.exception
    body = html_bodies(app)
    assert "<script" not in body and "<img" not in body and "&lt;script&gt;" in body


@pytest.mark.parametrize(("button", "score"), [("hallucination", "hallucination"), ("coverage", "coverage")])
def test_the_alignment_classifier_sees_each_synthetic_error_the_lab_injects(button, score):
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[state.DETECTORS] = ["alignment_classifier"]
    at.switch_page("app_pages/lab.py").run()
    at.button(key=f"lab.synthetic_{button}").click().run()
    assert not at.exception and not at.error
    before, after, _ = changes(at)[("Alignment classifier", score)]
    assert after > before + 0.2
