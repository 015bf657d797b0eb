import dataclasses
import json
import os
import re
import subprocess
import sys

import pytest

from explorer import detectors
from explorer.cli import main
from explorer.cli.common import STEP_OPTIONS
from explorer.models.trained import TrainedNotFoundError
from tests.faults import explorer
from tests.helpers import SAMPLE_MINILM, jsonl


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


def test_unknown_detector_is_a_usage_error_listing_the_valid_ones(data_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["score", str(data_file), "--detectors", "rouge,nope", "--out", str(tmp_path / "o.jsonl")])
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
                "--detectors",
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


@SAMPLE_MINILM
def test_train_writes_an_alignment_classifier_the_detector_then_finds(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["train", "--method", "alignment_classifier", "--task", "coverage"]) == 0
    assert "kept C=" in capsys.readouterr().err
    from explorer.detectors import alignment_classifier
    from explorer.models.encoder import SentenceEncoder

    found = detectors.weights("alignment_classifier").find(SentenceEncoder().identity(), "coverage")
    assert found.is_relative_to(tmp_path / "cache")
    trained, shipped = (
        alignment_classifier.load(d) for d in (found, detectors.weights("alignment_classifier").shipped / "coverage")
    )
    assert trained.weights == pytest.approx(shipped.weights, rel=1e-4)


@pytest.mark.parametrize("name", detectors.trainable())
def test_train_help_of_every_learned_detector_shows_its_trainers_own_defaults(name, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["train", "--detector", name, "--help"])
    assert exit.value.code == 0
    shown, trainer = capsys.readouterr().out, detectors.trainer(name)
    assert f"--detector {name}: {trainer.description}" in shown and trainer.model_help in shown
    for field in dataclasses.fields(trainer.settings) if trainer.settings else ():
        if field.name in STEP_OPTIONS:
            assert f"{STEP_OPTIONS[field.name]} {field.default}" in shown


@pytest.mark.parametrize("name", [name for name in detectors.trainable() if detectors.weights(name).tasks])
def test_the_command_a_missing_trained_model_names_works(name, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    with pytest.raises(TrainedNotFoundError) as missing:
        detectors.weights(name).find("no-such-model@0", detectors.weights(name).tasks[-1])
    command = re.search(r"`explorer (train [^`]*)`", str(missing.value)).group(1).split()
    with pytest.raises(SystemExit) as exit:
        main([*command, "--help"])
    assert exit.value.code == 0 and f"--detector {name}:" in capsys.readouterr().out


def test_step_settings_for_the_alignment_classifier_are_a_usage_error(capsys):
    assert main(["train", "--detector", "alignment_classifier", "--task", "coverage", "--steps", "5"]) == 2
    assert "do not apply to the alignment classifier" in capsys.readouterr().err


# Issue 14, problem 1: an output that is an input of the same command is refused.


def test_score_refuses_to_write_over_its_input(data_file, capsys):
    before = data_file.read_bytes()
    assert main(["score", str(data_file), "--out", str(data_file), "--quiet"]) == 2
    assert f"--out {data_file} is the input file {data_file}" in capsys.readouterr().err
    assert data_file.read_bytes() == before


def test_score_refuses_an_output_that_is_the_input_through_a_link(data_file, tmp_path):
    (tmp_path / "link.jsonl").symlink_to(data_file)
    os.link(data_file, tmp_path / "hard.jsonl")
    before = data_file.read_bytes()
    for out in ("link.jsonl", "hard.jsonl"):
        assert main(["score", str(data_file), "--out", str(tmp_path / out), "--quiet"]) == 2
    assert data_file.read_bytes() == before


def test_eval_refuses_a_report_path_that_is_the_data_or_the_scores(data_file, tmp_path):
    markdown = tmp_path / "data.md"
    markdown.write_text(data_file.read_text(encoding="utf-8"), encoding="utf-8")
    before = markdown.read_bytes()
    assert main(["eval", str(markdown), "--detectors", "rouge", "--out", str(markdown), "--quiet"]) == 2
    assert markdown.read_bytes() == before
    scores = tmp_path / "scores.json"
    scores.write_text("", encoding="utf-8")
    command = [
        "eval",
        str(data_file),
        "--scores",
        str(scores),
        "--detectors",
        "rouge",
        "--out",
        str(tmp_path / "scores"),
    ]
    assert main([*command, "--quiet"]) == 2
    assert scores.read_text(encoding="utf-8") == ""


def test_synth_refuses_to_write_over_its_input(data_file):
    before = data_file.read_bytes()
    assert main(["synth", str(data_file), "--out", str(data_file)]) == 2
    assert data_file.read_bytes() == before


# Issue 14, problem 9: numeric options out of range are usage errors, not nonsense reports.


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--bootstrap", "-1", "-1 is out of range: must be [0, 100000]"),
        ("--alpha", "7", "7 is out of range: must be (0, 1)"),
        ("--alpha", "0", "0 is out of range: must be (0, 1)"),
        ("--alpha", "nan", "nan is out of range: must be (0, 1)"),
        ("--seed", "-1", "-1 is out of range: must be [0, 4294967295]"),
        ("--seed", "1.5", "'1.5' is not an integer"),
    ],
)
def test_eval_numeric_options_out_of_range_exit_2(data_file, tmp_path, capsys, option, value, message):
    with pytest.raises(SystemExit) as exited:
        main(["eval", str(data_file), "--detectors", "rouge", "--out", str(tmp_path / "r"), option, value])
    assert exited.value.code == 2
    assert f"argument {option}: {message}" in capsys.readouterr().err
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("option, value", [("--steps", "0"), ("--batch-size", "-4"), ("--lr", "0"), ("--threads", "0")])
def test_train_numeric_options_out_of_range_exit_2(option, value):
    with pytest.raises(SystemExit) as exited:
        main(["train", "--task", "coverage", option, value])
    assert exited.value.code == 2


# Issue 14, problem 4: a model that cannot be used is exit 2 with the reason, and nothing is written.


def custom_code_model(folder):
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"model_type": "llama", "auto_map": {"AutoModelForCausalLM": "evil.EvilModel"}}), encoding="utf-8"
    )
    (folder / "evil.py").write_text("import os\nos.system('touch pwned')\n", encoding="utf-8")
    return folder


def broken_config_model(folder):
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llama",', encoding="utf-8")
    return folder


def fake_gguf(folder):
    folder.mkdir()
    (folder / "model.gguf").write_bytes(b"not a gguf file at all" * 10)
    return folder / "model.gguf"


@pytest.mark.parametrize(
    "make, reason",
    [
        (custom_code_model, "needs custom code (auto_map in config.json), which the explorer never runs"),
        (broken_config_model, "config.json is not readable JSON"),
        (fake_gguf, "is not a GGUF file"),
    ],
)
@pytest.mark.parametrize("detector_name", ["salience", "classifier", "classifier_prompt"])
def test_an_unusable_model_is_a_usage_error_and_nothing_is_written(
    data_file, tmp_path, capsys, make, reason, detector_name
):
    model = make(tmp_path / "model")
    out = tmp_path / "scores.jsonl"
    out.write_text(OLD_SCORES, encoding="utf-8")
    assert main(["score", str(data_file), "--detectors", detector_name, "--model", str(model), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err
    assert out.read_text(encoding="utf-8") == OLD_SCORES
    assert not (tmp_path / "pwned").exists()


OLD_SCORES = '{"id": "old", "scores": {}}\n'


# Issue 14, problem 10: --quiet leaves stderr empty when nothing is wrong, library output included.


def test_quiet_score_prints_nothing_not_even_the_libraries_loading_bars(data_file, tmp_path):
    out = tmp_path / "out.jsonl"
    run = explorer("score", str(data_file), "--detectors", "semantic", "--out", str(out), "--quiet")
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 0
    assert (stdout, stderr) == ("", "")
    assert len(read_lines(out)) == 2


def test_quiet_eval_prints_nothing_when_nothing_is_wrong(data_file, tmp_path, capsys):
    assert main(["eval", str(data_file), "--detectors", "rouge", "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert (tmp_path / "r.md").is_file() and (tmp_path / "r.json").is_file()


def test_salience_settings_that_do_not_fit_the_attribution_are_usage_errors(data_file, tmp_path, capsys):
    out = str(tmp_path / "o.jsonl")
    with pytest.raises(SystemExit) as exited:
        main(["score", str(data_file), "--detectors", "salience", "--salience-method", "lime", "--out", out])
    assert exited.value.code == 2 and "invalid choice: 'lime'" in capsys.readouterr().err
    assert main(["score", str(data_file), "--detectors", "salience", "--salience-steps", "8", "--out", out]) == 2
    assert "salience: grad_x_input has no setting steps (its settings: none)" in capsys.readouterr().err


@pytest.mark.slow
def test_score_computes_salience_with_the_chosen_attribution(data_file, tmp_path):
    out, cache = tmp_path / "out.jsonl", tmp_path / "cache"
    command = ["score", str(data_file), "--detectors", "salience", "--salience-attribution", "argument_ablation"]
    assert main([*command, "--out", str(out), "--cache-dir", str(cache), "--quiet"]) == 0
    assert all(0 <= line["scores"]["salience"]["hallucination"] <= 1 for line in read_lines(out))
    cached = [json.loads(path.read_text()) for path in (cache / "results" / "salience").rglob("*.json")]
    assert len(cached) == 2 and {r["info"]["config"]["method"] for r in cached} == {"argument_ablation"}
    assert all(r["details"]["argument_sentence"]["y"] == ["pro 1", "con 1"] for r in cached)


def test_a_time_limit_is_a_usage_error_for_a_trainer_without_one(capsys):
    assert main(["train", "--detector", "cross_encoder", "--task", "coverage", "--minutes", "5"]) == 2
    assert "--minutes do not apply to the" in capsys.readouterr().err
