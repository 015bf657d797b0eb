from pathlib import Path

import pytest

from explorer.data.example import Example
from tests.helpers import make_example


def pytest_collection_modifyitems(items):
    """Each `xdist_group` (tests/helpers.py) in one block at the front of the run, so that under
    `make test` its tests run on one worker, one after another.

    `make test` runs pytest-xdist with `--dist worksteal`: each worker starts on one contiguous
    half of the collection, and a worker whose half is done takes tests from the end of the
    other's. The front blocks are the first worker's first tests, done before any could be taken.
    (`--dist loadgroup` would keep the groups by itself, but it hands every other test out one
    at a time, alternating between workers, so each module's model fixtures were loaded on both
    workers, and under pytest 9 it ignores the groups anyway: xdist 3.8 appends the group to
    `item._nodeid`, which pytest 9 no longer reads.)
    """
    blocks: dict[str, list] = {}
    rest = []
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is None:
            rest.append(item)
        else:
            blocks.setdefault(str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")), []).append(item)
    items[:] = [item for block in blocks.values() for item in block] + rest


@pytest.fixture(autouse=True, scope="session")
def isolated_session_cache(tmp_path_factory):
    """No test reads or writes the user's result cache, module-scoped app fixtures included
    (they are set up before any function-scoped fixture); and no app a test runs loads the
    generator before its Generate is pressed (700 MB and a core for seconds, in every process)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLORER_CACHE_DIR", str(tmp_path_factory.mktemp("session-cache")))
        patch.setenv("EXPLORER_PRELOAD_GENERATOR", "0")
        yield


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """Each test starts from an empty result cache."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def sugar_example() -> Example:
    return make_example(
        "Sugar taxes reduce consumption. Critics say taxes hurt poor families and raise prices.",
        ("pro", ["Taxes reduce sugar consumption.", "Revenue funds health programs."]),
        ("con", ["Taxes hurt poor families."]),
    )


@pytest.fixture
def record() -> dict:
    return {
        "id": "r1",
        "topic": "sugar tax",
        "query": "Should sugary drinks be taxed?",
        "perspectives": [
            {"name": "pro", "arguments": ["Taxes reduce sugar consumption."]},
            {"name": "con", "arguments": ["Taxes hurt poor families."]},
        ],
        "response": "Taxes reduce sugar consumption, but they hurt poor families.",
        "labels": {"hallucination": False, "coverage_error": False, "kind": "organic"},
        "split": "test",
    }


def _perspectrum_folder() -> Path:
    """The shared Perspectrum folder; the test is skipped without the shared data."""
    from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir

    try:
        return shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def perspectrum_file(tmp_path_factory) -> Path:
    """Today's Perspectrum build (`explorer build-data`, seed 0) as a file; skipped without the shared data."""
    from explorer.data import perspectrum
    from explorer.data.jsonl import write_jsonl

    path = tmp_path_factory.mktemp("perspectrum") / "perspectrum.jsonl"
    write_jsonl(perspectrum.build(folder=_perspectrum_folder()), path)
    return path


@pytest.fixture(scope="session")
def written_file(tmp_path_factory) -> Path:
    """Today's team-written corpus build (`python -m explorer.data.written --out`); skipped without the shared data."""
    from explorer.data import written
    from explorer.data.jsonl import write_jsonl

    path = tmp_path_factory.mktemp("written") / "written.jsonl"
    write_jsonl(written.check(written.corpus_files(), _perspectrum_folder()).examples, path)
    return path


@pytest.fixture(scope="session")
def written_second_file(tmp_path_factory) -> Path:
    """Today's build of the team's second-recipe corpus
    (`python -m explorer.data.written training_data/written/second/*.jsonl --out`); skipped without the shared data."""
    from explorer.data import written
    from explorer.data.jsonl import write_jsonl

    path = tmp_path_factory.mktemp("written") / "written-second.jsonl"
    files = written.corpus_files(written.SECOND_DIR)
    write_jsonl(written.check(files, _perspectrum_folder()).examples, path)
    return path


@pytest.fixture(scope="session")
def answers_file(tmp_path_factory) -> Path:
    """Today's build of the assistant-style answers that invent arguments only
    (`python -m explorer.data.perspectrum_answers --invented arguments --out`); skipped without the shared data."""
    from explorer.data import perspectrum_answers
    from explorer.data.jsonl import write_jsonl

    path = tmp_path_factory.mktemp("answers") / "perspectrum-v2u.jsonl"
    write_jsonl(perspectrum_answers.build(folder=_perspectrum_folder(), invented="arguments"), path)
    return path
