"""Issue 51 in the real app (headless Chromium): a visitor of a shared app cannot send the app's
secrets anywhere, and a key a visitor pastes goes to their server and nowhere else.

Two apps of their own, each with local fake chat-completions servers (`tests.generation.hostile`):
a shared one (listening on every interface, as `streamlit run app.py` does, with one server its
operator lists in a secrets file) and one on this machine alone (where visitors may type an
address). Each wait is for something on the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.data import share_links
from explorer.ui.generate import NO_OWN_SERVER
from tests.generation.hostile import hostile_server, stream
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import TIMEOUT_MS, VIEWPORT, screenshot, serve, settle
from tests.pages.test_browser import download_report

pytestmark = [pytest.mark.browser, pytest.mark.slow, BROWSER_GROUP]

HOST_SECRET = "topsecret-value-42"  # a variable of the app's environment: a cloud credential, say
OPERATOR_KEY = "sk-operator-0f1e2d3c4b5a69788796a5b4"
VISITOR_KEY = "sk-visitor-8e7d6c5b4a39281706f5e4d3"


@pytest.fixture(scope="module")
def visitors_server():
    """A server of the visitor's own (or an attacker's): records what reaches it."""
    with hostile_server(stream("An answer from the visitor's own server.")) as found:
        yield found


@pytest.fixture(scope="module")
def team_server():
    with hostile_server(stream("An answer from the team's server.")) as found:
        yield found


@pytest.fixture(scope="module")
def shared_app(tmp_path_factory, team_server):
    folder = tmp_path_factory.mktemp("shared-app")
    secrets = folder / "secrets.toml"
    entry = {"base_url": team_server[0], "model": "team-model", "api_key_env": "TEAM_KEY"}
    secrets.write_text("[generation.servers.team]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in entry.items()))
    options = ["--server.address", "0.0.0.0", "--secrets.files", str(secrets)]
    with serve(folder, options=options, env={"HOST_SECRET_CHECK": HOST_SECRET, "TEAM_KEY": OPERATOR_KEY}) as url:
        yield url.replace("0.0.0.0", "127.0.0.1"), folder


@pytest.fixture(scope="module")
def own_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("own-app")
    with serve(folder, env={"HOST_SECRET_CHECK": HOST_SECRET}) as url:
        yield url, folder


def opened(context, url: str):
    tab = context.new_page()
    tab.goto(url)
    tab.wait_for_selector("[data-score]")
    settle(tab)
    sidebar = tab.locator("[data-testid=stSidebar]")
    sidebar.locator("[data-testid=stExpander]", has_text="Generator").locator("summary").click()
    sidebar.get_by_text("Server", exact=True).click()
    # The server choice is on the page only once the click's run is done: a Generate before it
    # wrote with the packaged model (seen on a loaded machine).
    sidebar.get_by_text(re.compile(f"{re.escape(NO_OWN_SERVER)}|^Generate sends to ")).wait_for()
    settle(tab)
    return tab, sidebar


def box(sidebar, label: str):
    """The text box labelled `label` (its help button has the label too)."""
    return sidebar.locator(f"input[aria-label={json.dumps(label)}]")


def type_into(tab, field, value: str) -> None:
    field.fill(value)
    field.press("Enter")
    settle(tab)


def generate(tab) -> None:
    tab.get_by_role("button", name="Generate").click()
    outcome = tab.get_by_text(re.compile("Written by |cannot reach|refused"))
    outcome.wait_for(timeout=120_000)
    assert "Written by server" in outcome.inner_text(), outcome.inner_text()
    settle(tab)


def written(folder: Path) -> str:
    """Everything the app wrote: its log, its result cache."""
    return "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_a_visitor_of_a_shared_app_cannot_send_its_secrets_to_their_own_server(
    browser, shared_app, visitors_server, team_server
):
    url, folder = shared_app
    # A context of its own, not the other tests' tab. (Generate once waited for ever here: the page's
    # race with a fast server, `tests/ui/test_generate.py`.)
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    tab, sidebar = opened(context, url)
    # The steps of issue 51: the visitor's own address and a model, and as "API key variable" the
    # name of a variable of the app's environment; then Generate. Its fields are no longer there.
    steps = {"Server URL": visitors_server[0], "Model name": "m", "API key variable": "HOST_SECRET_CHECK"}
    for label, value in steps.items():
        if box(sidebar, label).count():
            type_into(tab, box(sidebar, label), value)
    generate(tab)  # today: with the one server the operator lists
    assert [r["headers"].get("authorization") for r in visitors_server[1]] == []
    assert sidebar.get_by_text(NO_OWN_SERVER).is_visible()  # the app says why
    screenshot(tab, "generate-shared-app")
    assert [r["headers"].get("authorization") for r in team_server[1]] == [f"Bearer {OPERATOR_KEY}"]
    assert tab.get_by_label("Response").input_value() == "An answer from the team's server."
    assert HOST_SECRET not in json.dumps(team_server[1]) + written(folder)
    tab.close()


def test_a_pasted_key_goes_to_the_visitors_server_only_and_leaves_no_trace(context, own_app, visitors_server):
    url, folder = own_app
    tab, sidebar = opened(context, url)
    assert box(sidebar, "API key variable").count() == 0
    type_into(tab, box(sidebar, "Server URL"), visitors_server[0])
    type_into(tab, box(sidebar, "Model name"), "m")
    type_into(tab, box(sidebar, "Your API key"), VISITOR_KEY)
    # Applied, and said so without a character of it: a Generate before this sent no key (seen in CI).
    sidebar.get_by_text(re.compile(r"^Generate sends to .* as model m, with the key you pasted\.$")).wait_for()
    assert VISITOR_KEY[-6:] not in tab.inner_text("body")
    before = len(visitors_server[1])
    generate(tab)
    assert [r["headers"].get("authorization") for r in visitors_server[1][before:]] == [f"Bearer {VISITOR_KEY}"]
    assert tab.get_by_label("Response").input_value() == "An answer from the visitor's own server."
    # The page's link is the share link of the generated example: who wrote it, never the key.
    [token] = parse_qs(urlsplit(tab.url).query)["shared"]
    shared = share_links.decode(token)
    assert shared.response == "An answer from the visitor's own server."
    assert shared.extra["generated_by"] == {"server": visitors_server[0], "model": "m"}
    assert VISITOR_KEY not in tab.url + json.dumps(shared.to_dict())
    report = download_report(tab, tab.get_by_role("button", name="Download HTML report"), "report-generated")
    assert "An answer from the visitor" in report and VISITOR_KEY not in report
    assert VISITOR_KEY not in written(folder)
    tab.close()
