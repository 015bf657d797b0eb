"""Tiny local HTTP servers standing in for a failing chat-completions server: each records the
requests it gets, then answers a fixed status and JSON body, or never answers."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NEVER = None  # the status of a server that never answers
SILENCE_SECONDS = 30  # how long a silent server holds a request at most


class _Canned(BaseHTTPRequestHandler):
    status: int | None = NEVER
    body: dict = {}
    requests: list[dict]
    release: threading.Event

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.requests.append({"headers": headers, "body": json.loads(self.rfile.read(length) or b"{}")})
        if self.status is NEVER:
            self.release.wait(SILENCE_SECONDS)
            return
        payload = json.dumps(self.body).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):  # no request lines on stderr
        pass


@contextlib.contextmanager
def canned_server(status: int | None, body: dict | None = None) -> Iterator[tuple[str, list[dict]]]:
    """(base URL, the requests received so far) of a server on a free loopback port."""
    handler = type("Handler", (_Canned,), {"status": status, "body": body or {}, "requests": []})
    handler.release = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler.requests
    finally:
        handler.release.set()
        server.shutdown()
        server.server_close()
