"""One response written on a worker thread, for a page that must stay responsive meanwhile.

The worker builds the generator (loading an in-process model can take seconds) and writes; the
page reads the text so far as often as it redraws, may cancel, and takes the outcome once the
work is done. Nothing here touches Streamlit: the worker thread must not.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Executor

from explorer.data.example import Example
from explorer.generation.backends import Backend, load_generator
from explorer.generation.base import GenerationSettings, with_generated_response


class BackgroundGeneration:
    """A response to `example` being written by `backend` on `executor`'s thread."""

    def __init__(self, example: Example, backend: Backend, settings: GenerationSettings, executor: Executor):
        self.example, self.backend, self.settings = example, backend, settings
        self.started = time.monotonic()
        self._parts: list[str] = []
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self.echoed_key = False
        self._future = executor.submit(self._work)

    def _work(self) -> Example | None:
        if self._cancelled.is_set():  # cancelled while it waited for the thread
            return None
        generator = load_generator(self.backend)
        response = generator.generate(self.example, self.settings, on_text=self._add, cancelled=self._cancelled.is_set)
        self.echoed_key = getattr(generator, "echoed_key", False)  # a server sent the key back (masked)
        return with_generated_response(self.example, response, generator.generated_by, self.settings)

    def _add(self, text: str) -> None:
        with self._lock:
            self._parts.append(text)

    @property
    def text(self) -> str:
        """What has been written so far."""
        with self._lock:
            return "".join(self._parts)

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def finished(self) -> bool:
        """Done, or cancelled: a cancelled generation is not waited for. A server that has not
        answered yet holds its thread until it does or times out; what comes then is dropped."""
        return self._cancelled.is_set() or self._future.done()

    def outcome(self) -> Example | None:
        """The example with its generated response, or None when cancelled (a cut answer is not
        what was asked for); waits for the work to finish and raises what it raised."""
        return None if self._cancelled.is_set() else self._future.result()


def start(
    running: BackgroundGeneration | None,
    example: Example,
    backend: Backend,
    settings: GenerationSettings,
    executor: Executor,
) -> BackgroundGeneration:
    """A new generation, unless `running` still runs: then `running` itself, so that a second
    click while one runs starts nothing."""
    if running is not None and not running.finished:
        return running
    return BackgroundGeneration(example, backend, settings, executor)
