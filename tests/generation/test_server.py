"""`explorer generate --base-url`: NPOV answers from a real OpenAI-compatible server.

The server is `transformers serve` (transformers' own OpenAI-compatible server, the `serving`
extra) started on a free loopback port on the packaged SmolLM2's dequantized float32 folder, the
same weights the in-process generator loads. It applies the same chat template to the same user
message and decodes greedily at temperature 0, so its answers must equal the in-process
generator's token for token. A model the server does not have is asked of it too; the other
failures (nothing listening, no answer, an error answer) use tiny local HTTP servers
(`tests.generation.canned`) that answer as a failing server would, or not at all.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from explorer.cli import EXIT_SERVER, EXIT_USAGE, main
from explorer.data.samples import load_samples
from explorer.generation.base import GenerationSettings
from explorer.generation.npov import NpovGenerator
from explorer.generation.server import ServerError, ServerGenerator, public_url
from explorer.models.language_model import dequantized_folder, load_language_model
from tests.generation.canned import NEVER, canned_server
from tests.helpers import jsonl, stop

KEY_VARIABLE = "EXPLORER_TEST_API_KEY"
KEY = "sk-test-6f1d2c9a8b7e4f30a1b2c3d4e5f60718"
TOKENS = 24  # enough to tell two answers apart; each costs about 0.1 s on one CPU thread
STARTUP_SECONDS = 120


def two_examples():
    """Two sample examples with different queries, so the two answers differ."""
    samples = load_samples()
    first = samples[0]
    second = next(e for e in samples if e.query != first.query)
    return [first, second]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def in_process():
    return NpovGenerator(load_language_model())  # no adapter: the server has none either


@pytest.fixture(scope="module")
def served(in_process, tmp_path_factory):
    """(base URL, model name) of `transformers serve` on the in-process model's own weights."""
    pytest.importorskip("fastapi", reason="transformers serve needs the `serving` extra (in the test extra)")
    folder = dequantized_folder()  # written when `in_process` loaded the model
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    command = [str(Path(sys.executable).with_name("transformers")), "serve", str(folder)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--dtype", "float32"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    with log.open("w") as output:
        server = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if server.poll() is not None:
                pytest.fail(f"transformers serve exited with {server.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"transformers serve did not start within {STARTUP_SECONDS} s:\n{log.read_text()}")
                time.sleep(0.25)  # nothing to wait on but the port
        yield f"http://127.0.0.1:{port}/v1", str(folder)
    finally:
        stop(server)


def write_input(tmp_path: Path) -> Path:
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(*(e.to_dict() for e in two_examples())), encoding="utf-8")
    return source


def everything_written(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


@pytest.mark.slow
def test_server_answers_equal_the_in_process_greedy_answers_and_the_key_stays_secret(
    served, in_process, tmp_path, monkeypatch, capsys
):
    url, model = served
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    out = tmp_path / "out.jsonl"
    arguments = ["generate", str(write_input(tmp_path)), "--out", str(out), "--base-url", url, "--model", model]
    assert main([*arguments, "--max-new-tokens", str(TOKENS), "--api-key-env", KEY_VARIABLE, "--quiet"]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    greedy = GenerationSettings(max_new_tokens=TOKENS)
    expected = [in_process.generate(example, greedy) for example in two_examples()]
    assert [r["response"] for r in records] == expected
    assert expected[0] != expected[1] and all(expected)
    assert records[0]["generated_by"] == {"server": url, "model": model}
    assert records[0]["generation"] == greedy.to_dict() and "labels" not in records[0]
    # The key went to the server only: not into the output, the messages, or any cache file.
    said = capsys.readouterr()
    assert KEY not in said.out + said.err + everything_written(tmp_path)


@pytest.mark.slow
def test_streams_and_stops_when_cancelled(served):
    generator = ServerGenerator(*served)
    example, settings = two_examples()[0], GenerationSettings(max_new_tokens=TOKENS)
    pieces = []
    full = generator.generate(example, settings, on_text=pieces.append)
    assert "".join(pieces).strip() == full
    seen = []
    cut = generator.generate(example, settings, on_text=seen.append, cancelled=lambda: bool(seen))
    assert len(cut) < len(full) and full.startswith(cut)


@pytest.mark.slow
def test_a_model_the_server_does_not_have_is_one_line_and_nothing_written(served, tmp_path, capsys):
    url, _ = served
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    arguments = ["generate", str(write_input(tmp_path)), "--out", str(out), "--base-url", url, "--model", "no-such"]
    assert main([*arguments, "--retries", "0", "--quiet"]) == EXIT_SERVER
    error = capsys.readouterr().err.strip()
    first = two_examples()[0].id
    assert error.startswith(f"explorer: {first}: {url} refused the request (HTTP 400): ")
    assert "'no-such'" in error and "nothing was written" in error and "\n" not in error
    assert out.read_text() == "previous\n"


def test_a_server_that_is_down_is_one_line_and_nothing_written(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    out = tmp_path / "out.jsonl"
    arguments = ["generate", str(write_input(tmp_path)), "--out", str(out), "--base-url", url, "--model", "m"]
    assert main([*arguments, "--retries", "0", "--quiet"]) == EXIT_SERVER
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"explorer: {two_examples()[0].id}: cannot reach {url} (1 try): ")
    assert "refused" in error.lower() and "\n" not in error
    assert not out.exists() and not list(tmp_path.glob(".out.jsonl.*"))


def test_a_silent_server_times_out_after_bounded_retries_with_the_named_key_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-this-one")  # read by the client unless a key is given
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    with canned_server(NEVER) as (url, requests):
        arguments = ["generate", str(write_input(tmp_path)), "--out", str(out), "--base-url", url, "--model", "m"]
        code = main([*arguments, "--api-key-env", KEY_VARIABLE, "--timeout", "1", "--retries", "1", "--quiet"])
    assert code == EXIT_SERVER and time.monotonic() - started < 15
    error = capsys.readouterr().err.strip()
    assert error == f"explorer: {two_examples()[0].id}: no answer from {url} within 1 s (2 tries); nothing was written"
    assert len(requests) == 2 and not out.exists()
    assert {r["headers"]["authorization"] for r in requests} == {f"Bearer {KEY}"}
    sent = requests[0]["body"]
    assert sent["temperature"] == 0 and sent["max_tokens"] == 400 and sent["stream"] is True
    assert sent["messages"][0]["content"].endswith("}") and sent["model"] == "m"


def test_an_error_answer_is_the_servers_words_without_the_key(monkeypatch):
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    example = two_examples()[0]
    # vLLM's answer to an input beyond the model's context.
    too_long = "This model's maximum context length is 2048 tokens. However, you requested 2300 tokens."
    answer = {"object": "error", "message": too_long, "type": "BadRequestError", "code": 400}
    with canned_server(400, answer) as (url, _), pytest.raises(ServerError) as refused:
        ServerGenerator(url, "m", KEY_VARIABLE, retries=0).generate(example)
    assert str(refused.value) == f"{url} refused the request (HTTP 400): {too_long.rstrip('.')}"
    # A server that quotes the key back: the message leaves it out.
    with (
        canned_server(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}) as (url, _),
        pytest.raises(ServerError) as refused,
    ):
        ServerGenerator(url, "m", KEY_VARIABLE, retries=0).generate(example)
    assert str(refused.value) == f"{url} refused the API key (HTTP 401)"
    with (
        canned_server(500, {"detail": f"crashed while reading {KEY}"}) as (url, _),
        pytest.raises(ServerError) as failed,
    ):
        ServerGenerator(url, "m", KEY_VARIABLE, retries=0).generate(example)
    assert str(failed.value) == f"{url} failed (HTTP 500, 1 try): crashed while reading ***"


def test_options_that_cannot_work_are_usage_errors_that_never_echo_a_key(tmp_path, monkeypatch, capsys):
    source, out = write_input(tmp_path), tmp_path / "out.jsonl"
    base = ["generate", str(source), "--out", str(out), "--quiet"]
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    unused = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]  # never reached
    cases = {
        "that environment variable is not set": [*unused, "--api-key-env", KEY_VARIABLE],
        "not the key itself": [*unused, "--api-key-env", KEY],
        "only with --base-url": ["--api-key-env", KEY_VARIABLE],
        "give an http:// or https:// address": ["--base-url", "ftp://host/v1", "--model", "m"],
        "name the model the server serves": unused[:2],
        "not to one on a server": [*unused, "--adapter", "none"],
    }
    for message, options in cases.items():
        assert main([*base, *options]) == EXIT_USAGE, options
        error = capsys.readouterr().err
        assert message in error and KEY not in error, (options, error)
    with pytest.raises(SystemExit) as refused:  # a number out of range is argparse's usage error
        main([*base, *unused, "--retries", "11"])
    assert (
        refused.value.code == EXIT_USAGE and "--retries: 11 is out of range: must be [0, 10]" in capsys.readouterr().err
    )
    assert not out.exists()


def test_records_name_the_server_without_its_credentials():
    assert public_url("https://user:secret@models.example.org:8443/v1/?token=abc#x") == (
        "https://models.example.org:8443/v1"
    )
    assert ServerGenerator("http://u:p@[::1]:8000/v1/", "m").generated_by == {
        "server": "http://[::1]:8000/v1",
        "model": "m",
    }
