"""How long each page takes to render in a new session once everything is cached (headless Chromium).

    python bench/page_timing.py [--repeats 3] [--pages inspect,dataset,lab] [--width 1280 --height 800]
                                [--checkout PATH]   # whose app; given twice (--checkout ../main-wt --checkout .),
                                                    # before and after in one run, their visits alternated
                                [--fresh]           # first visits on new servers instead
                                [--generate]        # Generate's first words on Inspect, on a new server
                                [--returning]       # new sessions in a browser that has the app's scripts cached

Starts the real app on a free port with its own result cache, opens every page once to fill
the caches (the dataset page's semantic alignment is scored in the background: that first
visit waits for it), then opens each page in `--repeats` fresh browser contexts (each a new
Streamlit session, the server's caches warm) and prints these figures per page:

- first paint: from navigation to the page's title on screen;
- verdict (Inspect only): from navigation to the example's verdict on screen, both error types
  (no "scoring…"): what a user opening Inspect waits for;
- complete: from navigation to the page's main content drawn (Inspect: highlighted words;
  dataset: the ROC chart and the AUC table; lab: the highlights before and after) and the
  script run finished (no "Running" status, no stale element).

With `--returning`, each new session is a new tab of one browser context that has visited the
app before (Streamlit's scripts in its HTTP cache, as on any visit after a user's first); by
default each is a new context, with an empty cache: a browser's first visit to the app.

With `--fresh`, each page is instead opened `--repeats` times, each time on a server of its own
just started with an empty result cache (what a first-time user meets), and one figure is
printed per page:

- Inspect: from navigation to the first example's verdict (both error types, no "scoring…");
- dataset: from navigation to the bundled sample's AUC table complete (no "scoring, n of N", no
  progress bar): seconds with the shipped scores, minutes where the detectors must score it;

and, before it, the first paint (the page's title on screen).

With `--generate`, Inspect is opened `--repeats` times on a server of its own (the packaged
model, loaded in the background once the page is drawn unless `EXPLORER_PRELOAD_GENERATOR=0`),
and two figures are printed: from a click on Generate as soon as the verdict shows to the first
words of the answer on screen (the model may still be loading), and, after Cancel, from a second
click to its first words (the model loaded).

The machine may be shared: the load average before and after is printed with the figures.
The browser is Debian's chromium (`CHROMIUM`, default /usr/bin/chromium) driven by Playwright.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.pages.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, serve, settle  # noqa: E402

PAGES = {
    # path: (title, selector of the page's main content)
    "inspect": ("Inspect an example", "[data-score]"),
    "dataset": ("Browse a test set", "[data-testid=stPlotlyChart] .main-svg"),
    "lab": ("Error-injection lab", "[data-score]"),
}
WAIT_MS = 600_000  # a warm-up visit may score the dataset in the background on shared cores


def visit(browser, url: str, page_name: str, viewport: dict, shared=None) -> tuple[float, float, float]:
    """Seconds to first paint, to the verdict (Inspect; NaN elsewhere) and to complete, in a new
    browser context (a new session)."""
    title, content = PAGES[page_name]
    context = shared or browser.new_context(viewport=viewport)
    context.set_default_timeout(WAIT_MS)
    tab = context.new_page()
    started = time.perf_counter()
    tab.goto(f"{url}/{page_name}", wait_until="commit")
    tab.locator("[data-testid=stHeading]", has_text=title).first.wait_for()
    first_paint = time.perf_counter() - started
    verdict = math.nan
    if page_name == "inspect":
        tab.wait_for_function(FRESH_DONE["inspect"], polling=50)
        verdict = time.perf_counter() - started
    tab.locator(content).first.wait_for()
    if page_name == "dataset":
        # Background scoring shows a progress bar until done; complete means every detector scored.
        tab.wait_for_function("() => !document.querySelector('[data-testid=stProgress]')")
    settle(tab)
    complete = time.perf_counter() - started
    (tab if shared else context).close()
    return first_paint, verdict, complete


# What a first visit waits for (`--fresh`): the page's answer, not only its first content.
FRESH_DONE = {
    "inspect": "() => document.querySelectorAll('[data-error-type]:not([data-pending]) [data-verdict]').length >= 2",
    "dataset": "() => document.querySelector('[data-testid=stTable]')"
    " && !document.querySelector('[data-testid=stProgress]')"
    " && !/scoring, \\d+ of \\d+/.test(document.body.innerText)",
}


def fresh_visit(browser, checkout: Path, page_name: str, viewport: dict) -> tuple[float, float]:
    """Seconds from navigation to the page's title and to `FRESH_DONE` on a server just started
    with an empty result cache; infinite when that takes longer than `WAIT_MS`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    title = PAGES[page_name][0]
    with tempfile.TemporaryDirectory() as folder, serve(Path(folder), checkout) as url:
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(WAIT_MS)
        tab = context.new_page()
        started = time.perf_counter()
        tab.goto(url if page_name == "inspect" else f"{url}/{page_name}", wait_until="commit")
        try:
            tab.locator("[data-testid=stHeading]", has_text=title).first.wait_for()
            first_paint = time.perf_counter() - started
            tab.wait_for_function(FRESH_DONE[page_name], polling=100)
            settle(tab)
        except PlaywrightTimeout:
            return math.inf, math.inf
        finally:
            context.close()
        return first_paint, time.perf_counter() - started


FIRST_WORDS = (
    "() => (document.querySelector('.st-key-inspect-stream [data-stream]')?.innerText || '').replace('…', '').trim()"
)


def generate_visit(browser, checkout: Path, viewport: dict) -> tuple[float, float]:
    """Seconds from a Generate click to the answer's first words on screen: the first click as
    soon as the verdict shows, then (after Cancel) a second one."""
    with tempfile.TemporaryDirectory() as folder, serve(Path(folder), checkout) as url:
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(WAIT_MS)
        tab = context.new_page()
        tab.goto(url)
        tab.wait_for_function(FRESH_DONE["inspect"], polling=100)
        figures = []
        for _ in range(2):
            settle(tab)
            started = time.perf_counter()
            tab.get_by_role("button", name="Generate").click()
            tab.wait_for_function(FIRST_WORDS, polling=50)
            figures.append(time.perf_counter() - started)
            tab.get_by_role("button", name="Cancel").click()
            tab.get_by_text("Cancelled: the response is as it was.").wait_for()
        context.close()
        return figures[0], figures[1]


def generate_figures(checkouts: list[Path], viewport: dict, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for checkout in checkouts:
            runs = [generate_visit(browser, checkout, viewport) for _ in range(repeats)]
            for index, what in enumerate(("as soon as the verdict shows", "the model loaded")):
                shown = ", ".join(f"{run[index]:.1f}" for run in sorted(runs, key=lambda run: run[index]))
                print(f"{checkout} Generate's first words, {what}, s: {shown} (load average {os.getloadavg()})")
        browser.close()


def fresh_figures(checkouts: list[Path], pages: list[str], viewport: dict, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for page_name in [p for p in pages if p in FRESH_DONE]:
            runs: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
            for _ in range(repeats):
                for checkout in checkouts:  # alternated, so that a burst of load hits each alike
                    runs[checkout].append(fresh_visit(browser, checkout, page_name, viewport))
            what = "first verdict" if page_name == "inspect" else "AUC table complete"
            for checkout, found in runs.items():
                for index, name in enumerate(("first paint", what)):
                    seconds = sorted(run[index] for run in found)
                    shown = ", ".join(f"{r:.1f}" if r < math.inf else f"over {WAIT_MS / 1000:.0f}" for r in seconds)
                    # The load moves a lot on a shared machine: it is printed with each figure.
                    print(f"{checkout} {page_name}: {name} on a fresh server, s: {shown} (load {os.getloadavg()})")
        browser.close()


def _figure(seconds: list[float]) -> str:
    if any(math.isnan(s) for s in seconds):
        return f"{'-':>22}"
    return f"{statistics.median(seconds):>10.2f} [{min(seconds):.2f}-{max(seconds):.2f}]"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        help="a checkout whose app.py is served (default: this one); given twice or more, each gets its own "
        "server and their visits alternate, so that before and after meet the same load",
    )
    parser.add_argument("--fresh", action="store_true", help="first visits, each on a new server (Inspect, dataset)")
    parser.add_argument("--generate", action="store_true", help="Generate's first words, each on a new server")
    parser.add_argument(
        "--returning", action="store_true", help="each session a new tab of one browser context (its cache warm)"
    )
    args = parser.parse_args(argv)
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    checkouts = [path.resolve() for path in args.checkout or [ROOT]]
    viewport = {"width": args.width, "height": args.height}
    from playwright.sync_api import sync_playwright

    print(f"apps of {', '.join(map(str, checkouts))}; load average before: {os.getloadavg()}")
    if args.fresh:
        fresh_figures(checkouts, pages, viewport, args.repeats)
        return 0
    if args.generate:
        generate_figures(checkouts, viewport, args.repeats)
        return 0
    with contextlib.ExitStack() as stack, sync_playwright() as playwright:
        urls = {}
        for checkout in checkouts:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            urls[checkout] = stack.enter_context(serve(folder, checkout))
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        shared = browser.new_context(viewport=viewport) if args.returning else None
        for checkout, url in urls.items():
            for page_name in pages:
                warm = visit(browser, url, page_name, viewport, shared)
                print(f"{checkout} {page_name}: warm-up visit {warm[2]:.1f} s (fills the caches)")
        runs: dict[tuple[Path, str], list] = {(checkout, page): [] for checkout in checkouts for page in pages}
        for page_name in pages:
            for _ in range(args.repeats):
                for checkout, url in urls.items():  # alternated, so that a burst of load hits each alike
                    runs[checkout, page_name].append(visit(browser, url, page_name, viewport, shared))
        browser.close()
    print(
        f"\n{'page':<10}{'first paint (s)':>22}{'verdict (s)':>22}{'complete (s)':>22}"
        f"   ({args.repeats} new sessions each, caches warm{', browser cache too' if args.returning else ''}; "
        "median [min-max])"
    )
    for checkout in checkouts:
        if len(checkouts) > 1:
            print(checkout)
        for page_name in pages:
            found = runs[checkout, page_name]
            print(f"{page_name:<10}" + "".join(_figure([r[i] for r in found]) for i in range(3)))
    print(f"\nload average after: {os.getloadavg()} (2 cores; other jobs may share them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
