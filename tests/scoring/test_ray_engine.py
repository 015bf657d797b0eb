"""`--engine ray`: a local Ray (2 workers), started once for the module, gives the local engine's
output byte for byte, reports bad lines and refused examples as the local engine does, and
keeps the input order."""

import json
import sys

import pytest

from explorer.cli import main
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl
from explorer.detectors.semantic import SemanticDetector
from explorer.scoring import ray_engine
from explorer.scoring.cache import ResultCache
from tests.bad_inputs.corpus import CASES
from tests.helpers import jsonl

RAY = ["--engine", "ray", "--workers", "2"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module; the engine reuses a Ray this process has joined."""
    ray = ray_engine.require_ray()
    ray_engine.connect(ray, ray_engine.Settings(workers=2, quiet=True))
    yield
    ray.shutdown()


def run(capsys, *argv):
    """Exit code and stderr of one in-process CLI run."""
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().err


def sample_lines():
    return (SAMPLE_DIR / "examples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.slow
def test_on_ray_the_output_is_the_local_bytes_bad_lines_and_refusals_are_reported_alike_and_the_cache_fills(
    tmp_path, capsys
):
    # One Ray run checks it all: each run starts a pool of model-loading workers, which cost
    # far more than the examples. Every twentieth sample backwards (14 topics, organic and
    # paraphrased; 15 examples in batches of 2) still makes several batches for each of the two
    # workers, at half the scoring of every tenth; a malformed line, a record missing its query
    # and an example semantic refuses sit among them.
    refused = next(case for case in CASES if case.name == "punctuation-run")
    lines = sample_lines()[::20][::-1]
    lines[3:3] = ['{"id": "cut",\n', '{"id": "no-query", "perspectives": [], "response": "R"}\n']
    lines.insert(6, refused.data.decode("utf-8"))
    data = tmp_path / "in.jsonl"
    data.write_text("".join(lines), encoding="utf-8")
    local, ray, cache_dir = tmp_path / "local.jsonl", tmp_path / "ray.jsonl", tmp_path / "shared-cache"
    detector_names = ["--detectors", "rouge,semantic", "--quiet"]

    local_code, local_err = run(capsys, "score", str(data), *detector_names, "--no-cache", "--out", str(local))
    ray_code, ray_err = run(
        capsys, "score", str(data), *detector_names, "--cache-dir", str(cache_dir), "--out", str(ray), *RAY
    )

    assert local_code == ray_code == 1
    assert ray.read_bytes() == local.read_bytes()
    reported = [line for line in ray_err.splitlines() if line.startswith(str(data))]
    assert reported == [line for line in local_err.splitlines() if line.startswith(str(data))]
    assert any(line.startswith(f"{data}: line 4: invalid JSON") for line in reported)
    assert any(line.startswith(f"{data}: line 5: query: is required") for line in reported)
    assert f"rule: semantic: {refused.refused_by['semantic']}" in ray_err
    examples = parse_jsonl(data).examples
    records = [json.loads(line) for line in ray.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == [e.id for e in examples]  # the input's order
    assert next(r for r in records if r["id"] == "rule")["scores"]["semantic"]["error"].startswith(
        refused.refused_by["semantic"]
    )
    cache, detector = ResultCache(cache_dir, seeds=[]), SemanticDetector()
    assert all(cache.get(detector, example) is not None for example in examples if example.id != "rule")


def test_eval_scores_missing_results_on_ray_into_the_local_report(tmp_path, capsys):
    data = tmp_path / "in.jsonl"
    data.write_text("".join(sample_lines()[:60]), encoding="utf-8")
    options = ["--detectors", "rouge", "--bootstrap", "20", "--quiet"]
    assert run(capsys, "eval", str(data), *options, "--out", str(tmp_path / "local"))[0] == 0
    # One worker: the report is the same whoever scored it, and each worker is a process to start.
    one_worker = ["--engine", "ray", "--workers", "1"]
    assert run(capsys, "eval", str(data), *options, "--out", str(tmp_path / "ray"), *one_worker)[0] == 0
    assert (tmp_path / "ray.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert (tmp_path / "ray.md").read_bytes() == (tmp_path / "local.md").read_bytes()


def test_without_ray_installed_the_error_names_the_extra(tmp_path, capsys, monkeypatch, record):
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(record), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if it were not installed
    code, err = run(capsys, "score", str(data), "--out", str(tmp_path / "out.jsonl"), "--engine", "ray")
    assert code == 2
    assert "pip install 'rag-error-explorer[ray]'" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_ray_options_without_the_ray_engine_are_a_usage_error(tmp_path, capsys, record):
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(record), encoding="utf-8")
    code, err = run(capsys, "score", str(data), "--out", str(tmp_path / "out.jsonl"), "--workers", "2")
    assert code == 2
    assert "--workers: only with --engine ray" in err


def test_rates_on_ray_writes_the_local_report(tmp_path, capsys):
    """`explorer rates --engine ray`: the same scores, so the same rates, bytes and all (the
    verdict detector's shipped sample results serve both engines through the cache)."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(sample_lines()[:30]), encoding="utf-8")
    options = ["--by", "topic", "--bootstrap", "50", "--quiet"]
    assert run(capsys, "rates", str(data), *options, "--out", str(tmp_path / "local"))[0] == 0
    one_worker = ["--engine", "ray", "--workers", "1"]
    assert run(capsys, "rates", str(data), *options, "--out", str(tmp_path / "ray"), *one_worker)[0] == 0
    for suffix in (".json", ".md", ".html"):
        assert (tmp_path / f"ray{suffix}").read_bytes() == (tmp_path / f"local{suffix}").read_bytes()
