"""The three users' paths of issue 26 at 1280 x 800, in headless Chromium: each test takes the
steps that met a problem and checks it stays fixed (the number is the issue's).

1. Inspect shows the example and "scoring…" where the verdict goes, and a new example never
   sits above the previous example's verdict.
2. The verdict quotes the least supported clause of a long sentence, not its first characters.
3. Browser Back from a failure opened in Inspect shows the failures as they were; Inspect links back
   (the place in the list: `test_browser_issue26_return.py`).
4. The test set's sliders start at the verdict's calibrated threshold; the set's optimum is marked.
5. "Failures of" follows the best-ranked detector; a miss shows its gold span and every score.
6. The AUC table's "scoring, n of N" keeps up with the progress bar (the bundled sample needs no
   scoring: `test_browser_issue26_return.py`).
7. Inspect opens on a sample with an error, named by what it shows, under a line saying what the tool does.
8. A link to an upload that is gone says so instead of showing the sample under its address.
9. Paste JSON opens full width below the picker, and a record without an id loads.
10. Score bars draw the score solid and the threshold thin.
11. The lab names the argument a synthetic error removed, gives the verdict before and after,
    and opens its highlights on the verdict's detector.
12. Plotly's toolbar stays clear of the claim matrix's title.
"""

from __future__ import annotations

import json
import re

import pytest

from explorer import detectors
from explorer.data.samples import load_samples
from explorer.evaluation.calibration import shipped
from explorer.ui.editor import first_sample
from explorer.ui.frame import WHAT_IT_DOES
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import (
    ARTIFACTS,
    TIMEOUT_MS,
    VIEWPORT,
    heading,
    open_dataset_page,
    paste_record,
    remove_detector,
    screenshot,
    serve,
    settle,
    stop_background_scoring,
)

pytestmark = [pytest.mark.browser, BROWSER_GROUP]

VERDICT_TITLE = detectors.spec(detectors.VERDICT_DETECTOR).title
# ROUGE-1's coverage: its hallucination calibration is near chance on the foreign dev set (no threshold)
ROUGE_THRESHOLD = "[class*=st-key-dataset-threshold-][class*=-rouge-coverage-full_organic]"
# A voting-age answer like the one a user pasted: the invented figure (94%) comes late in a
# sentence of 277 characters, after the 160 a quote shows.
VOTING = {
    "id": "voting-age",
    "query": "Should the voting age be lowered to 16?",
    "perspectives": [
        {
            "name": "pro",
            "arguments": [
                "Sixteen-year-olds can work, pay taxes and leave school, so they should have a say in how they "
                "are governed.",
                "Voting early builds a habit that lasts a lifetime.",
                "Young people will live longest with the consequences of decisions made today.",
            ],
        },
        {
            "name": "con",
            "arguments": [
                "Most sixteen-year-olds lack the life experience to weigh complex political questions.",
                "Teenagers are easily swayed by parents and teachers.",
                "Few sixteen-year-olds have asked for the vote.",
            ],
        },
    ],
    "response": "Supporters say sixteen-year-olds can work, pay taxes and leave school, so they should have a say "
    "in how they are governed. They add that voting early builds a habit that lasts a lifetime, and that young "
    "people will live longest with the consequences of decisions made today, pointing out that in Austria, "
    "turnout among 16- and 17-year-olds reached 94% in the first national election after the change. Opponents "
    "reply that most sixteen-year-olds lack the life experience to weigh complex political questions. They also "
    "say teenagers are easily swayed by parents and teachers, and that few sixteen-year-olds have asked for the "
    "vote.",
}
INVENTED = "reached 94% in the first national election"
# Records each moment (ms) a heading shows `query` while the hallucination verdict quotes `stale`.
WATCH_STALE = """([query, stale]) => {
    window.__stale = 0; window.__pending = false; let since = null;
    const check = () => {
        const now = performance.now();
        const asked = [...document.querySelectorAll('[data-testid=stHeading]')].some(e => e.innerText.includes(query));
        const verdicts = [...document.querySelectorAll('[data-error-type=hallucination]')];
        const old = asked && verdicts.some(e => e.innerText.includes(stale));
        if (asked && document.querySelector('[data-verdict-pending]')) window.__pending = true;
        if (old && since === null) since = now;
        if (!old && since !== null) { window.__stale = Math.max(window.__stale, now - since); since = null; }
    };
    new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def in_viewport(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and (b["y"] < a["y"] + a["height"])
    )


SAW_SCORING = """
new MutationObserver(() => {
  const pending = document.querySelector("[data-verdict-pending] [data-verdict]");
  if (pending && pending.textContent.trim() === "scoring…") window.__sawScoring = true;
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


def hallucination_verdict(page, text: str):
    return page.locator("[data-error-type=hallucination]:not([data-pending])", has_text=text)


def test_1_a_fresh_server_shows_scoring_where_the_verdict_goes_and_a_new_example_clears_it(browser, tmp_path):
    first = first_sample(load_samples())
    with serve(tmp_path) as url:
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(TIMEOUT_MS)
        # An observer installed before the page loads sees "scoring…" however short it shows.
        context.add_init_script(SAW_SCORING)
        page = context.new_page()
        page.goto(url)
        heading(page, first.query).wait_for()
        # The shipped sample's verdict comes from its shipped scores, without a model: "scoring…"
        # shows for milliseconds at most, and Streamlit may draw the verdict in the same frame.
        page.locator("[data-error-type=hallucination] [data-verdict=likely]").wait_for()
        settle(page)
        old_quote = page.locator("[data-error-type=hallucination] a[href^='#verdict-']").inner_text()[1:40]
        page.evaluate(WATCH_STALE, [VOTING["query"], old_quote])
        paste_record(page, VOTING)
        hallucination_verdict(page, "Austria").wait_for()
        settle(page)
        # The old verdict went with the old question: at most a frame, never the second the new one took.
        assert page.evaluate("window.__stale") < 250
        assert page.evaluate("window.__pending")
        # The pasted example has no shipped scores: while this fresh server loaded its detectors,
        # "scoring…" stood where the verdict now is.
        assert page.evaluate("window.__sawScoring")
        context.close()


def test_2_the_verdict_quotes_the_clause_with_the_invented_figure(page):
    paste_record(page, VOTING)
    heading(page, VOTING["query"]).wait_for()
    verdict = hallucination_verdict(page, re.compile("Austria|voting"))
    verdict.wait_for()
    settle(page)
    quote = verdict.locator("a[href^='#verdict-']").inner_text()  # not the claim view's "differs: why"
    assert INVENTED in quote
    assert len(quote) < 200  # still a quote, not the whole sentence
    assert INVENTED in verdict.locator("[data-focus]").inner_text()
    screenshot(page, "issue26-2-quote")


def test_4_the_test_sets_sliders_start_at_the_verdicts_threshold_and_mark_the_sets_optimum(page):
    remove_detector(page, VERDICT_TITLE)  # ROUGE-1 alone scores the whole sample in seconds
    open_dataset_page(page)
    page.get_by_text("Coverage error", exact=True).first.click()
    settle(page)
    calibrated = shipped().detectors["rouge"][1]["coverage"].threshold
    slider = page.locator(ROUGE_THRESHOLD).get_by_role("slider")
    assert float(slider.input_value()) == pytest.approx(calibrated, abs=0.006)
    optimum = page.locator('[data-mark="this set\'s optimum"]').first
    verdict_mark = page.locator("[data-mark=verdict]").first
    assert float(verdict_mark.get_attribute("data-value")) == pytest.approx(calibrated, abs=0.006)
    value = optimum.get_attribute("data-value")
    screenshot(page, "issue26-4-thresholds")
    page.get_by_role("button", name=re.compile(r"Use the optimum")).first.click()
    page.wait_for_function(
        "([selector, value]) => Number(document.querySelector(selector + ' input[type=range]').value) == Number(value)",
        arg=[ROUGE_THRESHOLD, value],
    )


def _best_on_full_organic_hallucination(examples, folder) -> str:
    from explorer.evaluation import auc
    from explorer.evaluation.slices import slice_members
    from explorer.scoring.cache import ResultCache
    from explorer.scoring.runner import score_example

    names = ["rouge", detectors.VERDICT_DETECTOR]
    scorers = [detectors.create(name) for name in names]
    # The stacked detector's results on the sample ship (keyed by its identity and the example's
    # content, so they are its own): scoring the 20 examples again here took 20 s.
    cache = ResultCache(folder)
    results = {e.id: score_example(e, scorers, cache).results for e in examples}
    labels, scores = auc.slice_scores(
        slice_members(examples, "hallucination", "full_organic"), results, names, "hallucination"
    )
    cells = auc.compare_detectors("example", "hallucination", "full_organic", labels, scores, with_inference=False)
    return next(c.detector for c in cells if c.best)


def test_5_failures_follow_the_best_detector_and_show_the_missed_span_with_every_score(page, tmp_path):
    # Two topics of the sample (the server finds their results in the shipped scores too).
    subset = load_samples()[:20]
    data = tmp_path / "two-topics.jsonl"
    data.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in subset), encoding="utf-8")
    page.locator("[data-testid=stSidebarNav]").get_by_text("Browse a test set").click()
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(data))
    page.get_by_text(re.compile(r"of 20 examples match the filters")).wait_for()
    page.wait_for_function(
        "() => !document.body.innerText.includes('the rest in the background')", timeout=5 * TIMEOUT_MS
    )
    settle(page)
    # The detector ranking best on the slice (the table's ★) is the one whose failures are listed.
    best = _best_on_full_organic_hallucination(subset, tmp_path / "cache")
    heading(page, f"Failures of {detectors.spec(best).title} at its threshold").wait_for()
    settle(page)
    cards = page.locator("[data-failure]")
    assert cards.count() >= 1
    by_id = {e.id: e for e in subset}
    for card in cards.all():
        example = by_id[card.get_attribute("data-failure")]
        if example.labels.hallucinated_spans:  # a missed hallucination shows its gold span
            (start, end), *_ = example.labels.hallucinated_spans
            assert example.response[start:end] in card.inner_text()
        assert card.locator("[data-score-for]").count() == 2  # both detectors' scores
    screenshot(page, "issue26-5-failures")


def test_7_inspect_opens_on_an_error_named_by_what_it_shows_under_what_the_tool_does(page):
    first = first_sample(load_samples())
    shown = page.locator(".st-key-inspect-sample input").input_value()
    assert shown.lower().startswith(first.labels.summary())
    assert first.id in shown
    picker = page.locator(".st-key-inspect-sample input")
    assert picker.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # nothing cut off at 1280 px
    line = page.get_by_text(WHAT_IT_DOES.replace("**", "")[:40]).first
    assert in_viewport(line) and line.bounding_box()["height"] < 30  # one line
    verdict = page.locator("[data-error-type=hallucination] [data-verdict]")
    assert verdict.get_attribute("data-verdict") == "likely" and in_viewport(verdict)
    screenshot(page, "issue26-7-first-screen")


def test_8_a_link_to_an_upload_that_is_gone_says_so(page, app_url):
    remove_detector(page, VERDICT_TITLE)  # the sample picked below then scores in seconds
    page.goto(f"{app_url}/dataset?dataset=upload%3Amine.jsonl")
    page.get_by_text("which is gone").wait_for()
    settle(page)
    assert "dataset=upload" in page.url  # the address still names what was shared
    assert page.get_by_text(re.compile(r"examples match the filters")).count() == 0
    screenshot(page, "issue26-8-upload-gone")
    page.locator(".st-key-dataset-source_widget").click()
    page.get_by_role("option", name="examples.jsonl").click()
    page.get_by_text(re.compile(r"of 261 examples match the filters")).wait_for()
    assert "dataset=examples.jsonl" in page.url and page.get_by_text("which is gone").count() == 0


def test_9_paste_json_opens_full_width_below_the_picker_and_needs_no_id(page):
    picker = page.locator(".st-key-inspect-sample").bounding_box()
    download = page.get_by_role("button", name="Download HTML report").bounding_box()
    page.locator("[data-testid=stExpander]", has_text="Paste JSON").locator("summary").click()
    box = page.get_by_label("One example as JSON")
    box.wait_for()
    assert box.bounding_box()["width"] > 600
    assert page.locator(".st-key-inspect-sample").bounding_box() == picker
    assert page.get_by_role("button", name="Download HTML report").bounding_box() == download
    record = {key: value for key, value in VOTING.items() if key != "id"}
    box.fill(json.dumps(record))
    box.press("Control+Enter")  # committed before the click, as `paste_text` does (the race it names)
    settle(page)
    page.get_by_role("button", name="Load JSON").click()
    heading(page, VOTING["query"]).wait_for()
    settle(page)
    assert page.locator("[data-testid=stAlert]").count() == 0
    assert page.locator("code", has_text="pasted-").count() >= 1
    screenshot(page, "issue26-9-paste")


def test_10_score_bars_draw_the_score_solid_and_the_threshold_thin(page):
    cells = page.locator("[data-score-of]").all()
    assert cells
    for cell in cells:
        score = float(cell.locator("b").first.inner_text())
        fill, track = cell.locator("[data-part=score]"), cell.locator("[data-part=score] >> xpath=..")
        color = fill.evaluate("e => getComputedStyle(e).backgroundColor")
        alpha = float(re.findall(r"[\d.]+", color)[3]) if color.startswith("rgba") else 1.0
        assert alpha >= 0.9  # a solid fill, not a faint tint
        width, whole = fill.bounding_box()["width"], track.bounding_box()["width"]
        assert width == pytest.approx(max(score * whole, 2), abs=1.5)
        assert fill.bounding_box()["height"] >= track.bounding_box()["height"] - 1
        for tick in cell.locator("[data-part=threshold]").all():
            assert tick.bounding_box()["width"] <= 1.01
    screenshot(page, "issue26-10-bars")


def test_12_the_plotly_toolbar_stays_clear_of_the_claim_matrix_title(page):
    opener = page.locator(".st-key-claims-matrix_open summary")  # the matrix is built when opened
    opener.scroll_into_view_if_needed()
    opener.click()
    matrix = page.locator(".st-key-claims-matrix")
    matrix.scroll_into_view_if_needed()
    matrix.locator(".xtitle").wait_for()
    matrix.hover()
    bar = matrix.locator(".modebar")
    bar.wait_for()
    assert not overlap(bar.bounding_box(), matrix.locator(".xtitle").bounding_box())
    page.screenshot(path=str(ARTIFACTS / "issue26-12-claims.png"))  # with the toolbar: no `screenshot()`


def test_3_back_from_a_failure_opened_in_inspect_keeps_the_view(page):
    def the_view_is_kept() -> None:
        page.get_by_text("Ambiguous organic · Coverage error").wait_for()  # the ROC curve's title
        settle(page)
        assert page.get_by_role("radio", name="Coverage error").is_checked()
        assert page.get_by_text("Missed: gold coverage error").count() == 1

    def open_a_failure() -> None:
        page.locator("[class*=st-key-dataset-open-false]").first.get_by_role("button", name="Inspect").click()
        page.wait_for_function("() => location.search.includes('example=')")
        page.wait_for_selector("[data-score]")
        settle(page)

    remove_detector(page, VERDICT_TITLE)
    open_dataset_page(page)
    page.locator(".st-key-error").get_by_text("Coverage error").click()
    page.get_by_text("Missed: gold coverage error").wait_for()
    settle(page)
    page.locator(".st-key-slice").click()
    page.get_by_role("option", name="Ambiguous organic").click()
    the_view_is_kept()
    open_a_failure()
    page.go_back()  # one Back
    the_view_is_kept()
    screenshot(page, "issue26-3-back")
    open_a_failure()
    back = page.get_by_role("link", name=re.compile("Back to the failures"))
    assert in_viewport(back)
    screenshot(page, "issue26-3-back-link")
    back.click()
    the_view_is_kept()


def test_11_the_lab_names_what_a_synthetic_error_removed_and_gives_the_verdict_before_and_after(page):
    page.locator("[data-testid=stSidebarNav]").get_by_text("Error-injection lab").click()
    page.get_by_role("button", name="Make a synthetic hallucination").click()
    removed = page.locator("[data-tag=removed]").first
    removed.wait_for()
    settle(page)
    # Right under the buttons, the edit names the argument it removed, as the framed one reads.
    edits = page.get_by_text(re.compile(r"^Edits: synthetic hallucination: removed (pro|con) \d+: "))
    assert in_viewport(edits)
    named = re.search(r"removed (?:pro|con) \d+: (.{20})", edits.inner_text()).group(1)
    assert named in removed.inner_text()
    for error_type in ("hallucination", "coverage"):
        row = page.locator(f"[data-verdict-change={error_type}]")
        assert row.locator("[data-side=before] [data-verdict]").count() == 1
        assert row.locator("[data-side=after] [data-verdict]").count() == 1
    assert page.get_by_role("tab", selected=True).last.inner_text() == VERDICT_TITLE  # the highlights' tabs
    screenshot(page, "issue26-11-lab")


def test_6_the_auc_tables_count_follows_the_progress_bar(page, tmp_path):
    fresh = [e.replace(id=f"fresh-{e.id}", response=e.response + " Fresh.") for e in load_samples()[:40]]
    data = tmp_path / "fresh.jsonl"
    data.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in fresh), encoding="utf-8")
    page.locator("[data-testid=stSidebarNav]").get_by_text("Browse a test set").click()
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(data))
    table = page.locator("[data-testid=stTable]", has_text=re.compile(r"scoring, \d+ of 40"))
    table.wait_for()
    first = int(re.search(r"scoring, (\d+) of 40", table.inner_text()).group(1))
    # A tenth more scored (4 examples) reruns the page: the table's count moves on with the bar.
    page.wait_for_function(
        "first => { const m = document.body.innerText.match(/scoring, (\\d+) of 40/);"
        " return m && Number(m[1]) >= first + 4; }",
        arg=first,
    )
    settle(page)
    # The bar is a fragment redrawn every 2 s, so for a moment it may show the count from before
    # the table's run: both counts are read at one instant, once the bar has caught up.
    counted, shown = page.wait_for_function(
        "() => { const text = document.body.innerText;"
        " const table = text.match(/scoring, (\\d+) of 40/), bar = text.match(/: (\\d+) of 40 examples scored/);"
        " return table && bar && Number(bar[1]) >= Number(table[1]) && [Number(table[1]), Number(bar[1])]; }"
    ).json_value()
    assert shown - counted < 4
    stop_background_scoring(page)
