"""Inspect's Generate button, driven through Streamlit's AppTest (no browser): disabled while it
runs, Cancel, and a server that cannot be reached (a second click that reaches the callback
before the page is redrawn: `tests/generation/test_background.py`). The browser test
(`test_browser_generate.py`) watches an answer stream in and get scored."""

from __future__ import annotations

import socket
import time

import pytest
from streamlit.testing.v1 import AppTest

from explorer.data.samples import load_samples
from explorer.ui import state
from explorer.ui.editor import first_sample
from explorer.ui.generate import SERVER
from tests.generation.canned import NEVER, canned_server
from tests.helpers import ROOT

APP = str(ROOT / "app.py")


@pytest.fixture
def app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def sidebar_widget(at, widget: str, key: str):
    return getattr(at.sidebar, widget)(key=state.SIDEBAR_WIDGET + key)


def wait_until_taken(at, seconds: float = 120) -> None:
    """Rerun (as the page's fragment does) until the generation's outcome is taken."""
    deadline = time.monotonic() + seconds
    while state.GENERATION in at.session_state:
        assert time.monotonic() < deadline, "the generation did not end"
        time.sleep(0.2)
        at.run()


def use_server(at, url: str) -> None:
    sidebar_widget(at, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
    sidebar_widget(at, "text_input", state.GENERATOR_URL).set_value(url).run()
    sidebar_widget(at, "text_input", state.GENERATOR_SERVER_MODEL).set_value("m").run()


def test_generate_is_disabled_while_it_runs_and_cancel_keeps_the_response(app):
    before = app.text_area(key="inspect.response").value
    with canned_server(NEVER) as (url, requests):
        use_server(app, url)
        app.button(key=state.INSPECT_GENERATE).click().run()
        assert state.GENERATION in app.session_state
        assert app.button(key=state.INSPECT_GENERATE).disabled and not app.button(key=state.INSPECT_CANCEL).disabled
        app.button(key=state.INSPECT_CANCEL).click().run()  # the server has not answered: not waited for
        assert [m.value for m in app.info] == ["Cancelled: the response is as it was."]
    assert len(requests) <= 1
    assert app.text_area(key="inspect.response").value == before
    assert not app.button(key=state.INSPECT_GENERATE).disabled and app.button(key=state.INSPECT_CANCEL).disabled


def test_a_server_that_cannot_be_reached_is_one_line_and_the_response_stays(app):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"  # nothing listens there once closed
    use_server(app, url)
    before = app.text_area(key="inspect.response").value
    app.button(key=state.INSPECT_GENERATE).click().run()
    wait_until_taken(app)
    [error] = [e.value for e in app.error]
    assert error.startswith(f"{first_sample(load_samples()).id}: cannot reach ") and "\n" not in error
    assert app.text_area(key="inspect.response").value == before


def test_the_coverage_guard_is_a_choice_for_a_model_run_here(app):
    guard = sidebar_widget(app, "checkbox", state.GENERATOR_GUARD)
    assert guard.value  # on by default, as `explorer generate`
    guard.uncheck().run()
    assert app.session_state[state.GENERATOR_GUARD] is False
    sidebar_widget(app, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
    # A server decodes on its own: nothing to guard there.
    assert state.SIDEBAR_WIDGET + state.GENERATOR_GUARD not in [c.key for c in app.sidebar.checkbox]
