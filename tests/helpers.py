"""Small builders shared by the tests."""

import json
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from explorer.data.example import Example, Perspective

ROOT = Path(__file__).resolve().parent.parent  # the checkout

# Groups of tests that `make test` runs on one worker each, one after another (tests/conftest.py
# puts them at the front of the run).
# The browser tests: one app server and one Chromium, where each worker started its own and
# the two servers fought the other tests for the two cores.
BROWSER_GROUP = pytest.mark.xdist_group("browser")
# Tests that encode the sample's train and dev splits with the packaged MiniLM (training the
# alignment classifier, its ablation, its tests on the sample): on one worker the process's
# shared encoder keeps the embeddings, so the sample is encoded once. Each ran 10-25 s alone;
# one after another, the first still does, the others take a second or two.
SAMPLE_MINILM = pytest.mark.xdist_group("sample-minilm")


def make_example(response: str, *perspectives: tuple[str, list[str]], example_id: str = "ex", **fields) -> Example:
    return Example(
        id=example_id,
        query=fields.pop("query", "Should sugary drinks be taxed?"),
        perspectives=tuple(Perspective(name, tuple(arguments)) for name, arguments in perspectives),
        response=response,
        **fields,
    )


def jsonl(*records) -> str:
    """JSON Lines text; a str record is written as is (for malformed lines)."""
    return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records)


def recorded_train_set(
    record: dict, perspectrum_file: Path, built: Sequence[Path] = (), add_options=None
) -> list[Example]:
    """The training set a foreign-trained model's record says it was trained on: its recorded
    command's options (`add_options`: the command's own, as `foreign_training` takes them), read
    with today's Perspectrum build and, for each recorded path, today's build of the same name
    among `built` (the team-written corpora)."""
    from explorer.training.data import foreign_training

    options = shlex.split(record["command"])[3:]  # after "python -m <module>"
    options[options.index("--data") + 1] = str(perspectrum_file)
    by_name = {path.name: str(path) for path in built}
    options = [by_name.get(Path(option).name, option) if option.endswith(".jsonl") else option for option in options]
    if "--dev" in options:  # the dev file does not change what is trained on
        del options[options.index("--dev") : options.index("--dev") + 2]
    return foreign_training("", perspectrum_file.parent, options, add_options).train_set


def stop(process: subprocess.Popen) -> None:
    """End a server a test started: politely, then by force after 15 s."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
