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
from explorer.ui.generate import ANOTHER_SERVER, NO_SERVER, SERVER
from tests.generation.canned import NEVER, canned_server
from tests.generation.hostile import hostile_server, stream
from tests.helpers import ROOT

APP = str(ROOT / "app.py")


# The operator's settings (`explorer.generation.servers`): AppTest's app listens nowhere, so by
# default it is taken for an app served beyond this machine, where visitors type no address.
FREE_FORM = {"generation": {"free_form": True}}
OPERATOR_KEY = "sk-operator-0f1e2d3c4b5a69788796a5b4"
HOST_SECRET = "topsecret-value-42"


def started(secrets: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.secrets.update(secrets or {})
    at.run()
    assert not at.exception
    return at


@pytest.fixture
def app():
    """The app as on one's own machine: a server is any address typed in."""
    return started(FREE_FORM)


def sidebar_widget(at, widget: str, key: str):
    return getattr(at.sidebar, widget)(key=state.SIDEBAR_WIDGET + key)


def wait_until_taken(at, seconds: float = 120) -> None:
    """Rerun (as the page's fragment does) until the generation's outcome is taken."""
    deadline = time.monotonic() + seconds
    while state.GENERATION in at.session_state:
        assert time.monotonic() < deadline, "the generation did not end"
        time.sleep(0.2)
        at.run()


def use_server(at, url: str, key: str = "") -> None:
    sidebar_widget(at, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
    sidebar_widget(at, "selectbox", state.GENERATOR_SERVER_NAME).set_value(ANOTHER_SERVER).run()
    sidebar_widget(at, "text_input", state.GENERATOR_URL).set_value(url).run()
    sidebar_widget(at, "text_input", state.GENERATOR_SERVER_MODEL).set_value("m").run()
    if key:
        sidebar_widget(at, "text_input", state.GENERATOR_KEY).set_value(key).run()


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


def sidebar_texts(at) -> list[str]:
    return [widget.key for widget in at.sidebar.text_input]


def test_on_a_shared_app_a_visitor_names_no_address_and_no_variable(monkeypatch):
    """Issue 51: a visitor typed an address of their own and the name of any variable of the
    app's environment, and the app sent that variable's value to them as the key."""
    monkeypatch.setenv("HOST_SECRET_CHECK", HOST_SECRET)
    at = started()
    sidebar_widget(at, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
    assert not [key for key in sidebar_texts(at) if key.startswith(state.SIDEBAR_WIDGET + "generator.")]
    assert [m.value for m in at.sidebar.info] == [NO_SERVER]
    assert at.button(key=state.INSPECT_GENERATE).disabled


def test_an_operator_server_is_picked_by_name_and_its_key_goes_to_it_only(monkeypatch):
    monkeypatch.setenv("TEAM_KEY", OPERATOR_KEY)
    with hostile_server(stream("Written by the team's model.")) as (url, requests):
        servers = {"team": {"base_url": url, "model": "team-model", "api_key_env": "TEAM_KEY"}}
        at = started({"generation": {"servers": servers}})
        sidebar_widget(at, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
        assert sidebar_widget(at, "selectbox", state.GENERATOR_SERVER_NAME).options == ["team"]
        assert not [key for key in sidebar_texts(at) if key.startswith(state.SIDEBAR_WIDGET + "generator.")]
        at.button(key=state.INSPECT_GENERATE).click().run()
        wait_until_taken(at)
    assert [r["headers"]["authorization"] for r in requests] == [f"Bearer {OPERATOR_KEY}"]
    assert requests[0]["body"]["model"] == "team-model"
    assert at.text_area(key="inspect.response").value == "Written by the team's model."
    shown = " ".join(str(e.value) for e in [*at.sidebar.caption, *at.success, *at.markdown]).replace("\u2060", "")
    assert f"team: team-model at {url}" in shown and OPERATOR_KEY not in shown


def test_a_visitor_key_is_sent_as_typed_never_as_a_variable_of_the_app(monkeypatch):
    monkeypatch.setenv("HOST_SECRET_CHECK", HOST_SECRET)
    at = started(FREE_FORM)
    with hostile_server(stream("An answer.")) as (url, requests):
        use_server(at, url, key="HOST_SECRET_CHECK")
        at.button(key=state.INSPECT_GENERATE).click().run()
        wait_until_taken(at)
    assert [r["headers"]["authorization"] for r in requests] == ["Bearer HOST_SECRET_CHECK"]


def test_a_broken_server_list_is_named_for_the_operator_without_its_key():
    servers = {"team": {"base_url": "ftp://models.internal/v1", "model": "m", "api_key": OPERATOR_KEY}}
    at = started({"generation": {"servers": servers}})
    sidebar_widget(at, "radio", state.GENERATOR_SOURCE).set_value(SERVER).run()
    [error] = [e.value for e in at.sidebar.error]
    assert error.startswith("The app's list of generation servers cannot be used: generation.servers.team: server URL")
    assert OPERATOR_KEY not in error and at.button(key=state.INSPECT_GENERATE).disabled
