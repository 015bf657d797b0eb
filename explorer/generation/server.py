"""NPOV responses from a model behind an OpenAI-compatible chat-completions server.

vLLM, Ollama, llama.cpp's server, TGI and `transformers serve` all answer
`POST {base_url}/chat/completions`. The server applies the model's chat template itself, so it
gets the NPOV task as chat messages (`explorer.text.prompts.npov_messages`: the same user turn
the in-process generator wraps in the template). Answers are always streamed: the Inspect page
shows them as they come, and a cancelled answer closes the connection (the server stops).

The request goes through `httpx2` directly, not the `openai` client: a server may be hostile
(the app can be shared), and bounding it needs what that client keeps to itself: the bytes read
and inflated, one deadline over the whole answer, and the redirects (`explorer.generation.stream`).
Every wait and size is bounded: each read by the time-out, the whole answer (all tries together)
by the deadline, its text by `CHARACTERS_PER_TOKEN` characters a token asked for, its bytes on
the wire and inflated by `BYTES_PER_TOKEN` a token. A redirect is not followed: the key goes to
the address given and nowhere else. Connection failures, time-outs before the answer starts,
408, 409, 429 and 5xx are retried (the `openai` client's rule), after 0.5, 1, 2... s (at most
8) or what `Retry-After` asks, up to 60 s.

Greedy decoding is asked for as temperature 0 (every server above then decodes greedily);
sampling passes temperature, top-p and the seed on. The server decides whether an input fits
its model's context; when it does not, its own message says so.

The API key is read from the environment variable the command line names (or given by the app:
`explorer.generation.servers`) and is held only by the generator: it is not part of
`generated_by`, and every run of 8 or more of its characters is masked (`***`) in the server's
messages and in the answer itself, with a warning that the server sent it back. Failures are
`ServerError`s whose message says in one line what happened and what the server said.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from explorer.console import MAX_RETRIES
from explorer.data.example import Example
from explorer.generation.base import DEFAULT_SETTINGS, GenerationSettings, Generator
from explorer.generation.stream import MASK, Budget, Deadline, KeyMask, MaskedText, TooMuchError, events
from explorer.text.prompts import npov_messages

DEFAULT_TIMEOUT = 60.0  # seconds to connect, and to wait for each piece of the answer
DEFAULT_RETRIES = 2  # the openai client's default: connection errors, 408, 409, 429 and 5xx
DEFAULT_DEADLINE = 600.0  # seconds for a whole answer, all tries together
# A token of any tokenizer in use is far shorter than 32 characters, and a streamed piece (one
# token, in JSON with its metadata) far shorter than 4 KiB: beyond these the server is not
# honouring max_tokens.
CHARACTERS_PER_TOKEN = 32
BYTES_PER_TOKEN = 4_096
BYTES_AT_LEAST = 65_536  # the stream's opening and closing events, an error's body
RETRIED = frozenset({408, 409, 429})
MAX_RETRY_AFTER = 60.0
_SERVER_SAID_CHARS = 300
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
log = logging.getLogger(__name__)


class ServerError(Exception):
    """The server could not be reached, did not answer in time, or answered with an error."""


def public_url(base_url: str) -> str:
    """`base_url` without credentials (user:password@), query or fragment: what may be shown and recorded."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def check_server_options(
    base_url: str,
    model: str,
    api_key_env: str | None,
    timeout: float,
    retries: int,
    deadline: float = DEFAULT_DEADLINE,
) -> None:
    """Raises `ValueError` naming the option that cannot work, before anything is sent."""
    import httpx2

    example = "give an http:// or https:// address, e.g. http://127.0.0.1:8000/v1"
    try:
        parts = urlsplit(base_url)
    except ValueError as error:  # a bracket left open
        raise ValueError(f"server URL: {str(error).lower()}: {example}") from None
    try:
        port = parts.port  # urllib checks the port only when asked
    except ValueError:
        port = None
    host_and_port = parts.netloc.rpartition("@")[2].rpartition("]")[2]  # after an IPv6 address's colons
    given = host_and_port.rpartition(":")[2] if ":" in host_and_port else ""
    if port == 0 or (port is None and given):
        raise ValueError(f"server URL: port {given} is not a port number: give one from 1 to 65535")
    try:
        httpx2.URL(base_url)
    except httpx2.InvalidURL as error:
        raise ValueError(f"server URL {public_url(base_url)!r}: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"server URL {public_url(base_url)!r}: {example}")
    if not model.strip():
        raise ValueError("no model name: name the model the server serves")
    if api_key_env is not None:
        if not _ENV_NAME.fullmatch(api_key_env):
            # Not echoed: what was given may be the key itself.
            raise ValueError(
                "the API key variable must be the name of an environment variable (letters, digits, _), "
                "not the key itself"
            )
        if not os.environ.get(api_key_env):
            raise ValueError(f"API key variable {api_key_env}: that environment variable is not set or empty")
    if not timeout > 0:
        raise ValueError(f"the time-out must be more than 0 seconds, got {timeout:g}")
    if not deadline > 0:
        raise ValueError(f"the deadline must be more than 0 seconds, got {deadline:g}")
    if not 0 <= retries <= MAX_RETRIES:
        raise ValueError(f"retries must be between 0 and {MAX_RETRIES}, got {retries}")


class ServerGenerator(Generator):
    """Writes NPOV responses through an OpenAI-compatible server's chat-completions endpoint.

    The key is `api_key_env`'s value (the command line) or `api_key` itself (the app), never both.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        deadline: float = DEFAULT_DEADLINE,
    ):
        check_server_options(base_url, model, api_key_env, timeout, retries, deadline)
        if api_key_env and api_key:
            raise ValueError("give the API key or the variable that holds it, not both")
        self.url, self.model = public_url(base_url), model.strip()
        self.timeout, self.retries, self.deadline = timeout, retries, deadline
        key = os.environ[api_key_env] if api_key_env else api_key or None
        self._mask = KeyMask(key)
        self._endpoint = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Accept": "text/event-stream", "Accept-Encoding": "identity"}
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self.echoed_key = False  # the server sent the key (or a run of it) back in an answer

    @property
    def generated_by(self) -> dict[str, str]:
        return {"server": self.url, "model": self.model}

    def generate(
        self,
        example: Example,
        settings: GenerationSettings = DEFAULT_SETTINGS,
        *,
        on_text: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> str:
        sampling = {"temperature": settings.temperature, "top_p": settings.top_p}
        body = {
            "model": self.model,
            "messages": npov_messages(example),
            "max_tokens": settings.max_new_tokens,
            "seed": settings.seed,
            "stream": True,
            **(sampling if settings.sample else {"temperature": 0}),
        }
        tokens = settings.max_new_tokens
        budget = Budget(bytes=BYTES_AT_LEAST + BYTES_PER_TOKEN * tokens, characters=CHARACTERS_PER_TOKEN * tokens)
        deadline = Deadline(self.deadline)
        try:
            answer = self._answer(body, budget, deadline, on_text, cancelled or (lambda: False))
        finally:
            deadline.close()
        if answer.echoed:
            self.echoed_key = True
            log.warning(
                "%s: %s sent the API key (or part of it) back in its answer: it is masked as %s",
                example.id,
                self.url,
                MASK,
            )
        return answer.handed.strip()

    def _answer(self, body, budget: Budget, deadline: Deadline, on_text, cancelled) -> _Answer:
        import httpx2

        tries = 0
        with httpx2.Client(follow_redirects=False, limits=httpx2.Limits(max_keepalive_connections=0)) as client:
            while True:
                tries += 1
                request = client.build_request(
                    "POST",
                    self._endpoint,
                    json=body,
                    headers=self._headers,
                    timeout=httpx2.Timeout(min(self.timeout, max(deadline.left(), 0.001))),
                    extensions={"trace": deadline.trace},
                )
                try:
                    response = client.send(request, stream=True)
                    try:
                        if not self._retried(response.status_code) or tries > self.retries:
                            return self._read(response, budget, deadline, tries, on_text, cancelled)
                        wait = _retry_after(response.headers.get("retry-after"))
                    finally:
                        response.close()  # mid-answer too: the server stops
                except httpx2.RequestError as error:
                    if deadline.passed:
                        raise ServerError(self._late(deadline)) from None
                    if isinstance(error, httpx2.DecodingError) or tries > self.retries:
                        raise ServerError(self._unreached(error, tries)) from None
                    wait = None
                delay = min(0.5 * 2 ** (tries - 1), 8.0) if wait is None else wait
                if delay >= deadline.left():
                    raise ServerError(self._late(deadline))
                time.sleep(delay)

    @staticmethod
    def _retried(status: int) -> bool:
        return status in RETRIED or status >= 500

    def _read(self, response, budget: Budget, deadline: Deadline, tries: int, on_text, cancelled) -> _Answer:
        """The answer from a response whose headers came; raises `ServerError` for anything else."""
        import httpx2

        try:
            if response.status_code >= 300:
                raise ServerError(self._refused(response, tries, budget))
            kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind != "text/event-stream":
                raise ServerError(
                    f"{self.url} answered with {kind or 'no content type'}, not the event stream asked for: check "
                    "that it is the server's OpenAI-compatible /v1 address"
                )
            answer = _Answer(MaskedText(self._mask), on_text)
            for data in events(response, budget):
                if cancelled():
                    return answer  # the connection is closed then: the server stops
                if data.strip() == "[DONE]":
                    break
                self._take(data, answer, budget)
            if deadline.passed:  # a body that ends with the connection ends when the watchdog shuts it
                raise ServerError(self._late(deadline))
            answer.finish()
        except TooMuchError as error:
            raise ServerError(
                f"{self.url} sent {error} for an answer of at most {budget.characters // CHARACTERS_PER_TOKEN} "
                "tokens: it does not keep to max_tokens; nothing of it is kept"
            ) from None
        except httpx2.RequestError as error:
            if deadline.passed:
                raise ServerError(self._late(deadline)) from None
            if isinstance(error, httpx2.TimeoutException):
                raise ServerError(
                    f"{self.url} stopped answering for {self.timeout:g} s in the middle of its answer"
                ) from None
            if isinstance(error, httpx2.DecodingError):
                raise ServerError(
                    f"{self.url} sent an answer that cannot be decoded: {self._said(str(error))}"
                ) from None
            raise ServerError(
                f"{self.url} broke off its answer: {self._said(str(error) or type(error).__name__)}"
            ) from None
        if not answer.masked.text.strip():
            raise ServerError(f"{self.url} sent an empty answer: no text in its event stream")
        return answer

    def _take(self, data: str, answer: _Answer, budget: Budget) -> None:
        """One event's piece of text into `answer`; raises `ServerError` for an error event."""
        try:
            chunk = json.loads(data)
        except ValueError:
            chunk = None
        if not isinstance(chunk, dict):
            raise ServerError(f"{self.url} did not answer as an OpenAI-compatible server: {self._said(data)}")
        if chunk.get("error"):  # an error sent in the middle of the stream
            raise ServerError(f"{self.url} failed while answering: {self._said(chunk)}")
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return
        delta = choices[0].get("delta") if isinstance(choices[0].get("delta"), dict) else {}
        if delta.get("refusal"):
            raise ServerError(f"{self.url}: the model refused to answer: {self._said(delta['refusal'])}")
        if choices[0].get("finish_reason") == "content_filter":
            raise ServerError(f"{self.url} stopped the answer with its content filter")
        text = delta.get("content")
        if isinstance(text, str) and text:
            if len(answer.masked.text) + len(text) > budget.characters:
                raise TooMuchError(f"more than {budget.characters:,} characters")
            answer.add(text)

    def _refused(self, response, tries: int, budget: Budget) -> str:
        """One line for an answer that is an error or a redirect."""
        status = response.status_code
        if status < 400:
            target = response.headers.get("location", "")
            where = public_url(str(response.url.join(target))) if target else "nowhere"
            return (
                f"{self.url} redirected the request (HTTP {status}) to {where}: not followed, so that the API key "
                "goes to the address given only; give the address it redirects to"
            )
        if status in (401, 403):
            # A server may quote part of a wrong key back: its message is left out.
            return f"{self.url} refused the API key (HTTP {status})"
        said = self._said(_error_body(response, budget))
        if status == 404:
            return (
                f"{self.url} has no model {self.model!r}, or is not an OpenAI-compatible /v1 address (HTTP 404: {said})"
            )
        if status < 500 and status not in RETRIED:
            return f"{self.url} refused the request (HTTP {status}): {said}"
        return f"{self.url} failed (HTTP {status}, {_tries(tries)}): {said}"

    def _unreached(self, error: Exception, tries: int) -> str:
        import httpx2

        if isinstance(error, httpx2.TimeoutException):
            return f"no answer from {self.url} within {self.timeout:g} s ({_tries(tries)})"
        if isinstance(error, httpx2.DecodingError):
            return f"{self.url} sent an answer that cannot be decoded: {self._said(str(error))}"
        cause = error.__cause__ or error
        return f"cannot reach {self.url} ({_tries(tries)}): {self._said(str(cause) or type(cause).__name__)}"

    def _late(self, deadline: Deadline) -> str:
        return f"no complete answer from {self.url} within {deadline.seconds:g} s (the deadline for one answer)"

    def _said(self, body: object) -> str:
        """The server's words in one line of at most a few hundred characters, without the key."""
        if isinstance(body, dict):
            inner = body.get("error", body)
            body = (inner.get("message") or inner.get("detail") or inner) if isinstance(inner, dict) else inner
            if isinstance(body, dict):
                body = body.get("detail", body)
        text = self._mask(" ".join(str(body).split()).rstrip("."))
        return text if len(text) <= _SERVER_SAID_CHARS else text[: _SERVER_SAID_CHARS - 1] + "…"


class _Answer:
    """The text of one answer as it comes, masked, handed on to `on_text` as it is safe to."""

    def __init__(self, masked: MaskedText, on_text: Callable[[str], None] | None):
        self.masked, self._on_text, self._handed = masked, on_text, []

    def add(self, text: str) -> None:
        self._hand(self.masked.add(text))

    def finish(self) -> None:
        self._hand(self.masked.finish())

    def _hand(self, text: str) -> None:
        if text:
            self._handed.append(text)
            if self._on_text is not None:
                self._on_text(text)

    @property
    def handed(self) -> str:
        return "".join(self._handed)

    @property
    def echoed(self) -> bool:
        return self.masked.echoed


def _error_body(response, budget: Budget) -> object:
    """An error answer's JSON, or its text: at most `BYTES_AT_LEAST` bytes of it."""
    read = b""
    for chunk in response.iter_bytes():
        read += chunk
        if len(read) > BYTES_AT_LEAST or response.num_bytes_downloaded > budget.bytes:
            break
    text = read[:BYTES_AT_LEAST].decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds <= MAX_RETRY_AFTER else None


def _tries(tries: int) -> str:
    return f"{tries} tr{'y' if tries == 1 else 'ies'}"
