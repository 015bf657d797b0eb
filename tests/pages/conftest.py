"""Fixtures of the browser tests (`test_browser*.py`): one app server and one browser context
per test session, a fresh tab (a new Streamlit session) per test."""

from __future__ import annotations

import pytest

from tests.pages.browser import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, VIEWPORT, serve, settle


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    with serve(tmp_path_factory.mktemp("browser-app")) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(
            f"no chromium at {CHROMIUM}: `make test` installs Debian's chromium when run as root or with "
            "password-less sudo (apt-get install chromium); set CHROMIUM to use another build"
        )
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the `test` extra")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Dialogs(list):
    """Every JavaScript dialog (alert, confirm, prompt) a page opened, dismissed at once."""

    def __call__(self, dialog) -> None:
        self.append(dialog.message)
        dialog.dismiss()


@pytest.fixture
def dialogs() -> Dialogs:
    return Dialogs()


@pytest.fixture(scope="session")
def context(browser):
    """One context for every test's tab. A context per test started with an empty HTTP cache, so
    each test fetched and parsed Streamlit's scripts again (Inspect to its verdict: 2 s, against
    1.1 s in a new tab). A new tab is a new Streamlit session all the same: the app keeps a
    session's state on the server and in the tab's `sessionStorage`."""
    shared = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    shared.set_default_timeout(TIMEOUT_MS)
    yield shared
    shared.close()


@pytest.fixture
def page(context, app_url, dialogs):
    """A fresh Streamlit session in its own tab, opened on the Inspect page."""
    tab = context.new_page()
    tab.on("dialog", dialogs)
    tab.goto(app_url)
    tab.wait_for_selector("[data-score]")
    settle(tab)
    yield tab
    # Streamlit's cookie (XSRF) and its localStorage (theme, sidebar width) would otherwise reach
    # the next test's tab, as a context of its own never let them.
    if tab.url.startswith(app_url):
        tab.evaluate("localStorage.clear()")
    tab.close()
    context.clear_cookies()
