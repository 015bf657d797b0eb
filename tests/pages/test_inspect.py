"""The Inspect page, driven through Streamlit's AppTest (no browser)."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer import detectors
from explorer.data import share_links
from explorer.data.jsonl import parse_example
from explorer.data.samples import load_samples
from explorer.detectors import stacked
from explorer.ui import links
from explorer.ui.editor import first_sample
from explorer.ui.text import literal
from tests.helpers import ROOT

APP = str(ROOT / "app.py")
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture
def app():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    return at


def html_bodies(at) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def paste(at, record) -> None:
    at.text_area(key="inspect.paste").set_value(json.dumps(record)).run()
    at.button(key="inspect.paste_load").click().run()


def test_opens_on_a_sample_with_a_verdict_scores_and_highlights(app):
    first = first_sample(load_samples())
    assert app.subheader[0].value == first.query
    body = html_bodies(app)
    assert "data-score=" in body
    # One verdict per error type, from the verdict detector's calibrated score: the first sample
    # shows what the tool finds (a gold hallucination judged likely, nothing dropped), and each
    # chosen detector's scores come with their verdicts.
    assert first.labels.hallucination and not first.labels.coverage_error
    hallucination = body[body.index('data-error-type="hallucination"') : body.index('data-error-type="coverage"')]
    assert 'data-verdict="likely"' in hallucination
    assert 'data-verdict="unlikely"' in body[body.index('data-error-type="coverage"') :]
    assert (
        'data-score-of="rouge.hallucination"' in body
        and f'data-score-of="{detectors.VERDICT_DETECTOR}.coverage"' in body
    )
    assert app.selectbox(key="inspect.sample").value == first.id  # the picker names the sample shown
    # Under the verdict: what each of the verdict detector's components added, per error type.
    why = next(e for e in app.expander if e.label == "What the verdict rests on")
    evidence = "\n".join(element.proto.body for element in why.get("html"))
    read = {feature.split()[0] for head in stacked.StackedDetector().models.values() for feature in head.features}
    for component in read:  # each component whose scores a head reads
        assert f'data-feature="{component} ' in evidence
        assert detectors.spec(component).title in evidence


def test_a_link_holding_an_example_restores_it(record):
    shown = parse_example(record).replace(response="Taxes reduce sugar consumption. Nothing else is said here.")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[links.SHARED_PARAM] = share_links.encode(shown)
    at.run()
    assert not at.exception
    assert at.subheader[0].value == shown.query
    assert at.text_area(key="inspect.response").value == shown.response
    assert at.selectbox(key="inspect.sample").value is None  # not a sample


def test_a_broken_link_says_why_and_shows_the_sample():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[links.SHARED_PARAM] = share_links.encode(load_samples()[1])[:-40]
    at.run()
    assert any("The link's example cannot be read: the compressed example is cut short" in w.value for w in at.warning)
    assert at.subheader[0].value == first_sample(load_samples()).query


def test_a_pasted_example_goes_into_the_url(app, record):
    paste(app, record)
    assert share_links.decode(app.query_params[links.SHARED_PARAM]) == parse_example(record)
    assert links.EXAMPLE_PARAM not in app.query_params


def test_picking_a_sample_shows_it(app):
    last = load_samples()[-1]
    app.selectbox(key="inspect.sample").select(last.id).run()
    assert not app.exception
    assert app.subheader[0].value == last.query
    assert app.text_area(key="inspect.response").value == last.response


def test_pasted_html_and_script_show_as_text(app):
    paste(
        app,
        {
            "id": HOSTILE,
            "topic": HOSTILE,
            "query": HOSTILE,
            "perspectives": [{"name": HOSTILE, "arguments": [HOSTILE]}],
            "response": HOSTILE + " extra words",
        },
    )
    assert not app.exception
    body = html_bodies(app)
    assert "<script" not in body and "<img" not in body
    assert "&lt;script&gt;" in body
    assert app.subheader[0].value == literal(HOSTILE)  # escaped: st.subheader renders markdown


def test_refchecker_record_can_be_pasted(app):
    paste(
        app,
        {
            "question": "Is tea healthy?",
            "response": "Tea has antioxidants.",
            "reference": ["Tea contains antioxidants."],
        },
    )
    assert not app.exception
    assert app.subheader[0].value == "Is tea healthy?"
    assert app.text_input(key="inspect.p0.name").value == "reference"


def test_invalid_paste_names_the_problem_and_keeps_the_current_example(app):
    before = app.subheader[0].value
    paste(app, {"id": "x", "query": "Q?", "perspectives": [], "response": "R"})
    assert any("perspectives: needs at least one perspective" in e.value for e in app.error)
    assert app.subheader[0].value == before


def test_editing_perspectives_rescored_and_validated(app):
    app.button(key="inspect.add").click().run()
    assert not app.exception
    assert any("a perspective needs at least one argument" in e.value for e in app.error)
    new_id = app.session_state["inspect.perspective_ids"][-1]
    app.text_area(key=f"inspect.p{new_id}.arguments").set_value("Bananas are yellow.").run()
    assert not app.error
    assert "Bananas" in html_bodies(app)
    app.button(key=f"inspect.p{new_id}.remove").click().run()
    assert "Bananas" not in html_bodies(app)


def test_shows_the_linguistic_phenomena_of_the_response(app):
    labels = {metric.label: metric.value for metric in app.metric}
    assert labels["Form"] == "long"
    assert int(labels["Words"]) > 50
    assert "/" in labels["Pronouns (subject / object)"]


def test_a_turned_argument_gets_its_misstatement_card_under_the_default_verdict(app, record):
    """Issue 47: with the sidebar as it opens (ROUGE-1 and the verdict's detector), a misstated
    argument is named under the verdict, beside the argument as given."""
    turned = {
        **record,
        "perspectives": [
            {"name": "pro", "arguments": ["Open primaries increase voter engagement."]},
            {"name": "con", "arguments": ["Open primaries weaken party loyalty."]},
        ],
        "response": "Supporters say open primaries decrease voter engagement. Critics warn that open primaries "
        "weaken party loyalty.",
    }
    paste(app, turned)
    assert not app.exception
    body = html_bodies(app)
    assert "Misstates pro argument 1" in body and "Misstates con argument" not in body
    assert "Open primaries increase voter engagement." in body
    # Both verdict lines name the misstatement beside the claim view's "supported" (the account's
    # agreement rules: tests/evaluation/test_accounts.py).
    lines = re.findall(r"<span data-account=.*?</span>", body, re.S)
    assert len(lines) == 2 and all("pro 1</b> misstated" in line for line in lines)
