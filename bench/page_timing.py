"""How long each page takes to render in a new session once everything is cached (headless Chromium).

    python bench/page_timing.py [--repeats 3] [--pages inspect,dataset,lab] [--width 1280 --height 800]
                                [--checkout PATH]   # another checkout's app, e.g. a worktree of main: before/after
                                [--fresh]           # first visits on new servers instead

Starts the real app on a free port with its own result cache, opens every page once to fill
the caches (the dataset page's semantic alignment is scored in the background: that first
visit waits for it), then opens each page in `--repeats` fresh browser contexts (each a new
Streamlit session, the server's caches warm) and prints two figures per page:

- first paint: from navigation to the page's title on screen;
- complete: from navigation to the page's main content drawn (Inspect: highlighted words;
  dataset: the ROC chart and the AUC table; lab: the highlights before and after) and the
  script run finished (no "Running" status, no stale element).

With `--fresh`, each page is instead opened `--repeats` times, each time on a server of its own
just started with an empty result cache (what a first-time user meets), and one figure is
printed per page:

- Inspect: from navigation to the first example's verdict (both error types, no "scoring…");
- dataset: from navigation to the bundled sample's AUC table complete (no "scoring, n of N", no
  progress bar): seconds with the shipped scores, minutes where the detectors must score it.

The machine may be shared: the load average before and after is printed with the figures.
The browser is Debian's chromium (`CHROMIUM`, default /usr/bin/chromium) driven by Playwright.
"""

from __future__ import annotations

import argparse
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


def visit(browser, url: str, page_name: str, viewport: dict) -> tuple[float, float]:
    """Seconds to first paint and to complete, in a new browser context (a new session)."""
    title, content = PAGES[page_name]
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(WAIT_MS)
    tab = context.new_page()
    started = time.perf_counter()
    tab.goto(f"{url}/{page_name}", wait_until="commit")
    tab.locator("[data-testid=stHeading]", has_text=title).first.wait_for()
    first_paint = time.perf_counter() - started
    tab.locator(content).first.wait_for()
    if page_name == "dataset":
        # Background scoring shows a progress bar until done; complete means every detector scored.
        tab.wait_for_function("() => !document.querySelector('[data-testid=stProgress]')")
    settle(tab)
    complete = time.perf_counter() - started
    context.close()
    return first_paint, complete


# What a first visit waits for (`--fresh`): the page's answer, not only its first content.
FRESH_DONE = {
    "inspect": "() => document.querySelectorAll('[data-error-type]:not([data-pending]) [data-verdict]').length >= 2",
    "dataset": "() => document.querySelector('[data-testid=stTable]')"
    " && !document.querySelector('[data-testid=stProgress]')"
    " && !/scoring, \\d+ of \\d+/.test(document.body.innerText)",
}


def fresh_visit(browser, checkout: Path, page_name: str, viewport: dict) -> float:
    """Seconds from navigation to `FRESH_DONE` on a server just started with an empty result
    cache; infinite when that takes longer than `WAIT_MS`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with tempfile.TemporaryDirectory() as folder, serve(Path(folder), checkout) as url:
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(WAIT_MS)
        tab = context.new_page()
        started = time.perf_counter()
        tab.goto(url if page_name == "inspect" else f"{url}/{page_name}", wait_until="commit")
        try:
            tab.wait_for_function(FRESH_DONE[page_name], polling=100)
            settle(tab)
        except PlaywrightTimeout:
            return math.inf
        finally:
            context.close()
        return time.perf_counter() - started


def fresh_figures(checkout: Path, pages: list[str], viewport: dict, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for page_name in [p for p in pages if p in FRESH_DONE]:
            runs = sorted(fresh_visit(browser, checkout, page_name, viewport) for _ in range(repeats))
            what = "first verdict" if page_name == "inspect" else "AUC table complete"
            shown = ", ".join(f"{r:.1f}" if r < math.inf else f"over {WAIT_MS / 1000:.0f}" for r in runs)
            # The load moves a lot on a shared machine: it is printed with each figure.
            print(f"{page_name}: {what} on a fresh server, s: {shown} (load average {os.getloadavg()})")
        browser.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose app.py is served")
    parser.add_argument("--fresh", action="store_true", help="first visits, each on a new server (Inspect, dataset)")
    args = parser.parse_args(argv)
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    viewport = {"width": args.width, "height": args.height}
    from playwright.sync_api import sync_playwright

    print(f"app of {args.checkout}; load average before: {os.getloadavg()}")
    if args.fresh:
        fresh_figures(args.checkout, pages, viewport, args.repeats)
        return 0
    with (
        tempfile.TemporaryDirectory() as folder,
        serve(Path(folder), args.checkout) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for page_name in pages:
            warm = visit(browser, url, page_name, viewport)
            print(f"{page_name}: warm-up visit {warm[1]:.1f} s (fills the caches)")
        print(f"\n{'page':<10}{'first paint (s)':>22}{'complete (s)':>22}   ({args.repeats} new sessions, caches warm)")
        for page_name in pages:
            runs = [visit(browser, url, page_name, viewport) for _ in range(args.repeats)]
            paint = [r[0] for r in runs]
            done = [r[1] for r in runs]
            print(
                f"{page_name:<10}{statistics.median(paint):>10.2f} [{min(paint):.2f}-{max(paint):.2f}]"
                f"{statistics.median(done):>12.2f} [{min(done):.2f}-{max(done):.2f}]"
            )
        browser.close()
    print(f"\nload average after: {os.getloadavg()} (2 cores; other jobs may share them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
