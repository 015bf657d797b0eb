"""`explorer generate --base-url` against servers that misbehave (`tests.generation.hostile`):
every wait and every size is bounded, the key never comes back out, and a redirect is not
followed. Each case ends within seconds, on today's code and on code without the bounds (the
servers stop by themselves)."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from explorer.cli import EXIT_OK, EXIT_SERVER, EXIT_USAGE, main
from explorer.data.samples import load_samples
from explorer.generation.base import GenerationSettings
from explorer.generation.server import BYTES_AT_LEAST, BYTES_PER_TOKEN, ServerError, ServerGenerator
from tests.generation.hostile import DONE, event, gzip_bomb, hostile_server, stream
from tests.helpers import jsonl

KEY_VARIABLE = "EXPLORER_TEST_API_KEY"
KEY = "sk-TESTKEY-7f3c9d2e1b0a55e4d9c2a8zz"
EXAMPLE = load_samples()[0]
TOKENS = 10  # the answers below may hold at most 320 characters, and 106,496 bytes on the wire


def key_runs(text: str) -> list[str]:
    """The runs of 8 characters of the key in `text`."""
    return [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in text]


@pytest.fixture
def generate(tmp_path, monkeypatch, capsys):
    """Runs `explorer generate` on one example against `url`: (exit code, stderr, output or None, seconds)."""
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(jsonl(EXAMPLE.to_dict()), encoding="utf-8")

    def run(url: str, *options: str) -> tuple[int, str, str | None, float]:
        started = time.monotonic()
        arguments = ["generate", str(source), "--out", str(out), "--base-url", url, "--model", "m", "--quiet"]
        code = main([*arguments, "--api-key-env", KEY_VARIABLE, "--retries", "0", *options])
        seconds = time.monotonic() - started
        written = out.read_text(encoding="utf-8") if out.exists() else None
        return code, capsys.readouterr().err, written, seconds

    return run


def test_a_key_the_server_sends_back_is_masked_in_the_answer_even_split_over_two_pieces(generate):
    def echo(handler):
        handler.head()
        key = handler.key
        handler.body(event(f"The key is {key[:15]}") + event(f"{key[15:]}, as sent.") + DONE)

    with hostile_server(echo) as (url, requests):
        code, said, written, _ = generate(url)
    assert requests[0]["headers"]["authorization"] == f"Bearer {KEY}"  # sent to the server named
    assert code == EXIT_OK
    assert json.loads(written)["response"] == "The key is ***, as sent."
    assert "sent the API key (or part of it) back in its answer: it is masked as ***" in said
    assert not key_runs(written + said)


def test_an_error_that_quotes_part_of_the_key_is_printed_without_it(generate):
    def quote(handler):
        body = json.dumps({"error": {"message": f"no such key {KEY[:12]}...{KEY[-4:]}"}}).encode()
        handler.head(400, "application/json", Content_Length=str(len(body)))
        handler.body(body)

    with hostile_server(quote) as (url, _):
        code, said, written, _ = generate(url)
    assert code == EXIT_SERVER and written is None
    assert f"refused the request (HTTP 400): no such key ***...{KEY[-4:]}" in said and not key_runs(said)


def test_an_answer_that_never_ends_stops_at_the_deadline(generate):
    def forever(handler):
        handler.head()
        started = time.monotonic()
        while handler.going(started):
            handler.body(event("and "))
            time.sleep(0.3)

    with hostile_server(forever) as (url, _):
        code, said, written, seconds = generate(url, "--deadline", "2", "--timeout", "5")
    assert code == EXIT_SERVER and written is None and seconds < 6
    assert said.strip() == (
        f"explorer: {EXAMPLE.id}: no complete answer from {url} within 2 s (the deadline for one answer); "
        "nothing was written"
    )


def test_headers_sent_a_byte_at_a_time_stop_at_the_deadline(generate):
    def trickle(handler):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        started = time.monotonic()
        while handler.going(started):
            handler.body(b"a")
            time.sleep(0.5)

    with hostile_server(trickle) as (url, _):
        code, said, written, seconds = generate(url, "--deadline", "2", "--timeout", "5")
    assert code == EXIT_SERVER and written is None and seconds < 6
    assert "no complete answer" in said and "within 2 s" in said


@pytest.mark.parametrize("endless", [False, True], ids=["ten-megabytes", "endless"])
def test_an_answer_past_what_max_tokens_allows_is_refused_and_nothing_written(generate, endless):
    def flood(handler):
        handler.head()
        if not endless:  # a server that ignores max_tokens
            handler.body(event("word " * 2_000_000) + DONE)
            return
        started = time.monotonic()
        while handler.going(started):
            handler.body(event("word ") * 100)

    with hostile_server(flood) as (url, _):
        code, said, written, seconds = generate(url, "--max-new-tokens", str(TOKENS))
    assert code == EXIT_SERVER and written is None and seconds < 10
    limit = "106,496 bytes" if not endless else "320 characters"
    assert f"sent more than {limit} for an answer of at most {TOKENS} tokens" in said


def test_a_stream_of_nothing_but_comments_stops_at_the_byte_limit(generate):
    def pings(handler):
        handler.head()
        started = time.monotonic()
        while handler.going(started):
            handler.body(b": ping\n" * 1000)

    with hostile_server(pings) as (url, _):
        code, said, written, seconds = generate(url, "--max-new-tokens", str(TOKENS))
    assert code == EXIT_SERVER and written is None and seconds < 10
    assert f"sent more than {BYTES_AT_LEAST + BYTES_PER_TOKEN * TOKENS:,} bytes" in said


def test_a_gzip_bomb_is_stopped_after_a_megabyte_inflated():
    bomb = gzip_bomb(300)  # 300 MiB of zeros in about 300 KB

    def send(handler):
        handler.head(Content_Encoding="gzip", Content_Length=str(len(bomb)))
        handler.body(bomb)

    with hostile_server(send) as (url, _):
        generator = ServerGenerator(url, "m", retries=0)
        import httpx2  # noqa: F401 (imported before memory is traced: only the answer's memory counts)

        started = time.monotonic()
        tracemalloc.start()
        try:
            with pytest.raises(ServerError) as refused:
                generator.generate(EXAMPLE, GenerationSettings(max_new_tokens=TOKENS))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert time.monotonic() - started < 10
    assert str(refused.value).startswith(f"{url} sent more than 106,496 bytes for an answer of at most {TOKENS} tokens")
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    "content_type, body, expected",
    [
        (
            "text/html",
            b"<html><body>Welcome to nginx!</body></html>",
            "answered with text/html, not the event stream asked for",
        ),
        (
            "application/json",
            json.dumps({"choices": [{"message": {"role": "assistant", "content": "Not streamed."}}]}).encode(),
            "answered with application/json, not the event stream asked for",
        ),
        ("text/event-stream", DONE, "sent an empty answer: no text in its event stream"),
        ("text/event-stream", b"", "sent an empty answer: no text in its event stream"),
    ],
    ids=["html", "json", "done-only", "nothing"],
)
def test_an_answer_that_is_not_a_stream_or_is_empty_is_one_line_and_nothing_written(
    generate, content_type, body, expected
):
    def page(handler):
        handler.head(200, content_type, Content_Length=str(len(body)))
        handler.body(body)

    with hostile_server(page) as (url, _):
        code, said, written, _ = generate(url)
    assert code == EXIT_SERVER and written is None
    assert said.strip().startswith(f"explorer: {EXAMPLE.id}: {url} {expected}")
    assert said.strip().endswith("; nothing was written") and "\n" not in said.strip()


def test_a_body_that_cannot_be_inflated_is_one_line_and_nothing_written(generate):
    def garbled(handler):
        handler.head(Content_Encoding="gzip", Content_Length="20")
        handler.body(b"not gzip, not at all")

    with hostile_server(garbled) as (url, _):
        code, said, written, _ = generate(url)
    assert code == EXIT_SERVER and written is None
    assert said.startswith(f"explorer: {EXAMPLE.id}: {url} sent an answer that cannot be decoded: ")
    assert said.strip().endswith("; nothing was written") and "\n" not in said.strip()


def test_a_redirect_to_another_port_is_not_followed_and_carries_the_key_nowhere(monkeypatch):
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    with hostile_server(stream("From elsewhere.")) as (elsewhere, reached):

        def redirect(handler):
            handler.head(307, "text/plain", Location=f"{elsewhere}/chat/completions", Content_Length="0")

        with hostile_server(redirect) as (url, asked), pytest.raises(ServerError) as refused:
            ServerGenerator(url, "m", KEY_VARIABLE, retries=0).generate(EXAMPLE, GenerationSettings(max_new_tokens=8))
    assert len(asked) == 1 and reached == []
    assert str(refused.value) == (
        f"{url} redirected the request (HTTP 307) to {elsewhere}/chat/completions: not followed, so that the API "
        "key goes to the address given only; give the address it redirects to"
    )


def test_a_port_out_of_range_names_the_option_and_the_range(generate):
    code, said, written, _ = generate("http://127.0.0.1:99999/v1")
    assert code == EXIT_USAGE and written is None
    assert said.strip() == "explorer: server URL: port 99999 is not a port number: give one from 1 to 65535"


def test_a_server_model_named_like_a_local_folder_is_not_taken_for_an_input(tmp_path, monkeypatch, capsys):
    """`transformers serve` names its model by the folder it serves: writing beside it is fine."""
    monkeypatch.chdir(tmp_path)
    folder = Path("served-model")
    folder.mkdir()
    (tmp_path / "in.jsonl").write_text(jsonl(EXAMPLE.to_dict()), encoding="utf-8")
    with hostile_server(stream("Written.")) as (url, requests):
        arguments = ["generate", "in.jsonl", "--out", "served-model/out.jsonl", "--base-url", url]
        assert main([*arguments, "--model", str(folder), "--quiet"]) == EXIT_OK, capsys.readouterr().err
    assert requests[0]["body"]["model"] == "served-model"
    assert json.loads((folder / "out.jsonl").read_text(encoding="utf-8"))["response"] == "Written."
