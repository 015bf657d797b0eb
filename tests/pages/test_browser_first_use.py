"""The app's three jobs as a new user meets them, at 1280 x 800 (issue 17): each test takes the
steps of one problem found in headless Chromium and checks it stays fixed.

1. Inspect shows the verdict first, with the sentence responsible one click away.
2. A pasted example survives a reload; Inspect and the lab download a small report.
3. The dataset page keeps its view across a trip to Inspect, recomputes thresholds for a new
   file, says "scoring" while it scores, and draws the operating point on the ROC curve.
4. Salience reads by sentences, and a click on a word follows it.
5. Every page fits 1280 x 800 (screenshots in test-artifacts/page-*.png).
"""

from __future__ import annotations

import json
import re

import pytest

from explorer import detectors
from explorer.config import SAMPLE_DIR
from explorer.data.samples import load_samples
from explorer.ui.editor import first_sample
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import (
    VIEWPORT,
    add_detector,
    choose_sample,
    heading,
    open_dataset_page,
    paste_record,
    remove_detector,
    screenshot,
    settle,
    stop_background_scoring,
)
from tests.pages.test_browser import download_report, opens_offline

pytestmark = [pytest.mark.browser, BROWSER_GROUP]

HALLUCINATION = "school-uniforms-hallucination"
ROUGE_THRESHOLD = "[class*=st-key-dataset-threshold-][class*=-rouge-hallucination-full_organic]"

# The second default detector, whose tab opens first: the verdict's.
VERDICT_TITLE = detectors.spec(detectors.VERDICT_DETECTOR).title


def in_viewport(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]


def test_1_inspect_shows_the_verdict_first_and_links_to_the_sentence(page):
    example = next(e for e in load_samples() if e.id == HALLUCINATION)
    (gold_start, gold_end), *_ = example.labels.hallucinated_spans
    choose_sample(page, HALLUCINATION)
    heading(page, example.query).wait_for()
    # The clean sample shown first asks the same question: wait for this example's verdict.
    verdict = page.locator("[data-error-type=hallucination]", has_text=example.response[gold_start:gold_end][:60])
    verdict.wait_for()
    settle(page)
    page.locator("[data-testid=stMain]").evaluate("main => main.scrollTo(0, 0)")
    assert in_viewport(verdict) and in_viewport(page.locator("[data-error-type=coverage]"))
    assert verdict.locator("[data-verdict]").get_attribute("data-verdict") in ("likely", "unclear")
    assert example.response[gold_start:gold_end][:60] in verdict.inner_text()
    # Each detector's score comes with its P(error), or why it has none (issue 48: one P(error) a
    # verdict, and no "≥ threshold" beside an "unclear"); the bar draws the threshold.
    for cell in page.locator("[data-score-of]").all():
        assert "P(error)" in cell.get_attribute("title")
    assert page.get_by_role("tab", selected=True).inner_text() == VERDICT_TITLE
    screenshot(page, "page-inspect")
    # One click on the quoted sentence brings its outlined place in the highlights into view.
    link = verdict.locator("a[href^='#verdict-sentence-']")
    target = page.locator(f"[id='{link.get_attribute('href')[1:]}']")
    assert not in_viewport(target)
    link.click()
    page.wait_for_function(
        "id => { const r = document.getElementById(id).getBoundingClientRect(); "
        "return r.top >= 0 && r.bottom <= window.innerHeight; }",
        arg=target.get_attribute("id"),
    )
    # One claim verdict, RefChecker's rules as its details.
    assert page.locator("[data-claim-verdict]").count() == 1
    assert "strict unsupported" in page.locator("[data-claim-verdict]").inner_text()


def test_2_a_pasted_example_survives_a_reload_and_both_pages_download_a_small_report(page, browser, record):
    record = dict(record, id="pasted", query="Should sugary drinks carry a health tax?")
    paste_record(page, record)
    heading(page, record["query"]).wait_for()
    settle(page)
    assert "shared=" in page.url
    page.reload()
    heading(page, record["query"]).wait_for()
    settle(page)
    assert page.get_by_label("Response").input_value() == record["response"]
    text = download_report(page, page.get_by_role("button", name="Download HTML report"), "report-inspect")
    assert len(text.encode("utf-8")) < 1_000_000 and "<script" not in text
    assert 'data-error-type="hallucination"' in text and "data-claim-verdict=" in text
    assert "all-MiniLM-L6-v2" in text and "match 0.67" in text  # what made the results
    opens_offline(browser, "report-inspect")
    page.locator("[data-testid=stSidebarNav]").get_by_text("Error-injection lab").click()
    page.get_by_role("tab", name="Drop an argument").click()
    page.get_by_role("button", name="Drop it").click()
    page.locator("[data-tag=removed]").first.wait_for()
    settle(page)
    text = download_report(page, page.get_by_role("button", name="Download HTML report"), "report-lab")
    assert "Made in the error-injection lab" in text and "dropped pro 1" in text
    assert len(text.encode("utf-8")) < 1_000_000


def test_3_the_dataset_page_keeps_its_view_across_a_trip_to_inspect(page):
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    page.locator(".st-key-error").get_by_text("Coverage error").click()
    page.get_by_text("Missed: gold coverage error").wait_for()
    settle(page)
    page.locator(".st-key-slice").click()
    page.get_by_role("option", name="Ambiguous organic").click()
    page.get_by_text(re.compile("Ambiguous organic · Coverage error")).wait_for()
    settle(page)
    page.locator("[class*=st-key-dataset-open-false]").first.get_by_role("button", name="Inspect").click()
    page.wait_for_function("() => location.search.includes('example=')")
    page.wait_for_selector("[data-score]")
    settle(page)
    open_dataset_page(page)
    assert page.get_by_role("radio", name="Coverage error").is_checked()
    page.get_by_text("Ambiguous organic · Coverage error").wait_for()  # the ROC curve's title: the same view
    assert "error=" in page.url and "slice=" in page.url


def test_3_a_new_file_gets_its_own_thresholds_and_the_roc_point_lies_on_the_curve(page, tmp_path):
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    page.locator(ROUGE_THRESHOLD).get_by_role("slider").press("Home")  # flags every example
    page.get_by_text("recall 1.00 · FPR 1.00").first.wait_for()
    settle(page)
    other = tmp_path / "second.jsonl"
    other.write_text((SAMPLE_DIR / "synthetic.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(other))
    page.get_by_text(re.compile(r"of 417 examples match the filters")).wait_for()
    page.locator("[data-testid=stPlotlyChart]").first.wait_for()
    settle(page)
    assert page.get_by_text("recall 1.00 · FPR 1.00").count() == 0
    assert page.locator(ROUGE_THRESHOLD).get_by_role("slider").get_attribute("aria-valuenow") != "0"
    curve, point = page.locator(".st-key-dataset-roc .js-plotly-plot").evaluate(
        # _fullData: the traces as drawn (decoded from the typed arrays Streamlit sends)
        "plot => ['ROUGE-1 (AUC', 'ROUGE-1 at its threshold']"
        ".map(name => plot._fullData.find(t => t.name.startsWith(name)))"
        ".map(t => ({x: Array.from(t.x), y: Array.from(t.y), shape: (t.line || {}).shape || 'linear'}))"
    )
    assert curve["shape"] == "linear"  # straight segments through sklearn's points, not steps
    x, y = point["x"][0], point["y"][0]
    segments = zip(curve["x"], curve["y"], curve["x"][1:], curve["y"][1:])
    assert any(
        min(x0, x1) - 1e-9 <= x <= max(x0, x1) + 1e-9
        and min(y0, y1) - 1e-9 <= y <= max(y0, y1) + 1e-9
        and abs((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) < 1e-9
        for x0, y0, x1, y1 in segments
    )


def test_3_the_auc_table_says_scoring_while_a_detector_scores(page, tmp_path):
    fresh = [
        e.replace(id=f"fresh-{e.id}", response=e.response + " Fresh.") for e in load_samples() if e.split == "test"
    ]
    data = tmp_path / "fresh.jsonl"
    data.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in fresh[:60]), encoding="utf-8")
    open_dataset_page(page)
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(data))
    page.get_by_text(re.compile(rf"{re.escape(VERDICT_TITLE)}: \d+ of 60 examples scored")).wait_for()
    # While it scores, the AUC table says so (it said "no positives" before).
    page.locator("[data-testid=stTable]", has_text=re.compile(r"scoring, \d+ of 60")).wait_for(timeout=30_000)
    stop_background_scoring(page)


def test_4_salience_reads_by_sentences_and_a_click_follows_a_word(page):
    add_detector(page, "Salience")
    page.get_by_role("tab", name="Salience").click()
    overview = page.locator("[class*=st-key-word_map-inspect-salience-cell] .js-plotly-plot")
    overview.wait_for()
    settle(page)
    assert overview.bounding_box()["height"] < 600  # 9 x 10 sentences, not 124 x 148 words (2,392 px)
    overview.scroll_into_view_if_needed()
    area = page.locator("[class*=st-key-word_map-inspect-salience-cell] .nsewdrag").first.bounding_box()
    columns = len(overview.evaluate("plot => plot.layout.xaxis.ticktext"))
    rows = len(overview.evaluate("plot => plot.layout.yaxis.ticktext"))
    page.mouse.click(area["x"] + area["width"] * 6.5 / columns, area["y"] + area["height"] * 5.5 / rows)
    page.get_by_text("Words of S7").wait_for()
    settle(page)
    page.locator("[class*=st-key-word_map-inspect-salience-response_word] button").first.click()
    page.get_by_text("Darker = a larger share").wait_for()
    settle(page)
    assert page.locator("[data-score='1.0000']").count() >= 1  # the followed word, at full strength
    screenshot(page, "inspect-salience-follow")
    remove_detector(page, "Salience")


def test_5_every_page_fits_1280_by_800(page):
    # Inspect: the picker names the sample shown, the detectors' help fits on the screen.
    first = first_sample(load_samples())
    assert first.id in page.locator(".st-key-inspect-sample input").input_value()
    page.locator("[data-testid=stSidebar] [data-testid=stTooltipIcon]").first.hover()
    tooltip = page.locator("[data-testid=stTooltipContent]")
    tooltip.wait_for()
    assert in_viewport(tooltip)
    page.mouse.move(0, 0)
    # The dataset page: the AUC table and the confusion matrices are not clipped.
    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    screenshot(page, "page-dataset")
    page.locator(".st-key-dataset-roc").evaluate("e => e.scrollIntoView({block: 'end'})")
    screenshot(page, "page-dataset-roc")  # the README's picture: AUC table, ROC curve, thresholds
    page.locator("[data-testid=stMain]").evaluate("main => main.scrollTo(0, 0)")
    for element in (page.locator("[data-testid=stTable]"), *page.locator("table:has([data-count])").all()):
        assert element.evaluate("e => e.scrollWidth <= e.parentElement.clientWidth + 1")
    page.locator(".st-key-slice").click()
    page.get_by_role("option", name="Unparaphrased synthetic").click()
    page.get_by_text("The sample file synthetic.jsonl holds the paper's synthetic errors").wait_for()
    # The lab: before and after side by side, the dropped argument marked.
    page.locator("[data-testid=stSidebarNav]").get_by_text("Error-injection lab").click()
    page.get_by_role("tab", name="Drop an argument").click()
    page.get_by_role("button", name="Drop it").click()
    removed = page.locator("[data-tag=removed]").first
    removed.wait_for()
    settle(page)
    before = page.get_by_text(re.compile(r"^Before ·")).bounding_box()
    after = page.get_by_text(re.compile(r"^After ·")).bounding_box()
    assert abs(before["y"] - after["y"]) < 5 and after["x"] > before["x"]
    removed.scroll_into_view_if_needed()
    screenshot(page, "page-lab")
