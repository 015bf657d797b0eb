"""Driving the real app in headless Chromium: start the server, wait for a run to end.

Shared by the browser tests (`test_browser.py`) and `bench/page_timing.py`. The browser is
Debian's chromium (`make test` installs it): Playwright's own browser download needs a CDN
these machines may not reach.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.helpers import stop

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags chromium keeps dialling Google services, and each
# refused connection is logged.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Every page must work on a laptop screen: the tests drive it at 1280 x 800.
VIEWPORT = {"width": 1280, "height": 800}
# First runs load the sentence encoder and score on two shared cores, beside the other pytest
# worker and the Generate test's language model: generous, since each wait ends as soon as its
# element appears (on a fresh clone a fresh server's verdict took over 2 minutes beside Generate).
TIMEOUT_MS = 300_000
STARTUP_SECONDS = 90


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_healthy(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the app exited with code {server.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)  # polling a server that is starting: nothing on a page to wait on yet
    raise RuntimeError(f"the app did not answer within {STARTUP_SECONDS} s:\n{log.read_text(errors='replace')}")


@contextlib.contextmanager
def serve(folder: Path, checkout: Path = ROOT, *, options: Sequence[str] = (), env: Mapping[str, str] | None = None):
    """The real app of `checkout` on a free localhost port, with its own empty result cache in `folder`;
    `options` go to `streamlit run` after the defaults (a later option wins), `env` to its environment."""
    port = _free_port()
    log = folder / "streamlit.log"
    env = dict(os.environ, EXPLORER_CACHE_DIR=str(folder / "cache"), **(env or {}))
    command = [
        str(Path(sys.executable).with_name("streamlit")),
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        *options,
    ]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=checkout, env=env, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, server, log)
        yield url
    finally:
        stop(server)


def settle(page) -> None:
    """Wait for Streamlit to finish the current run: no "Running…" status, no stale elements,
    no placeholder still waiting for its element."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')"
        " && !document.querySelector('[data-stale=true]')"
        " && !document.querySelector('[data-testid=stSkeleton]')"
    )


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.mouse.move(0, 0)  # no hover toolbar or tooltip left over from the last click
    page.screenshot(path=str(path))
    return path


def heading(page, text: str):
    return page.locator("[data-testid=stHeading]", has_text=text)


def word_scores(page) -> list[float]:
    return [float(value) for value in page.locator("[data-score]").evaluate_all("s => s.map(e => e.dataset.score)")]


def choose_sample(page, example_id: str) -> None:
    """Pick a shipped sample in Inspect's picker and wait until the page shows it (its id in the URL)."""
    settle(page)
    # Typed into the picker's own input, not wherever the focus is: one run showed an edited
    # example (its URL `?shared=`) after a click on the picker and typing.
    page.locator(".st-key-inspect-sample input").press_sequentially(example_id)
    page.get_by_role("option", name=re.compile(rf"{re.escape(example_id)}(?![\w-])")).first.click()
    page.wait_for_url(re.compile(rf"[?&]example={re.escape(example_id)}(&|$)"))
    settle(page)


def paste_record(page, record: dict) -> None:
    page.locator("[data-testid=stExpander]", has_text="Paste JSON").locator("summary").click()
    area = page.get_by_label("One example as JSON")
    area.fill(json.dumps(record))
    # Committed first (Ctrl+Enter, as the box's hint says): a click right after typing can reach
    # the server before the box's new value on a loaded machine, and "Load JSON" then reads "".
    area.press("Control+Enter")
    settle(page)
    page.get_by_role("button", name="Load JSON").click()


def remove_detector(page, title: str) -> None:
    page.locator("[data-testid=stSidebar]").get_by_role("button", name=f"Remove {title}").click()


def open_dataset_page(page) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_text("Browse a test set").click()
    page.get_by_text(re.compile(r"\d+ of \d+ examples match the filters")).wait_for()
    page.locator("[data-testid=stPlotlyChart]").first.wait_for()
    settle(page)


def stop_background_scoring(page) -> None:
    """Stop the dataset page's background scoring and wait until it has stopped. A test that
    leaves a job scoring holds the server's one job worker (and a core) for the tests after it:
    the 60 fresh examples of one such test kept the server busy for a minute."""
    for button in page.get_by_role("button", name="Stop", exact=True).all():
        button.click()
    page.get_by_role("button", name="Resume", exact=True).first.wait_for()


def add_detector(page, title: str) -> None:
    page.locator("[data-testid=stSidebar]").get_by_role("combobox").first.click()
    page.get_by_role("option", name=title, exact=True).click()  # not "... (tuned matcher)"
    page.keyboard.press("Escape")
