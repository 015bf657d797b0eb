"""Salience on the Inspect page (AppTest): shipped results open at once with every view."""

import time

import pytest
from streamlit.testing.v1 import AppTest

from explorer.data.samples import load_samples
from explorer.ui import state
from tests.helpers import ROOT

APP = str(ROOT / "app.py")


@pytest.fixture
def app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[state.METHODS] = ["rouge", "salience"]
    at.run()
    assert not at.exception
    return at


def html_bodies(at) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def test_a_sample_opens_with_shipped_salience_side_by_side_with_rouge(app):
    assert [tab.label for tab in app.tabs][:3] == ["ROUGE-1", "Salience", "Side by side"]
    assert not app.get("progress")  # shipped results: nothing computing
    assert list(app.dataframe[0].value.index) == ["ROUGE-1", "Salience"]
    assert len(app.get("plotly_chart")) >= 1  # the word-to-word heatmap


def test_following_a_word_both_ways_and_the_prompt_is_shown(app):
    first = load_samples()[0]
    app.selectbox(key="inspect.salience.response_word").set_value(3).run()
    assert not app.exception and 'data-score="1.0000"' in html_bodies(app)
    app.radio(key="inspect.salience.direction").set_value(app.radio[0].options[1]).run()
    app.selectbox(key="inspect.salience.argument_word").set_value(0).run()
    assert not app.exception
    prompt = app.code[0].value
    assert first.query in prompt and first.perspectives[0].arguments[0] in prompt


def test_the_salience_method_picker_shows_only_with_salience_and_defaults_to_the_paper():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not any(box.key == "sidebar.salience_method" for box in at.sidebar.selectbox)
    at.session_state[state.METHODS] = ["salience"]
    at.run()
    assert at.selectbox(key="sidebar.salience_method").value == "grad_x_input"


@pytest.mark.slow
def test_another_salience_method_from_the_sidebar_computes_its_own_result(app):
    app.selectbox(key="sidebar.salience_method").set_value("argument_ablation").run()
    assert app.session_state[state.SALIENCE_METHOD] == "argument_ablation"
    for _ in range(150):  # the shipped results are the paper's method: this one computes in the background
        if not app.get("progress"):
            break
        time.sleep(2)
        app.run()
    assert not app.exception and not app.get("progress")
    titles = [chart.proto.spec for chart in app.get("plotly_chart")]
    assert any("loses when one argument" in spec for spec in titles)  # the argument x sentence matrix
