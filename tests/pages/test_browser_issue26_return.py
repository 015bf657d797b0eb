"""Issue 26's last two items at 1280 x 800 in headless Chromium (the others: `test_browser_issue26.py`).

3. Browser Back from a failure opened in Inspect scrolls the list back to the row that was opened.
6. The bundled sample's dataset page is complete on a first visit: its default detectors' scores
   ship. Its screenshots, and Inspect's first screen, at 1280 x 800 and 1600 x 1000 go to
   `test-artifacts/` (`docs/screenshots/` is written by `bench/screenshots.py`).
"""

from __future__ import annotations

import pytest

from explorer import detectors
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import VIEWPORT, open_dataset_page, remove_detector, screenshot, settle

pytestmark = [pytest.mark.browser, BROWSER_GROUP]

VERDICT_TITLE = detectors.spec(detectors.VERDICT_DETECTOR).title


def test_3_back_from_a_failure_opened_in_inspect_returns_to_its_place_in_the_list(page):
    remove_detector(page, VERDICT_TITLE)  # ROUGE-1 alone: the list is drawn at once
    open_dataset_page(page)
    page.locator(".st-key-error").get_by_text("Coverage error").click()
    page.get_by_text("Missed: gold coverage error").wait_for()
    settle(page)
    rows = page.locator("[class*=st-key-dataset-open-]")
    row = rows.nth(min(4, rows.count() - 1))
    row.evaluate("e => e.scrollIntoView({block: 'center'})")  # the user scrolled down to it
    key = next(name for name in row.get_attribute("class").split() if name.startswith("st-key-dataset-open-"))
    top = row.bounding_box()["y"]
    row.get_by_role("button", name="Inspect").click()
    page.wait_for_function("() => location.search.includes('example=')")
    page.wait_for_selector("[data-score]")
    settle(page)
    page.go_back()
    page.get_by_text("Missed: gold coverage error").wait_for()
    settle(page)
    # The row that was opened is back where it was on screen, not at the top of a page scrolled to 0.
    page.wait_for_function(
        "([key, top]) => { const e = document.querySelector('.' + key);"
        " return e && Math.abs(e.getBoundingClientRect().top - top) <= 2; }",
        arg=[key, top],
        timeout=10_000,
    )
    screenshot(page, "issue26-3-back-scroll")
    # Opened again from down there, Inspect starts at its top, "Back to the failures" in view.
    page.locator("." + key).get_by_role("button", name="Inspect").click()
    page.wait_for_selector("[data-score]")
    settle(page)
    page.wait_for_function(
        "() => { const link = [...document.querySelectorAll('a')]"
        ".find(a => a.innerText.includes('Back to the failures'));"
        " if (!link) return false; const box = link.getBoundingClientRect();"
        " return box.top >= 0 && box.bottom <= window.innerHeight; }",
        timeout=10_000,
    )


def test_6_the_bundled_samples_page_is_complete_on_a_first_visit_at_both_sizes(page):
    open_dataset_page(page)
    table = page.locator("[data-testid=stTable]").first
    # The default detectors' scores ship with the sample: no background job, no "scoring, n of N".
    assert page.locator("[data-testid=stProgress]").count() == 0
    assert "scoring," not in table.inner_text() and "★" in table.inner_text()
    screenshot(page, "dataset-1280x800")
    page.set_viewport_size({"width": 1600, "height": 1000})
    settle(page)
    screenshot(page, "dataset-1600x1000")
    page.locator("[data-testid=stSidebarNav]").get_by_text("Inspect", exact=True).click()
    page.locator("[data-error-type]:not([data-pending]) [data-verdict]").first.wait_for()
    settle(page)
    screenshot(page, "inspect-1600x1000")
    page.set_viewport_size(VIEWPORT)
    settle(page)
    screenshot(page, "inspect-1280x800")
