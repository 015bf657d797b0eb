"""Issue 48 at 1280 x 800 in headless Chromium: one story on the screen. Each test takes the steps
that met a problem and checks it stays fixed (the number is the issue's item).

1. The lab's synthetic-error buttons say what they will change and why, and after the edit
   whether the verdict caught its own error (and the facts when it did not).
2. A second synthetic error keeps the first one's gold label.
3. The verdict and the claim view give one account: each verdict line says what the claim view
   reads in the same text, and where they differ the claim view says why.
4. One P(error) per verdict, never "≥ threshold" beside "unclear"; what the verdict rests on names
   the same P(error).
5. Generate shows its words as they come, as markdown: `test_browser_generate.py`.
6. The bundled sample says it is templated text the detectors were not chosen on, and each dev
   figure says it was measured where its threshold was chosen (a partial result's ★:
   `tests/ui/test_dataset_cells.py`).
7. Paste takes several records (the first loaded, the rest offered); a markdown response is drawn
   as markdown with its highlights, user text escaped, and its headers are no claims.
8. A fresh server's first page never lists the page files in the sidebar, and draws its title
   before the verdict.
"""

from __future__ import annotations

import json
import re

import pytest

from explorer import detectors
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import (
    TIMEOUT_MS,
    VIEWPORT,
    heading,
    open_dataset_page,
    paste_record,
    paste_text,
    screenshot,
    serve,
    settle,
)

pytestmark = [pytest.mark.browser, BROWSER_GROUP]

VERDICT_TITLE = detectors.spec(detectors.VERDICT_DETECTOR).title
DONE = "[data-error-type]:not([data-pending])"
# The answer: a sentence that restates a given argument and adds a statistic no argument gives.
PRIMARIES = {
    "id": "open-primaries",
    "query": "Should states hold open primaries?",
    "perspectives": [
        {
            "name": "pro",
            "arguments": [
                "Open primaries increase voter engagement.",
                "Independent voters make up a large share of the electorate and deserve a say in choosing candidates.",
            ],
        },
        {
            "name": "con",
            "arguments": [
                "Party members should choose their own nominees.",
                "Open primaries invite crossover voting meant to pick a weak opponent.",
            ],
        },
    ],
    "response": "Supporters say open primaries increase voter engagement, with turnout rising by 23 percent in "
    "states that adopted it in 2016. They add that independent voters, a large share of the electorate, deserve "
    "a say in choosing candidates. Critics answer that party members should choose their own nominees. They also "
    "warn that open primaries invite crossover voting meant to pick a weak opponent.",
}
HOSTILE = '<img src=x onerror="window.__pwned=1">'
# A chat model's markdown answer, with hostile HTML inside a bullet.
MARKDOWN = {
    "query": "Should cities ban cars from their centres?",
    "perspectives": [
        {"name": "pro", "arguments": ["Car-free centres have cleaner air.", "Streets without cars are safer."]},
        {"name": "con", "arguments": ["Shops lose customers who drive."]},
    ],
    "response": "**Should cities ban cars?**\n\n### Arguments for\nSupporters say car-free centres have cleaner "
    "air.\n\n- Streets without cars are **safer** for children.\n- " + HOSTILE + " is not an argument.\n\n"
    "### Arguments against\n| side | point |\n|---|---|\n| con | Shops lose customers who drive. |\n",
}
ONE_PERSPECTIVE = {
    "query": "Is tea healthy?",
    "perspectives": [{"name": "reference", "arguments": ["Tea contains antioxidants."]}],
    "response": "Tea contains antioxidants.",
}


def in_viewport(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]


def open_lab(page) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_text("Error-injection lab").click()
    page.get_by_role("button", name="Make a synthetic hallucination").wait_for()
    settle(page)


def make(page, error_type: str) -> str:
    """Press a synthetic-error button; the text of the line under it that said what it would change."""
    said = page.locator(f"[data-choice={error_type}]").inner_text()
    label = "Make a synthetic hallucination" if error_type == "hallucination" else "Make a synthetic coverage error"
    page.get_by_role("button", name=label).click()
    page.locator(f"[data-catch={error_type}]").wait_for()
    settle(page)
    return said


def test_1_the_labs_buttons_say_what_they_change_and_whether_the_verdict_caught_it(page):
    open_lab(page)
    said = page.locator("[data-choice=hallucination]")
    assert in_viewport(page.get_by_role("button", name="Make a synthetic hallucination"))
    named = re.match(r"Removes (\w+ \d+): “(.{20})", said.inner_text())
    assert named and "stated most distinctly" in said.inner_text()
    make(page, "hallucination")
    # The edit removed what the line under the button named.
    assert page.get_by_text(re.compile(rf"^Edits: synthetic hallucination: removed {named.group(1)}: ")).count() == 1
    assert named.group(2) in page.locator("[data-tag=removed]").first.inner_text()
    catch = page.locator("[data-catch=hallucination]")
    outcome, text = catch.get_attribute("data-outcome"), catch.inner_text()
    assert outcome in ("caught", "elsewhere", "unclear", "missed") and "P(error)" in text
    if outcome == "missed":  # said plainly, with the facts behind it
        assert f"{VERDICT_TITLE} missed its own synthetic hallucination" in text and "word scores" in text
    screenshot(page, "issue48-1-lab")


def test_2_a_second_synthetic_error_keeps_the_first_ones_label(page):
    open_lab(page)
    make(page, "hallucination")
    make(page, "coverage")
    assert page.get_by_text(re.compile(r"gold now: hallucination \+ coverage error")).count() == 1
    assert page.locator("[data-tag=removed]").count() >= 1 and page.locator("[data-tag=added]").count() >= 1
    assert page.locator("[data-catch]").count() == 2  # the verdict is read against both errors
    screenshot(page, "issue48-2-two-errors")


def test_3_the_verdict_and_the_claim_view_give_one_account(page):
    paste_record(page, PRIMARIES)
    heading(page, PRIMARIES["query"]).wait_for()
    page.locator(f"{DONE}[data-error-type=hallucination] [data-verdict]").wait_for()
    page.locator("[data-claim]").first.wait_for()
    settle(page)
    for error_type in ("hallucination", "coverage"):
        line = page.locator(f"{DONE}[data-error-type={error_type}] [data-account={error_type}]")
        assert line.count() == 1 and line.inner_text().startswith("claim view: ")
    line = page.locator("[data-account=hallucination]")
    verdict = page.locator(f"{DONE}[data-error-type=hallucination] [data-verdict]").get_attribute("data-verdict")
    # What the issue met: the verdict calls the sentence with the statistic a hallucination while
    # every claim is supported. Whatever the detectors say, a disagreement is never silent.
    all_supported = page.locator("[data-claim-verdict=supported]").count() == 1
    if verdict == "likely" and all_supported:
        assert line.get_attribute("data-agrees") == "false"
    if line.get_attribute("data-agrees") == "false":
        line.get_by_role("link", name="differs: why").click()
        why = page.locator("[data-accounts] [data-differs=hallucination]")
        page.wait_for_function(
            "() => { const e = document.querySelector('[data-accounts]');"
            " const r = e && e.getBoundingClientRect(); return r && r.top >= 0 && r.top < 800; }"
        )
        assert "claim view" in why.inner_text()
        if verdict == "likely":
            assert "No argument contains" in why.inner_text() and "23" in why.inner_text()
    screenshot(page, "issue48-3-one-account")


def test_4_one_p_error_per_verdict(page):
    page.locator(DONE).first.wait_for()
    rows = {row.get_attribute("data-error-type"): row.inner_text() for row in page.locator(DONE).all()}
    shown = {}
    for error_type, text in rows.items():
        assert "threshold" not in text  # "≥ threshold" beside "unclear" read as a contradiction
        figures = re.findall(r"P\(error\) ([\d.]+)", text)
        assert len(figures) == 1, text
        shown[error_type] = figures[0]
    page.locator("[data-testid=stExpander]", has_text="What the verdict rests on").locator("summary").click()
    for error_type, figure in shown.items():
        block = page.locator(f"[data-evidence-for={error_type}]")
        block.wait_for()
        assert re.findall(r"P\(error\) ([\d.]+)", block.inner_text()) == [figure]
    screenshot(page, "issue48-4-one-p-error")


def test_6_the_sample_says_what_it_is_and_dev_figures_say_where_thresholds_were_chosen(page):
    open_dataset_page(page)
    note = page.get_by_text(re.compile(r"^The bundled sample is templated text"))
    assert note.count() == 1 and "every threshold were chosen on" in note.inner_text()
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.locator("[data-testid=stExpander]", has_text="About the detectors").locator("summary").click()
    about = sidebar.locator("[data-testid=stExpander]", has_text="About the detectors").inner_text()
    assert about.count("Dev ROC AUC") == about.count("not a held-out figure") > 0
    note.scroll_into_view_if_needed()
    screenshot(page, "issue48-6-sample-note")


def test_7_paste_takes_several_records_and_draws_markdown_with_its_highlights(page, dialogs):
    paste_text(page, json.dumps(ONE_PERSPECTIVE) + "\n" + json.dumps(MARKDOWN))
    heading(page, ONE_PERSPECTIVE["query"]).wait_for()
    settle(page)
    assert page.get_by_text(re.compile(r"1 perspective, 1 argument")).count() == 1
    assert page.get_by_text("1 more record from the paste (the first is loaded)").count() == 1
    # Typed and chosen by key: a click may not open the box, and one CI run spent its five minutes
    # clicking an option that each rerun of the page detached again.
    picker = page.locator(".st-key-inspect-paste_more input")
    picker.press_sequentially("pasted")
    page.get_by_role("option", name=re.compile(re.escape(MARKDOWN["query"][:30]))).wait_for()
    picker.press("Enter")
    heading(page, MARKDOWN["query"]).wait_for()
    page.locator("[data-markdown] [data-score]").first.wait_for()
    page.locator("[data-claim]").first.wait_for()
    settle(page)
    view = page.locator("[data-testid=stHtml] [data-markdown]", has=page.locator("[data-score]")).first
    text = view.inner_text()
    assert "###" not in text and "**" not in text and "|---|" not in text
    assert view.locator("[data-md=heading]").first.inner_text() == "Arguments for"
    assert view.locator("table td").count() == 2 and view.locator("b", has_text="safer").count() == 1
    assert HOSTILE in text and page.locator("img[src=x]").count() == 0 and dialogs == []
    assert page.evaluate("window.__pwned") is None
    claims = page.locator("[data-claim]").all_inner_texts()
    assert claims and not any("Arguments for" in claim or "Arguments against" in claim for claim in claims)
    view.scroll_into_view_if_needed()
    screenshot(page, "issue48-7-markdown")


NAV_WATCH = """
window.__navs = []; window.__heading = null; window.__verdict = null;
new MutationObserver(() => {
  const nav = document.querySelector('[data-testid=stSidebarNav]');
  if (nav && !window.__navs.includes(nav.innerText)) window.__navs.push(nav.innerText);
  const now = performance.now();
  const title = [...document.querySelectorAll('[data-testid=stHeading]')]
    .some(e => e.innerText.includes('Inspect an example'));
  if (title && window.__heading === null) window.__heading = now;
  if (document.querySelector('[data-error-type]:not([data-pending]) [data-verdict]') && window.__verdict === null)
    window.__verdict = now;
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


def test_8_a_fresh_server_lists_its_pages_by_name_and_draws_the_title_first(browser, tmp_path):
    with serve(tmp_path) as url:
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(NAV_WATCH)
        tab = context.new_page()
        tab.goto(url)
        tab.locator(DONE).first.wait_for()
        settle(tab)
        navs = tab.evaluate("window.__navs")
        # Streamlit lists a folder named pages/ by file name until a session runs the router.
        assert navs and not any(re.search(r"^(app|inspect|dataset|lab)$", nav, re.MULTILINE) for nav in navs)
        assert "Browse a test set" in navs[-1]
        assert tab.evaluate("window.__heading") < tab.evaluate("window.__verdict")
        screenshot(tab, "issue48-8-first-load")
        context.close()
