"""Screenshots of every page and of each state a user meets there, at 1280 x 800 and 1600 x 1000.

    python bench/screenshots.py [--out docs/screenshots] [--sizes 1280x800,1600x1000] [--checkout PATH]

Starts the real app on a free port with an empty result cache and walks the three users' paths
in headless Chromium (Debian's chromium, as the browser tests), once per size, saving what the
screen shows (not the whole page) as `<page>[-<state>]-<W>x<H>.png`, reduced to 256 colours:

- inspect-scoring: a fresh server's first visit, "scoring…" where the verdict goes (first size's
  walk only, both sizes taken at once; skipped with a note when the verdict came first);
- inspect: the first screen, the verdict; inspect-paste and inspect-edit: "Paste JSON" and
  "Edit the example" opened; inspect-claims: the claim view with its coverage matrix opened;
  inspect-markdown: two records pasted at once, the second a markdown answer, drawn as markdown
  with its highlights; inspect-account: an answer where the verdict and the claim view differ,
  the claim view's "why" in view;
- dataset: Browse a test set on the bundled sample (Evaluation); dataset-failures: ROUGE-1's
  failures on coverage errors; inspect-from-failures: a missed error opened in Inspect (gold overlay,
  "Back to the failures"); dataset-examples, dataset-summaries, dataset-export: the other tabs;
- lab: the Error-injection lab; lab-after: after "Make a synthetic hallucination", the verdict
  before and after and whether it caught the error in view.

Prints each file written and the load average (a loaded machine only slows the walk).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.ui.state import FIRST_SAMPLE  # noqa: E402
from tests.pages.browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    TIMEOUT_MS,
    heading,
    open_dataset_page,
    paste_text,
    serve,
    settle,
)
from tests.pages.test_browser_issue48 import PRIMARIES as ACCOUNT  # noqa: E402

# A chat model's answer in markdown, with a sentence no argument supports.
MARKDOWN = {
    "query": "Should city centres be car-free?",
    "perspectives": [
        {"name": "pro", "arguments": ["Car-free centres have cleaner air.", "Streets without cars are safer."]},
        {"name": "con", "arguments": ["Shops lose customers who drive.", "Deliveries become slower and dearer."]},
    ],
    "response": "**Short version:** it depends on the city.\n\n### Arguments for\n- Car-free centres have "
    "**cleaner air**.\n- Streets without cars are safer for children.\n\n### Arguments against\n"
    "| concern | why |\n|---|---|\n| shops | they lose customers who drive |\n| deliveries | slower and dearer |"
    "\n\nOslo removed all cars from its centre in 2019 and saw shop sales rise by a third.",
}

VERDICT_DONE = "() => document.querySelectorAll('[data-error-type]:not([data-pending]) [data-verdict]').length >= 2"


class Shots:
    def __init__(self, out: Path):
        self.out = out
        self.written: list[Path] = []

    def take(self, page, name: str) -> None:
        from PIL import Image

        size = page.viewport_size
        path = self.out / f"{name}-{size['width']}x{size['height']}.png"
        page.mouse.move(0, 0)  # no hover toolbar or tooltip left over from the last click
        page.screenshot(path=str(path))
        # 256 colours: a third of the size, and the UI's flat colours survive.
        Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
        self.written.append(path)
        print(path, flush=True)


def expander(page, title: str):
    return page.locator("[data-testid=stExpander]", has_text=title).first


def toggle_expander(page, title: str) -> None:
    expander(page, title).locator("summary").click()
    settle(page)


def nav(page, text: str) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_text(text, exact=True).click()


def scoring_state(page, shots: Shots, sizes: list[dict]) -> None:
    """A fresh server's first screen while the detectors load: both sizes at once, while it lasts
    (none when the shipped results give the verdict before "scoring…" is drawn)."""
    pending = "[data-error-type][data-pending]"
    page.wait_for_function(f"() => document.querySelector('{pending}') !== null || ({VERDICT_DONE})()", polling=50)
    if page.locator(pending).count() == 0:
        print("note: the verdict came before any 'scoring…': no inspect-scoring screenshot", flush=True)
        return
    for size in sizes:
        page.set_viewport_size(size)
        shots.take(page, "inspect-scoring")
    if page.locator(pending).count() == 0:
        print("note: the verdict arrived while inspect-scoring was taken; look at those files", flush=True)
    page.set_viewport_size(sizes[0])


def inspect_states(page, shots: Shots) -> None:
    page.wait_for_function(VERDICT_DONE, polling=100)
    page.locator("[data-score]").first.wait_for()
    settle(page)
    shots.take(page, "inspect")
    for title, name in (("Paste JSON", "inspect-paste"), ("Edit the example", "inspect-edit")):
        toggle_expander(page, title)
        shots.take(page, name)
        toggle_expander(page, title)
    matrix = page.locator(".st-key-claims-matrix_open")
    matrix.locator("summary").click()
    page.locator(".st-key-claims-matrix .main-svg").first.wait_for()
    settle(page)
    heading(page, "Claims").first.evaluate("e => e.scrollIntoView({block: 'start'})")
    shots.take(page, "inspect-claims")
    matrix.locator("summary").click()  # closed again: the next walk starts as a user would
    settle(page)
    paste_text(page, json.dumps(ACCOUNT) + "\n" + json.dumps(MARKDOWN))
    heading(page, ACCOUNT["query"]).wait_for()
    page.locator("[data-claim]").first.wait_for()
    settle(page)
    page.locator("[data-accounts]").evaluate("e => e.scrollIntoView({block: 'center'})")
    shots.take(page, "inspect-account")
    page.locator(".st-key-inspect-paste_more input").press_sequentially("pasted")  # typed: a click may not open it
    page.get_by_role("option", name=re.compile(re.escape(MARKDOWN["query"]))).click()
    heading(page, MARKDOWN["query"]).wait_for()
    page.locator("[data-markdown] [data-score]").first.wait_for()
    settle(page)
    page.locator("[data-markdown]").first.evaluate("e => e.scrollIntoView({block: 'center'})")
    shots.take(page, "inspect-markdown")
    expander(page, "Paste JSON").locator("summary").click()
    page.locator(".st-key-inspect-sample input").press_sequentially(FIRST_SAMPLE)  # back to where a visit starts
    page.get_by_role("option", name=re.compile(re.escape(FIRST_SAMPLE))).first.click()
    page.wait_for_function(VERDICT_DONE, polling=100)
    settle(page)
    page.evaluate("window.scrollTo(0, 0)")


def dataset_states(page, shots: Shots) -> None:
    open_dataset_page(page)
    shots.take(page, "dataset")
    page.locator(".st-key-error").get_by_text("Coverage error").click()
    missed = page.get_by_text("Missed: gold coverage error")
    missed.wait_for()  # the rerun's answer, not the click's echo
    settle(page)
    # ROUGE-1's failures: the stacked detector misses none of the sample's coverage errors.
    page.locator(".st-key-failures").click()
    page.get_by_role("option", name="ROUGE-1", exact=True).click()
    page.get_by_text("Failures of ROUGE-1 at its threshold").wait_for()
    page.locator("[class*=st-key-dataset-open-]").first.wait_for()
    settle(page)
    missed.evaluate("e => e.scrollIntoView({block: 'start'})")
    shots.take(page, "dataset-failures")
    page.locator("[class*=st-key-dataset-open-]").first.get_by_role("button", name="Inspect").click()
    page.wait_for_function("() => location.search.includes('example=')")
    page.wait_for_function(VERDICT_DONE, polling=100)
    page.locator("[data-score]").first.wait_for()
    settle(page)
    shots.take(page, "inspect-from-failures")
    page.go_back()
    missed.wait_for()
    settle(page)
    for tab in ("Examples", "Summaries", "Export"):
        page.get_by_role("tab", name=tab).click()
        # Only the open tab runs: wait for its rerun to fill the panel, not for the click's echo.
        page.wait_for_function(
            "name => [...document.querySelectorAll('[role=tabpanel]')].some(p => !p.hidden"
            " && p.getAttribute('aria-labelledby') && document.getElementById(p.getAttribute('aria-labelledby'))"
            "?.innerText.includes(name) && p.innerText.trim().length > 0)",
            arg=tab,
        )
        settle(page)
        page.evaluate("window.scrollTo(0, 0)")
        shots.take(page, f"dataset-{tab.lower()}")
    page.get_by_role("tab", name="Evaluation").click()
    page.locator(".st-key-error").get_by_text("Hallucination").click()  # back to the page's defaults
    settle(page)


def lab_states(page, shots: Shots) -> None:
    nav(page, "Error-injection lab")
    heading(page, "Error-injection lab").wait_for()
    page.locator("[data-score]").first.wait_for()
    settle(page)
    shots.take(page, "lab")
    page.get_by_role("button", name="Make a synthetic hallucination").click()
    page.get_by_text(re.compile("synthetic hallucination: removed")).first.wait_for()
    page.locator("[data-catches]").wait_for()
    page.locator("[data-score]").first.wait_for()
    settle(page)
    page.locator("[data-catches]").evaluate("e => e.scrollIntoView({block: 'center'})")
    shots.take(page, "lab-after")
    nav(page, "Inspect")
    page.wait_for_function(VERDICT_DONE, polling=100)
    settle(page)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--sizes", default="1280x800,1600x1000")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose app.py is served")
    args = parser.parse_args(argv)
    sizes = [dict(zip(("width", "height"), map(int, size.split("x")))) for size in args.sizes.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    shots = Shots(args.out)
    from playwright.sync_api import sync_playwright

    print(f"load average before: {os.getloadavg()}", flush=True)
    with (
        tempfile.TemporaryDirectory() as folder,
        serve(Path(folder), args.checkout) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for index, size in enumerate(sizes):
            context = browser.new_context(viewport=size)
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(url)
            if index == 0:
                scoring_state(page, shots, sizes)
            inspect_states(page, shots)
            dataset_states(page, shots)
            lab_states(page, shots)
            context.close()
        browser.close()
    print(f"{len(shots.written)} screenshots in {args.out}; load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
