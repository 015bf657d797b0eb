"""Local chat-completions servers that misbehave on purpose: each writes its answer by hand on
the raw socket, so that it can trickle headers, stream forever, flood, send a gzip bomb, echo
the key or redirect. Every one stops by itself within `LONGEST` seconds (or when the test ends),
so that a client with no bound of its own (today's main, for the tests that must fail there)
still ends its test in bounded time."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LONGEST = 20  # seconds a misbehaving answer goes on at most


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    answer: Callable[[Handler], None]
    requests: list[dict]
    stop: threading.Event

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.requests.append(
            {"path": self.path, "headers": headers, "body": json.loads(self.rfile.read(length) or b"{}")}
        )
        self.close_connection = True
        try:
            self.answer(self)
        except OSError:  # the client hung up: what it is meant to do
            pass

    do_GET = do_POST

    def log_message(self, *args):
        pass

    @property
    def key(self) -> str:
        return self.requests[-1]["headers"].get("authorization", "").removeprefix("Bearer ")

    def head(self, status: int = 200, content_type: str = "text/event-stream", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()

    def body(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def going(self, started: float) -> bool:
        return not self.stop.is_set() and time.monotonic() - started < LONGEST


def event(text: str | None = None, **fields) -> bytes:
    """One server-sent event of a chat-completions stream: a piece of text, or `fields` as given."""
    chunk = fields or {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


DONE = b"data: [DONE]\n\n"


def stream(*pieces: str) -> Callable[[Handler], None]:
    """A well-formed answer of `pieces`."""

    def answer(handler: Handler) -> None:
        handler.head()
        handler.body(b"".join(event(piece) for piece in pieces) + DONE)

    return answer


@contextlib.contextmanager
def hostile_server(answer: Callable[[Handler], None]) -> Iterator[tuple[str, list[dict]]]:
    """(base URL, the requests received so far) of a server on a free loopback port whose
    every answer is `answer(handler)`."""
    handler = type("Hostile", (Handler,), {"answer": staticmethod(answer), "requests": [], "stop": threading.Event()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler.requests
    finally:
        handler.stop.set()
        server.shutdown()
        server.server_close()


def gzip_bomb(inflated_mib: int) -> bytes:
    """A gzip body of `inflated_mib` MiB of zeros: about a thousandth of that on the wire."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(inflated_mib)) + packer.flush()
