import json
import subprocess
import sys

import pytest

from explorer.cli import main
from tests.helpers import jsonl


@pytest.fixture
def data_file(tmp_path, record):
    path = tmp_path / "in.jsonl"
    path.write_text(jsonl(record, dict(record, id="r2", response="Bananas are yellow.")), encoding="utf-8")
    return path


def read_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_score_writes_one_line_per_example_in_input_order(data_file, tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["score", str(data_file), "--methods", "rouge", "--out", str(out), "--quiet"]) == 0
    first, second = read_lines(out)
    assert [first["id"], second["id"]] == ["r1", "r2"]
    assert set(first["scores"]["rouge"]) == {"hallucination", "coverage", "per_perspective"}
    assert first["scores"]["rouge"]["per_perspective"] == {"pro": 0.0, "con": 0.0}
    assert second["scores"]["rouge"]["hallucination"] == 1.0
    assert second["words"]["rouge"]["response"] == [[0, 7, 1.0], [12, 18, 1.0]]
    assert all(len(row) == 5 for row in first["words"]["rouge"]["arguments"])


def test_bad_lines_are_reported_on_stderr_and_the_rest_scored(tmp_path, record, capsys):
    path = tmp_path / "mixed.jsonl"
    path.write_text(jsonl(record, "oops", dict(record, id="r3")), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(path), "--out", str(out), "--quiet"]) == 1
    assert [r["id"] for r in read_lines(out)] == ["r1", "r3"]
    assert "line 2: invalid JSON" in capsys.readouterr().err


def test_validate_exit_codes(data_file, tmp_path, capsys):
    assert main(["validate", str(data_file)]) == 0
    assert "2 valid example(s), 0 problem(s)" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["validate", str(bad)]) == 1
    assert "line 1: query: is required" in capsys.readouterr().err
    assert main(["validate", str(tmp_path / "missing.jsonl")]) == 3
    assert "cannot read" in capsys.readouterr().err


def test_unknown_method_is_a_usage_error_listing_the_valid_ones(data_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["score", str(data_file), "--methods", "rouge,nope", "--out", str(tmp_path / "o.jsonl")])
    assert exited.value.code == 2
    assert "unknown detector 'nope'; available: rouge" in capsys.readouterr().err


def test_unwritable_output_is_an_io_error(data_file, tmp_path):
    assert main(["score", str(data_file), "--out", str(tmp_path / "no" / "such" / "dir.jsonl"), "--quiet"]) == 3


def test_installed_console_script_round_trip(data_file, tmp_path):
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "score", str(data_file), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in read_lines(out)] == ["r1", "r2"]


def test_a_model_path_that_names_no_model_is_a_usage_error(data_file, tmp_path, capsys):
    assert (
        main(
            [
                "score",
                str(data_file),
                "--methods",
                "salience",
                "--model",
                str(tmp_path / "nope.gguf"),
                "--out",
                str(tmp_path / "o.jsonl"),
            ]
        )
        == 2
    )
    assert "model not found" in capsys.readouterr().err


def test_train_writes_an_alignment_classifier_the_detector_then_finds(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["train", "--method", "alignment_classifier", "--task", "coverage"]) == 0
    assert "kept C=" in capsys.readouterr().err
    from explorer.detectors import alignment_classifier
    from explorer.models.encoder import SentenceEncoder
    from explorer.training import logistic

    found = alignment_classifier.find_model(SentenceEncoder().identity(), "coverage")
    assert found.is_relative_to(tmp_path / "cache")
    trained, shipped = (alignment_classifier.load(d) for d in (found, alignment_classifier.SHIPPED_MODELS / "coverage"))
    assert trained.weights == pytest.approx(shipped.weights, rel=1e-4)


def test_step_settings_for_the_alignment_classifier_are_a_usage_error(capsys):
    assert main(["train", "--method", "alignment_classifier", "--task", "coverage", "--steps", "5"]) == 2
    assert "do not apply to the alignment classifier" in capsys.readouterr().err


def test_salience_settings_that_do_not_fit_the_method_are_usage_errors(data_file, tmp_path, capsys):
    out = str(tmp_path / "o.jsonl")
    with pytest.raises(SystemExit) as exited:
        main(["score", str(data_file), "--methods", "salience", "--salience-method", "lime", "--out", out])
    assert exited.value.code == 2 and "invalid choice: 'lime'" in capsys.readouterr().err
    assert main(["score", str(data_file), "--methods", "salience", "--salience-steps", "8", "--out", out]) == 2
    assert "salience: grad_x_input has no setting steps (its settings: none)" in capsys.readouterr().err


@pytest.mark.slow
def test_score_computes_salience_with_the_chosen_method(data_file, tmp_path):
    out, cache = tmp_path / "out.jsonl", tmp_path / "cache"
    command = ["score", str(data_file), "--methods", "salience", "--salience-method", "argument_ablation"]
    assert main([*command, "--out", str(out), "--cache-dir", str(cache), "--quiet"]) == 0
    assert all(0 <= line["scores"]["salience"]["hallucination"] <= 1 for line in read_lines(out))
    cached = [json.loads(path.read_text()) for path in (cache / "results" / "salience").rglob("*.json")]
    assert len(cached) == 2 and {r["info"]["config"]["method"] for r in cached} == {"argument_ablation"}
    assert all(r["details"]["argument_sentence"]["y"] == ["pro 1", "con 1"] for r in cached)
