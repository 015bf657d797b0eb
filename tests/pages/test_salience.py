"""Salience on the Inspect page (AppTest): shipped results open at once, by sentences, with clickable words."""

import json
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from explorer.data import share_links
from explorer.data.samples import load_samples
from explorer.ui import state
from explorer.ui.editor import first_sample
from explorer.ui.links import SHARED_PARAM
from tests.helpers import ROOT, make_example

APP = str(ROOT / "app.py")
KEY = f"{state.WORD_MAP}.{state.INSPECT_PREFIX}.salience"


@pytest.fixture
def app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[state.DETECTORS] = ["rouge", "salience"]
    at.session_state[state.INSPECT_TAB] = "Salience"  # as a click on its tab
    at.run()
    assert not at.exception
    return at


def html_bodies(at) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def test_a_sample_opens_with_shipped_salience_by_sentences(app):
    assert [tab.label for tab in app.tabs][:3] == ["ROUGE-1", "Salience", "Side by side"]
    assert not app.get("progress")  # shipped results: nothing computing
    assert re.findall(r'data-score-of="([^"]+)\.hallucination"', html_bodies(app)) == ["rouge", "salience"]
    overview = json.loads(app.get("plotly_chart")[0].proto.spec)
    heatmap = overview["data"][0]
    first = first_sample(load_samples())
    # Argument sentences x response sentences (9 x 10 on the first sample), not ~120 x ~150 words.
    columns, rows = overview["layout"]["xaxis"]["ticktext"], overview["layout"]["yaxis"]["ticktext"]
    assert heatmap["type"] == "heatmap" and len(columns) <= 12 and len(rows) <= 12
    assert columns[0] == "S1" and rows[0].startswith(f"{first.perspectives[0].name} 1 · ")
    assert overview["data"][1]["type"] == "scatter"  # the clickable layer over the cells


def test_clicking_words_follows_them_both_ways_and_the_prompt_is_shown(app):
    first = first_sample(load_samples())
    assert any(c.value == "Click a word above to follow it." for c in app.caption)
    response_words = app.pills(key=f"{KEY}.response_word")
    response_words.set_value(response_words.options[0]).run()
    assert not app.exception and 'data-score="1.0000"' in html_bodies(app)
    argument_words = app.pills(key=f"{KEY}.argument_word")
    argument_words.set_value(argument_words.options[0]).run()
    assert not app.exception
    assert app.pills(key=f"{KEY}.response_word").value is None  # one word followed at a time
    prompt = app.code[0].value
    assert first.query in prompt and first.perspectives[0].arguments[0] in prompt


def test_the_salience_attribution_picker_shows_only_with_salience_and_defaults_to_the_paper():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not any(box.key == "sidebar.salience_attribution" for box in at.sidebar.selectbox)
    at.session_state[state.DETECTORS] = ["salience"]
    at.run()
    assert at.selectbox(key="sidebar.salience_attribution").value == "grad_x_input"


SHORT = make_example(
    "Taxes cut consumption. Critics say they hurt poor families.",
    ("pro", ["Taxes cut consumption."]),
    ("con", ["Taxes hurt poor families."]),
    query="Tax soda?",
)


@pytest.mark.slow
def test_another_salience_attribution_from_the_sidebar_computes_its_own_result():
    # A short example from a shared link: argument ablation passes the whole text through the
    # model once per argument, 16 s for the first sample on one thread, a second for this one.
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state[state.DETECTORS] = ["rouge", "salience"]
    app.session_state[state.INSPECT_TAB] = "Salience"
    app.query_params[SHARED_PARAM] = share_links.encode(SHORT)
    app.run()
    app.selectbox(key="sidebar.salience_attribution").set_value("argument_ablation").run()
    [attribution] = state.sidebar_options("salience")
    assert app.session_state[state.option_key("salience", attribution)] == "argument_ablation"

    def matrix_shown() -> bool:  # the argument x sentence matrix, which only the perturbation attributions draw
        return any("loses when one argument" in chart.proto.spec for chart in app.get("plotly_chart"))

    # It computes in the background, and its tab stays there and open meanwhile, saying so (no
    # click brings the user back to it).
    assert "Salience" in [tab.label for tab in app.tabs]
    assert any("Salience is computing in the background" in caption.value for caption in app.caption)
    for _ in range(300):
        if matrix_shown():
            break
        time.sleep(0.5)
        app.run()
    assert not app.exception and matrix_shown()
