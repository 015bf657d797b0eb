from pathlib import Path

import pytest

from explorer.data.example import Example
from tests.helpers import make_example

try:
    from _pytest.nodeid import NodeId  # pytest >= 9
except ImportError:  # pytest 8: pytest-xdist's own group suffix works
    NodeId = None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Make `--dist loadgroup` keep each `xdist_group` on one worker (tests/helpers.py names the
    groups). pytest-xdist 3.8 tells the scheduler a test's group by appending "@group" to
    `item._nodeid`, which pytest 9 no longer reads (the id is `item._id`): every test went to any
    worker. This appends it where pytest 9 keeps the id, before xdist's own hook runs."""
    if NodeId is None or not config.getvalue("loadgroup"):
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        groups = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
        if groups and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(groups))}")


@pytest.fixture(autouse=True, scope="session")
def isolated_session_cache(tmp_path_factory):
    """No test reads or writes the user's result cache, module-scoped app fixtures included
    (they are set up before any function-scoped fixture)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLORER_CACHE_DIR", str(tmp_path_factory.mktemp("session-cache")))
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


@pytest.fixture(scope="session")
def perspectrum_file(tmp_path_factory) -> Path:
    """Today's Perspectrum build (`explorer build-data`, seed 0) as a file; skipped without the shared data."""
    from explorer.data import perspectrum
    from explorer.data.jsonl import write_jsonl
    from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir

    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    path = tmp_path_factory.mktemp("perspectrum") / "perspectrum.jsonl"
    write_jsonl(perspectrum.build(folder=folder), path)
    return path


@pytest.fixture(scope="session")
def written_file(tmp_path_factory) -> Path:
    """Today's team-written corpus build (`python -m explorer.data.written --out`); skipped without the shared data."""
    from explorer.data import written
    from explorer.data.jsonl import write_jsonl
    from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir

    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    path = tmp_path_factory.mktemp("written") / "written.jsonl"
    write_jsonl(written.check(written.corpus_files(), folder).examples, path)
    return path
