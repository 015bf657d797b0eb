"""The claim view and trust metrics on the Inspect page, driven through Streamlit's AppTest."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from explorer.ui import state
from tests.helpers import ROOT

APP = str(ROOT / "app.py")
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def html_bodies(at) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def figures(at) -> list[str]:
    return [element.proto.spec for element in at.get("plotly_chart")]


def test_claim_view_and_trust_metrics_show_for_the_opening_sample(app):
    assert [s.value for s in app.subheader][-2:] == ["Claims", "Faithfulness and trust"]
    body = html_bodies(app)
    # One claim verdict, RefChecker's three rules as its details.
    # The opening sample invents one claim (issue 26: Inspect opens on an error).
    assert 'data-claim-verdict="unsupported"' in body and "1 of 8 claims unsupported" in body
    assert "strict unsupported" in body and "soft 88% supported" in body and "major supported" in body
    assert 'data-claim="0"' in body and "data-claim-card=" not in body  # the cards are built when opened
    app.session_state[state.CLAIMS_CARDS] = True
    app.run()
    assert "data-claim-card=" in html_bodies(app)
    assert "K-F1++" in body and "trust trap" in body
    # The matrix (plotly, a 4.7 MB script for the browser) is built when its expander opens, so
    # that a new session's verdict is not held back by it.
    assert figures(app) == []
    app.session_state[state.CLAIMS_MATRIX_OPEN] = True
    app.run()
    (spec,) = figures(app)
    heatmap = json.loads(spec)["data"][0]
    assert heatmap["type"] == "heatmap" and "similarity" in heatmap["customdata"][0][0]


def test_a_perspective_confusion_sample_is_flagged_with_its_evidence(app):
    app.selectbox(key="inspect.sample").select("sugar-tax-perspective-confusion").run()
    assert not app.exception
    body = html_bodies(app)
    assert "perspective confusion</span>: <b>C6</b> voices the pro argument <b>pro 2</b>" in body
    assert "inside the con part" in body
    # The caption names the encoder and threshold the claim view reads with, and where they were chosen.
    captions = " ".join(c.value for c in app.caption)
    assert "Semantic alignment (tuned matcher)" in captions and "\u2265 0.63" in captions
    assert "perspectrum.jsonl, dev split" in captions


def test_pasted_html_is_escaped_in_claims_matrix_and_trust(app):
    record = {
        "id": "hostile",
        "query": HOSTILE,
        "perspectives": [{"name": HOSTILE, "arguments": [HOSTILE + " Taxes cut sugar intake."]}],
        "response": HOSTILE + " Taxes cut sugar intake. Something else entirely.",
    }
    app.session_state[state.CLAIMS_MATRIX_OPEN] = True
    app.text_area(key="inspect.paste").set_value(json.dumps(record)).run()
    app.button(key="inspect.paste_load").click().run()
    assert not app.exception
    body = html_bodies(app)
    assert "<script" not in body and "<img" not in body and "&lt;script&gt;" in body
    (spec,) = figures(app)
    assert "<script" not in spec and "<img" not in spec and "&lt;script&gt;" in spec
