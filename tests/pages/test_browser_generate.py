"""Inspect's Generate button in the real app (headless Chromium): the packaged model writes the
answer to the sample's query, the page shows it as it comes (drawn as markdown: issue 48, item 5),
then scores it.

Uses the session's app server and browser (`conftest.py`); each wait is for something on the
page, never a fixed time.
"""

from __future__ import annotations

import re

import pytest

from tests.helpers import BROWSER_GROUP
from tests.pages.browser import screenshot, settle, word_scores

pytestmark = [pytest.mark.browser, pytest.mark.slow, BROWSER_GROUP]

TOKENS = 24  # seconds of writing on one CPU thread: long enough to be seen streaming


def words(text: str) -> list[str]:
    """The words of a text as typed or as drawn from its markdown (list numbers left out: a list draws them itself)."""
    return [word for word in re.findall(r"\w+", text) if not word.isdigit()]


def test_generate_streams_the_answer_then_scores_it(page):
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.locator("[data-testid=stExpander]", has_text="Generator").locator("summary").click()
    tokens = sidebar.get_by_label("Most tokens to write")
    tokens.fill(str(TOKENS))
    tokens.press("Enter")
    settle(page)
    # The packaged adapter's answers run to the token limit: the default 400 would take minutes.
    assert tokens.input_value() == str(TOKENS)
    before = page.get_by_label("Response").input_value()

    page.get_by_role("button", name="Generate").click()
    streamed = page.locator(".st-key-inspect-stream [data-stream]")
    page.wait_for_function(
        "() => (document.querySelector('.st-key-inspect-stream [data-stream]')?.innerText || '')"
        ".replace('…', '').trim()"
    )
    partial = streamed.inner_text().strip()
    # The packaged model answers in markdown ("**Short version:** ..."): drawn, not shown as typed.
    assert "**" not in partial
    assert page.get_by_role("button", name="Generate").is_disabled()  # no second job while one runs
    screenshot(page, "inspect-generating")

    page.get_by_text("Written by model").wait_for()
    settle(page)
    answer = page.get_by_label("Response").input_value()
    assert answer and answer != before and words(answer)[: len(words(partial))] == words(partial)
    # Scored: the response view shows the new answer (drawn as markdown where it is) with its words shaded.
    response_view = page.locator("[data-testid=stHtml]", has=page.locator("[data-score]")).first
    assert words(response_view.inner_text()) == words(answer)
    if "**" in answer:
        assert "**" not in response_view.inner_text() and response_view.locator("b").count() >= 1
    assert word_scores(page) and all(0.0 <= s <= 1.0 for s in word_scores(page))
    assert not page.get_by_role("button", name="Generate").is_disabled()
    screenshot(page, "inspect-generated")
