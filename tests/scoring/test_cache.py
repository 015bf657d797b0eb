import json
import logging
import os
import resource
import subprocess
import sys

import pytest

from explorer.cli import main
from explorer.detectors.base import DetectorResult
from explorer.detectors.rouge import RougeDetector
from explorer.scoring.cache import ResultCache, result_key, write_seed_bundle
from explorer.scoring.runner import score_example
from tests.faults import explorer, unwritable_folder
from tests.helpers import ROOT, jsonl


class CountingRouge(RougeDetector):
    """ROUGE made cacheable and counting its calls, to observe the cache."""

    name = "counting-rouge"
    cache_results = True

    def __init__(self, variant: str = "a"):
        super().__init__()
        self.calls = 0
        self.variant = variant

    def config(self):
        return {"variant": self.variant}

    def score(self, example, progress=None):
        self.calls += 1
        return super().score(example)


def test_a_cached_result_is_returned_without_recomputing(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    first = score_example(sugar_example, [detector], cache)
    second = score_example(sugar_example, [detector], cache)
    assert detector.calls == 1
    assert first.computed == {"counting-rouge"} and second.computed == set()
    assert second.results["counting-rouge"] == first.results["counting-rouge"]


def test_changing_the_example_or_the_config_misses(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    score_example(sugar_example, [detector], cache)
    assert cache.get(detector, sugar_example.replace(response="Different.")) is None
    assert cache.get(CountingRouge(variant="b"), sugar_example) is None
    assert cache.get(detector, sugar_example.replace(topic="labels and topic do not matter")) is not None


def test_a_corrupt_entry_is_dropped_and_recomputed(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    score_example(sugar_example, [detector], cache)
    (entry,) = (tmp_path / "results").rglob("*.json")
    entry.write_text("{truncated", encoding="utf-8")
    assert cache.get(detector, sugar_example) is None
    score_example(sugar_example, [detector], cache)
    assert detector.calls == 2


def test_seed_bundles_serve_shipped_results(tmp_path, sugar_example):
    detector = CountingRouge()
    result = detector.score(sugar_example)
    bundle = tmp_path / "seed.jsonl"
    assert write_seed_bundle([(detector, sugar_example, result)], bundle) == 1
    assert json.loads(bundle.read_text())["key"] == result_key(detector, sugar_example)
    cache = ResultCache(tmp_path / "empty", seeds=[bundle])
    assert cache.get(detector, sugar_example) == result


def test_results_survive_serialization(sugar_example):
    result = RougeDetector().score(sugar_example)
    assert DetectorResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


# Issue 14, problem 3: the cache is validated and best-effort.


def cached_entry(tmp_path, sugar_example):
    """A cache holding one result of `CountingRouge`, and that result's file."""
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    score_example(sugar_example, [detector], cache)
    (entry,) = (tmp_path / "results").rglob("*.json")
    return cache, detector, entry


def with_score(entry, **scores):
    record = json.loads(entry.read_text(encoding="utf-8"))
    record["scores"].update(scores)
    return json.dumps(record)


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda entry: entry.write_bytes(b'{"detector": "\xff\xfe"}'), "not JSON"),
        (lambda entry: entry.write_text('{"detector": "counting-rouge"}'), "not a detector result"),
        (lambda entry: entry.write_text(with_score(entry, hallucination=float("nan"))), "got NaN"),
        (lambda entry: entry.write_text(with_score(entry, coverage=42.0)), "got 42.0"),
        (lambda entry: entry.write_text(with_score(entry, hallucination="abc")), 'got "abc"'),
        (lambda entry: entry.write_text(with_score(entry, per_perspective={"pro": 0.1})), "misses the perspective"),
    ],
)
def test_an_unusable_entry_is_a_miss_recomputed_overwritten_and_warned_once(
    tmp_path, sugar_example, caplog, damage, reason
):
    cache, detector, entry = cached_entry(tmp_path, sugar_example)
    good = entry.read_text(encoding="utf-8")
    damage(entry)
    with caplog.at_level(logging.WARNING, logger="explorer.scoring.cache"):
        scored = score_example(sugar_example, [detector], cache)
        score_example(sugar_example.replace(id="other"), [detector], cache)
    assert detector.calls == 2 and scored.computed == {"counting-rouge"}
    assert json.loads(entry.read_text(encoding="utf-8")) == json.loads(good)  # overwritten with a good result
    (warning,) = caplog.messages
    assert str(entry) in warning and reason in warning


def test_a_folder_in_an_entrys_place_is_a_miss_and_the_run_goes_on(tmp_path, sugar_example, caplog):
    cache, detector, entry = cached_entry(tmp_path, sugar_example)
    entry.unlink()
    entry.mkdir()
    (entry / "inside").write_text("x")
    with caplog.at_level(logging.WARNING, logger="explorer.scoring.cache"):
        for _ in range(3):
            scored = score_example(sugar_example, [detector], cache)
            assert scored.results and not scored.errors
    assert detector.calls == 4
    assert len(caplog.messages) == 2  # one for reading, one for writing, not one per example
    assert "Is a directory" in caplog.messages[0] and "not cached" in caplog.messages[1]
    assert not list(entry.parent.glob("*.tmp"))


# Issue 28: an entry is read only when it is a regular file. The old code waited for ever on a
# FIFO and read /dev/zero until the memory ran out, so each case runs in a capped process.
AN_ENTRY_THAT_IS_NOT_A_FILE = """
import logging, os, sys
from pathlib import Path
from tests.helpers import make_example
from tests.scoring.test_cache import cached_entry
example = make_example("Taxes cut sugar.", ("pro", ["Taxes cut sugar."]))
cache, detector, entry = cached_entry(Path(sys.argv[1]), example)
entry.unlink()
os.mkfifo(entry) if sys.argv[2] == "fifo" else entry.symlink_to("/dev/zero")
logging.basicConfig()
from explorer.scoring.runner import score_example
assert score_example(example, [detector], cache).results and detector.calls == 2
assert entry.is_file() and not entry.is_symlink()  # overwritten with the result
"""


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_an_entry_that_is_not_a_regular_file_is_a_miss_at_once(tmp_path, kind):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [sys.executable, "-c", AN_ENTRY_THAT_IS_NOT_A_FILE, str(tmp_path), kind.split()[0]],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "not a regular file); it is computed again" in done.stderr


def test_an_unwritable_cache_folder_scores_without_caching_and_says_so_once(tmp_path, sugar_example, caplog):
    folder = unwritable_folder(tmp_path)
    cache, detector = ResultCache(folder, seeds=[]), CountingRouge()
    with caplog.at_level(logging.WARNING, logger="explorer.scoring.cache"):
        for example_id in ("a", "b", "c"):
            scored = score_example(sugar_example.replace(id=example_id), [detector], cache)
            assert scored.results["counting-rouge"] == detector.score(sugar_example)
    (warning,) = caplog.messages
    assert f"cannot write to the result cache in {folder / 'results'}" in warning and "not cached" in warning


def test_score_with_a_read_only_home_writes_every_record(tmp_path, record, monkeypatch, capsys):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    monkeypatch.setenv("HOME", str(unwritable_folder(tmp_path)))
    monkeypatch.setenv("EXPLORER_CACHE_DIR", "")  # the default cache, under the home folder
    assert main(["score", str(data), "--detectors", "semantic", "--out", str(out), "--quiet"]) == 0
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["r1"]
    assert capsys.readouterr().err.count("explorer: warning: cannot write to the result cache") == 1


def test_a_full_cache_leaves_no_temporary_file(tmp_path, record):
    """The process may not grow a file past 1 kB (RLIMIT_FSIZE): cache writes fail as on a full disk."""
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(record, dict(record, id="r2")), encoding="utf-8")
    cache = tmp_path / "cache"
    run = explorer(
        "score",
        str(data),
        "--detectors",
        "semantic",
        "--out",
        "/dev/stdout",
        "--cache-dir",
        str(cache),
        "--quiet",
        file_size_limit=1024,
    )
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr
    assert [json.loads(line)["id"] for line in stdout.splitlines()] == ["r1", "r2"]
    assert stderr.count("cannot write to the result cache") == 1 and "File too large" in stderr
    assert [p for p in cache.rglob("*") if p.is_file()] == []


class KeepingRouge(CountingRouge):
    """Counting ROUGE whose results keep a detail, as the polarity check's keep their findings."""

    name = "keeping-rouge"
    kept = ("findings",)

    def score(self, example, progress=None):
        result = super().score(example)
        return DetectorResult.from_dict({**result.to_dict(), "details": {"findings": []}})


def test_a_result_cached_before_its_detector_kept_a_detail_is_scored_again(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = KeepingRouge()
    score_example(sugar_example, [detector], cache)
    (entry,) = (tmp_path / "results").rglob("*.json")
    record = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps({**record, "details": {}}), encoding="utf-8")  # as the code before wrote it
    assert cache.get(detector, sugar_example) is None
    again = score_example(sugar_example, [detector], cache)
    assert detector.calls == 2 and again.results["keeping-rouge"].details == {"findings": []}
    assert cache.get(detector, sugar_example) is not None
