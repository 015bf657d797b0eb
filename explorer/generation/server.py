"""NPOV responses from a model behind an OpenAI-compatible chat-completions server.

vLLM, Ollama, llama.cpp's server, TGI and `transformers serve` all answer
`POST {base_url}/chat/completions`; the `openai` client package speaks to each of them. The
server applies the model's chat template itself, so it gets the NPOV task as chat messages
(`explorer.text.prompts.npov_messages`: the same user turn the in-process generator wraps in
the template). Answers are always streamed: the Inspect page shows them as they come, a
cancelled answer closes the connection (the server stops generating), and the time-out bounds
the wait for each piece rather than the whole answer, so a long answer from a slow server is
not cut off while a server that stops answering is.

Greedy decoding is asked for as temperature 0 (every server above then decodes greedily);
sampling passes temperature, top-p and the seed on. The server decides whether an input fits
its model's context; when it does not, its own message says so.

The API key is read from the environment variable the user names, when the client is built, and
is held only by the client: it is not part of `generated_by`, of any message (an error that
quotes it has it replaced) or of anything written. A server started without a key ignores the
placeholder sent in its place. Failures are `ServerError`s whose message says in one line what
happened and what the server said.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from explorer.console import MAX_RETRIES
from explorer.data.example import Example
from explorer.generation.base import DEFAULT_SETTINGS, GenerationSettings, Generator
from explorer.text.prompts import npov_messages

DEFAULT_TIMEOUT = 60.0  # seconds to connect, and to wait for each piece of the answer
DEFAULT_RETRIES = 2  # the openai client's default: connection errors, 408, 409, 429 and 5xx
NO_KEY = "none"  # the client insists on a key; servers started without one ignore it
_SERVER_SAID_CHARS = 300
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


def check_server_options(base_url: str, model: str, api_key_env: str | None, timeout: float, retries: int) -> None:
    """Raises `ValueError` naming the option that cannot work, before anything is sent."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"server URL {public_url(base_url)!r}: give an http:// or https:// address, e.g. http://127.0.0.1:8000/v1"
        )
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
    if not 0 <= retries <= MAX_RETRIES:
        raise ValueError(f"retries must be between 0 and {MAX_RETRIES}, got {retries}")


class ServerGenerator(Generator):
    """Writes NPOV responses through an OpenAI-compatible server's chat-completions endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
    ):
        from openai import OpenAI

        check_server_options(base_url, model, api_key_env, timeout, retries)
        self.url, self.model, self.timeout, self.retries = public_url(base_url), model.strip(), timeout, retries
        key = os.environ[api_key_env] if api_key_env else None
        self._key = key  # only to take it out of the server's messages
        self._client = OpenAI(base_url=base_url, api_key=key or NO_KEY, timeout=timeout, max_retries=retries)

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
        import openai

        sampling = {"temperature": settings.temperature, "top_p": settings.top_p}
        options = sampling if settings.sample else {"temperature": 0}
        parts: list[str] = []
        try:
            stream = self._client.chat.completions.create(
                model=self.model,
                messages=npov_messages(example),
                max_tokens=settings.max_new_tokens,
                seed=settings.seed,
                stream=True,
                **options,
            )
            with stream:
                for chunk in stream:
                    if cancelled is not None and cancelled():
                        break  # leaving the block closes the connection: the server stops
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    refusal = getattr(choice.delta, "refusal", None)
                    if refusal:
                        raise ServerError(f"{self.url}: the model refused to answer: {self._said(refusal)}")
                    if choice.finish_reason == "content_filter":
                        raise ServerError(f"{self.url} stopped the answer with its content filter")
                    if choice.delta.content:
                        parts.append(choice.delta.content)
                        if on_text is not None:
                            on_text(choice.delta.content)
        except (openai.OpenAIError, ValueError) as error:  # ValueError: a stream that is not JSON
            raise ServerError(self._explain(error)) from error
        return "".join(parts).strip()

    def _explain(self, error: Exception) -> str:
        """One line: what went wrong, and what the server said."""
        import openai

        tries = f"{self.retries + 1} tr{'y' if self.retries == 0 else 'ies'}"
        if isinstance(error, openai.APITimeoutError):
            return f"no answer from {self.url} within {self.timeout:g} s ({tries})"
        if isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error
            return f"cannot reach {self.url} ({tries}): {self._said(str(cause) or type(cause).__name__)}"
        if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
            # A server may quote part of a wrong key back: its message is left out.
            return f"{self.url} refused the API key (HTTP {error.status_code})"
        if isinstance(error, openai.NotFoundError):
            return (
                f"{self.url} has no model {self.model!r}, or is not an OpenAI-compatible /v1 address "
                f"(HTTP 404: {self._said(error.body)})"
            )
        if isinstance(error, openai.APIStatusError) and error.status_code < 500:
            return f"{self.url} refused the request (HTTP {error.status_code}): {self._said(error.body)}"
        if isinstance(error, openai.APIStatusError):
            return f"{self.url} failed (HTTP {error.status_code}, {tries}): {self._said(error.body)}"
        if isinstance(error, openai.APIError):  # an error sent in the middle of the stream
            return f"{self.url} failed while answering: {self._said(error.body or error.message)}"
        return f"{self.url} did not answer as an OpenAI-compatible server: {self._said(str(error))}"

    def _said(self, body: object) -> str:
        """The server's words in one line of at most a few hundred characters, without the key."""
        if isinstance(body, dict):
            inner = body.get("error", body)
            body = (inner.get("message") or inner.get("detail") or inner) if isinstance(inner, dict) else inner
            if isinstance(body, dict):
                body = body.get("detail", body)
        text = " ".join(str(body).split()).rstrip(".")
        if self._key:
            text = text.replace(self._key, "***")
        return text if len(text) <= _SERVER_SAID_CHARS else text[: _SERVER_SAID_CHARS - 1] + "…"
