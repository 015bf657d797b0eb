"""Fixtures of the browser tests (`test_browser*.py`): one app server per test session, a
fresh browser context (a new Streamlit session) per test."""

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


@pytest.fixture
def page(browser, app_url, dialogs):
    """A fresh Streamlit session in its own browser context, opened on the Inspect page."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    tab.on("dialog", dialogs)
    tab.goto(app_url)
    tab.wait_for_selector("[data-score]")
    settle(tab)
    yield tab
    context.close()
