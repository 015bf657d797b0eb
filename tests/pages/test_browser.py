"""The app as users meet it: the real Streamlit server driven in headless Chromium (Playwright).

The browser is Debian's chromium (`make test` installs it): Playwright's own browser download
needs a CDN these machines may not reach. Each test opens its own tab, i.e. its own Streamlit
session. Streamlit renders asynchronously, so every step waits for something concrete
on the page, then for the run to end (`settle`), never for a fixed time. Screenshots of each
page go to `test-artifacts/`.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from explorer import detectors
from explorer.data.samples import load_samples
from explorer.ui.editor import first_sample
from tests.bad_inputs.corpus import CASES
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import (
    ARTIFACTS,
    TIMEOUT_MS,
    VIEWPORT,
    add_detector,
    choose_sample,
    heading,
    open_dataset_page,
    paste_record,
    remove_detector,
    screenshot,
    serve,
    settle,
    word_scores,
)

pytestmark = [pytest.mark.browser, BROWSER_GROUP]

HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=1;alert('img')\">"
HOSTILE_LINK = "[click me](javascript:window.__pwned=1)"
# Markdown a header would render: math between dollars, emphasis, a link.
MARKDOWN_QUERY = f"{HOSTILE_LINK} Is a $15 *minimum* wage better than $12? {HOSTILE}"

# The second default detector, whose tab opens first: the verdict's.
VERDICT_TITLE = detectors.spec(detectors.VERDICT_DETECTOR).title


def test_inspect_page_opens_on_a_sample_with_word_highlights(page):
    first = first_sample(load_samples())
    heading(page, first.query).wait_for()
    scores = word_scores(page)
    assert scores and all(0.0 <= s <= 1.0 for s in scores)
    assert page.get_by_role("tab").all_inner_texts() == ["ROUGE-1", VERDICT_TITLE, "Side by side"]
    # The most reliable detector's tab opens first, not ROUGE-1's.
    assert page.get_by_role("tab", selected=True).inner_text() == VERDICT_TITLE
    screenshot(page, "inspect")


def test_picking_a_sample_shows_its_highlights(page):
    chosen = load_samples()[-1]
    choose_sample(page, chosen.id)
    heading(page, chosen.query).wait_for()
    settle(page)
    assert page.get_by_label("Response").input_value() == chosen.response
    response_view = page.locator("[data-testid=stHtml]", has=page.locator("[data-score]")).first
    assert response_view.inner_text().strip() == chosen.response.strip()
    assert all(0.0 <= s <= 1.0 for s in word_scores(page))
    screenshot(page, "inspect-sample")


def test_pasted_html_and_script_show_as_text_and_never_run(page, dialogs):
    paste_record(
        page,
        {
            "id": HOSTILE,
            "topic": HOSTILE,
            "query": MARKDOWN_QUERY,
            "perspectives": [{"name": HOSTILE, "arguments": [HOSTILE, HOSTILE_LINK]}],
            "response": HOSTILE + " and " + HOSTILE_LINK,
        },
    )
    heading(page, HOSTILE).wait_for()
    settle(page)
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    assert page.locator("img[src=x]").count() == 0
    assert not page.evaluate("[...document.scripts].some(s => s.textContent.includes('__pwned'))")
    assert page.locator("a[href^=javascript]").count() == 0
    # literal() breaks a bare link with an invisible word joiner (U+2060), so it shows as typed but is no link.
    assert heading(page, HOSTILE).first.inner_text().replace("\u2060", "") == MARKDOWN_QUERY
    assert page.get_by_text(HOSTILE + " and " + HOSTILE_LINK, exact=True).count() >= 1
    page.locator("[data-score]").first.click()  # a click on highlighted hostile text runs nothing either
    assert page.evaluate("window.__pwned") is None and dialogs == []
    screenshot(page, "inspect-hostile")


def test_salience_opens_with_its_heatmap_from_shipped_results(page):
    add_detector(page, "Salience")
    page.get_by_role("tab", name="Salience").click()
    page.get_by_text("Where each response sentence draws from").wait_for()
    settle(page)
    assert page.locator("[data-testid=stPlotlyChart]").count() >= 1
    screenshot(page, "inspect-salience")
    remove_detector(page, "Salience")


def test_the_alignment_classifier_shades_the_sample_hallucination(page):
    choose_sample(page, "congestion-charging-hallucination")
    add_detector(page, "Alignment classifier")
    page.get_by_role("tab", name="Alignment classifier").click()
    panel = page.locator("[role=tabpanel]:visible")
    panel.locator("[data-score]").first.wait_for()  # only the open tab is drawn: after its rerun
    settle(page)
    scores = [float(v) for v in panel.locator("[data-score]").evaluate_all("s => s.map(e => e.dataset.score)")]
    assert scores and max(scores) > 0.5 > min(scores)
    screenshot(page, "inspect-alignment-classifier")
    remove_detector(page, "Alignment classifier")


def test_switching_detectors_in_the_sidebar(page):
    remove_detector(page, VERDICT_TITLE)
    page.wait_for_function("() => document.querySelectorAll('[role=tab]').length === 1")
    settle(page)
    assert page.get_by_role("tab").all_inner_texts() == ["ROUGE-1"]
    remove_detector(page, "ROUGE-1")
    page.get_by_text("Choose at least one detector in the sidebar.").wait_for()
    settle(page)  # the last run's elements stay, marked stale, until this run ends
    assert page.locator("[data-score]").count() == 0


def test_dataset_page_opens_a_failure_in_inspect(page, app_url):
    # ROUGE alone scores the whole set at once; the semantic detector would score it in the
    # background for a minute of the shared CPU.
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    assert page.get_by_role("tab").all_inner_texts() == [
        "Evaluation",
        "Examples",
        "Summaries",
        "Export",
        "Label",
        "Error rates",
    ]
    screenshot(page, "dataset")

    page.locator("[class*=st-key-dataset-open-false]").first.get_by_role("button", name="Inspect").click()
    page.wait_for_url(re.compile(r"[?&]example="))
    example_id = parse_qs(urlparse(page.url).query)["example"][0]
    by_id = {e.id: e for e in load_samples()}
    heading(page, by_id[example_id].query).wait_for()
    page.wait_for_selector("[data-score]")
    settle(page)
    assert page.get_by_role("switch", name="Overlay gold labels").is_checked()
    if by_id[example_id].labels.hallucinated_spans or by_id[example_id].labels.uncovered:
        assert page.locator("[data-gold]").count() > 0
    screenshot(page, "inspect-failure")


def test_an_uploaded_file_with_bad_lines_lists_them_and_browses_the_rest(page):
    case = next(c for c in CASES if c.name == "malformed-json")
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(case.path))
    problems = page.get_by_text(f"{len(case.errors)} problem(s) in the file; the other lines were loaded")
    problems.click()
    page.get_by_text(f"{len(case.kept)} of {len(case.kept)} examples match the filters.").wait_for()
    settle(page)
    shown = page.locator("[data-testid=stExpander]", has_text="problem(s) in the file").locator("code").inner_text()
    assert shown.splitlines() == list(case.errors)
    screenshot(page, "dataset-upload")


def download_report(page, button, name: str) -> str:
    """Click a "Download HTML report" button, keep the file in test-artifacts/, return its text."""
    with page.expect_download() as started:
        button.click()
    download = started.value
    assert download.suggested_filename.endswith(".html")
    ARTIFACTS.mkdir(exist_ok=True)
    report = ARTIFACTS / f"{name}.html"
    download.save_as(report)
    return report.read_text(encoding="utf-8")


def opens_offline(browser, name: str) -> None:
    """The saved report draws its verdict and highlights with the network off and asks for nothing."""
    report = ARTIFACTS / f"{name}.html"
    offline = browser.new_context(viewport=VIEWPORT, offline=True)
    requests = []
    viewer = offline.new_page()
    viewer.on("request", lambda request: requests.append(request.url))
    viewer.goto(report.as_uri())
    viewer.wait_for_selector("[data-score]")
    viewer.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    offline.close()
    assert requests == [report.as_uri()]


def test_html_report_downloads_and_opens_offline(page, browser):
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    page.get_by_role("tab", name="Export").click()
    button = page.locator(".st-key-dataset-export_html").get_by_role("button", name="Download HTML report")
    text = download_report(page, button, "report")
    assert text.startswith("<!doctype html>") and "Content-Security-Policy" in text
    assert "<script" not in text and "<link" not in text
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)
    assert len(text.encode("utf-8")) < 1_000_000
    opens_offline(browser, "report")


@pytest.mark.parametrize(
    ("path", "heading_text"),
    [("inspect", "Inspect an example"), ("dataset", "Browse a test set"), ("lab", "Error-injection lab")],
)
def test_each_pages_direct_url_on_a_fresh_server_shows_the_full_frame(browser, tmp_path, path, heading_text):
    """Before any session has run the router, Streamlit serves `pages/` as old-style pages: the
    page itself must draw the frame (sidebar with the detectors), as it does under the router."""
    with serve(tmp_path) as url:
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(TIMEOUT_MS)
        tab = context.new_page()
        tab.goto(f"{url}/{path}")
        heading(tab, heading_text).wait_for()
        sidebar = tab.locator("[data-testid=stSidebar]")
        sidebar.get_by_text("Detectors", exact=True).wait_for()
        assert sidebar.get_by_role("button", name="Remove ROUGE-1").count() == 1
        settle(tab)
        assert not tab.locator("[data-testid=stException]").count()
        screenshot(tab, f"direct-url-{path}")
        context.close()
