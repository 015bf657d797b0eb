"""A generation on a worker thread, as Inspect's Generate button runs it: one at a time, the text
as it comes, Cancel that does not wait for a server that has not answered."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from explorer.data.samples import load_samples
from explorer.generation.backends import Backend, load_generator
from explorer.generation.background import start
from explorer.generation.base import GenerationSettings
from tests.generation.canned import NEVER, canned_server

SETTINGS = GenerationSettings(max_new_tokens=12)


@pytest.fixture
def executor():
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield pool


def test_a_second_start_joins_the_running_one_and_cancel_does_not_wait_for_the_server(executor):
    example = load_samples()[0]
    with canned_server(NEVER) as (url, requests):
        backend = Backend(model="m", base_url=url, retries=0)
        running = start(None, example, backend, SETTINGS, executor)
        assert start(running, example, backend, SETTINGS, executor) is running  # the second click
        deadline = time.monotonic() + 10
        while not requests:  # the request is out: the server holds it
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert not running.finished and running.writing_since is not None  # a server loads nothing here
        running.cancel()
        assert running.finished and running.outcome() is None
        again = start(running, example, backend, SETTINGS, executor)
        assert again is not running
        again.cancel()
    assert len(requests) <= 2


@pytest.mark.slow
def test_the_packaged_model_streams_the_answer_it_records(executor):
    example = load_samples()[0]
    run = start(None, example, Backend(), SETTINGS, executor)
    made = run.outcome()
    assert run.started <= run.writing_since  # "Loading the model" until then, "Writing" after
    generator = load_generator(Backend())  # the same, loaded once per process
    assert made.response == run.text.strip() == generator.generate(example, SETTINGS)
    assert made.extra["generated_by"] == generator.generated_by and made.labels.is_empty()
