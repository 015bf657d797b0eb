"""One chat-completions answer read off the network with every wait and every size bounded, and
the API key kept out of what comes back.

`explorer.generation.server` asks; this module reads. A hostile or broken server can otherwise
hold a worker or its memory without end: trickle its headers a byte at a time, send one piece of
an event stream every few seconds forever, ignore `max_tokens`, or send a small gzip body that
inflates to gigabytes. So:

- `Deadline`: one limit on the whole answer, all tries together. A watchdog thread shuts the
  connection's socket when it passes, which ends any read blocked on it, headers included (the
  per-read time-out of `httpx2` bounds each read, not their sum).
- `Budget`: at most `bytes` read off the wire and at most `bytes` after decompression
  (`httpx2` inflates gzip and deflate in pieces of at most 1 MiB, so a bomb is stopped after one
  piece past the cap), and at most `characters` of answer text.
- `events`: the `data:` payloads of a server-sent event stream, read through the budget.
- `KeyMask`: every run of 8 or more characters of the key (the whole key when it is shorter)
  replaced with `***`, in the server's messages and (through `MaskedText`, which hands on only
  the part of the answer that no later piece can turn into part of the key) in the answer.
"""

from __future__ import annotations

import codecs
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

MASK = "***"
KEY_PIECE = 8  # characters: a run of the key this long is taken for the key


class TooMuchError(Exception):
    """The answer went past its `Budget`; the message says which limit."""


class Deadline:
    """The time left for one answer; past it, every connection opened under it is shut."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._ends = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.passed = False
        self._watchdog = threading.Timer(seconds, self._shut)
        self._watchdog.daemon = True
        self._watchdog.start()

    def left(self) -> float:
        return max(0.0, self._ends - time.monotonic())

    def trace(self, event: str, info: dict) -> None:
        """`httpx2`'s `trace` request extension: keeps the socket of each connection opened."""
        if not event.endswith((".connect_tcp.complete", ".connect_unix_socket.complete", ".start_tls.complete")):
            return
        sock = info["return_value"].get_extra_info("socket")
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _shut_down(sock)

    def _shut(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                _shut_down(sock)

    def close(self) -> None:
        self._watchdog.cancel()


def _shut_down(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv on it
    except OSError:  # closed already
        pass


@dataclass(frozen=True)
class Budget:
    bytes: int  # read off the wire, and again after decompression
    characters: int  # of answer text


def events(response, budget: Budget) -> Iterator[str]:
    """The data of each event of `response`'s server-sent event stream, in order; raises
    `TooMuchError` once the stream goes past `budget.bytes` on the wire or decompressed."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    inflated, pending, data = 0, "", []
    for chunk in response.iter_bytes():
        inflated += len(chunk)
        if response.num_bytes_downloaded > budget.bytes or inflated > budget.bytes:
            raise TooMuchError(f"more than {budget.bytes:,} bytes")
        *lines, pending = (pending + decoder.decode(chunk)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for line in lines:
            if line:
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
            elif data:
                yield "\n".join(data)
                data = []
    if pending.startswith("data:"):
        data.append(pending[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)


class KeyMask:
    """Takes the key, and any run of `KEY_PIECE` or more of its characters, out of text."""

    def __init__(self, key: str | None):
        self.width = min(KEY_PIECE, len(key)) if key else 0
        self._pieces = {key[i : i + self.width] for i in range(len(key) - self.width + 1)} if key else set()

    def covered(self, text: str) -> list[bool]:
        """Which characters of `text` belong to a run of the key."""
        covered = [False] * len(text)
        if self._pieces:
            for start in range(len(text) - self.width + 1):
                if text[start : start + self.width] in self._pieces:
                    covered[start : start + self.width] = [True] * self.width
        return covered

    def __call__(self, text: str) -> str:
        return _masked(text, self.covered(text))


def _masked(text: str, covered: list[bool]) -> str:
    out, previous = [], False
    for character, hidden in zip(text, covered):
        if not hidden:
            out.append(character)
        elif not previous:
            out.append(MASK)
        previous = hidden
    return "".join(out)


class MaskedText:
    """An answer arriving in pieces, handed on masked (`KeyMask`) as soon as no later piece can
    make its end part of the key: `KeyMask.width - 1` characters are held back, and a run of the
    key at the end is held until it ends. Joined, what `add` and `finish` return is the whole
    answer masked."""

    def __init__(self, mask: KeyMask):
        self.mask = mask
        self.text = ""
        self.echoed = False  # the key, or a run of it, was in the text
        self._done = 0  # characters handed on: the text before them is final

    def add(self, piece: str) -> str:
        self.text += piece
        return self._hand_on(len(self.text) - max(self.mask.width - 1, 0))

    def finish(self) -> str:
        return self._hand_on(len(self.text))

    def _hand_on(self, end: int) -> str:
        # Windows that start before `_done` may still reach past it.
        base = max(0, self._done - max(self.mask.width - 1, 0))
        covered = self.mask.covered(self.text[base:])
        if end < len(self.text):
            while end > self._done and covered[end - 1 - base]:
                end -= 1
        if end <= self._done:
            return ""
        part = covered[self._done - base : end - base]
        self.echoed = self.echoed or any(part)
        handed = _masked(self.text[self._done : end], part)
        self._done = end
        return handed
