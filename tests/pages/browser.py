"""Driving the real app in headless Chromium: start the server, wait for a run to end.

Shared by the browser tests (`test_browser.py`) and `bench/page_timing.py`. The browser is
Debian's chromium (`make test` installs it): Playwright's own browser download needs a CDN
these machines may not reach.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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
VIEWPORT = {"width": 1400, "height": 900}
# First runs load the sentence encoder and score on two shared cores: generous, since each wait
# ends as soon as its element appears.
TIMEOUT_MS = 120_000
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
def serve(folder: Path):
    """The real app on a free localhost port, with its own empty result cache in `folder`."""
    port = _free_port()
    log = folder / "streamlit.log"
    env = dict(os.environ, EXPLORER_CACHE_DIR=str(folder / "cache"))
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
    ]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def settle(page) -> None:
    """Wait for Streamlit to finish the current run: no "Running…" status, no stale elements."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && !document.querySelector('[data-stale=true]')"
    )
