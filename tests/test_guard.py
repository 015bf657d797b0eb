"""One guard for every output (issue 28): each command declares what it reads and writes, and an
output that would replace an input, a file of the repository or of the shared data, or that is
not a regular file, is refused with exit 2 before anything is read or written."""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import build_parser, guard, main
from explorer.cli.common import CliError
from explorer.config import CHECKOUT, SAMPLE_DIR
from explorer.files import UnsafeOutputError, check_output
from tests.faults import explorer, finish
from tests.helpers import ROOT, jsonl

OLD = '{"id": "old"}\n'


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = (action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return dict(commands.choices)


@pytest.fixture
def data(tmp_path, record):
    path = tmp_path / "data.jsonl"
    path.write_text(jsonl(record), encoding="utf-8")
    return path


def test_every_command_declares_its_files_and_every_path_option_among_them():
    for name, parser in subcommands().items():
        files = parser.get_default("files")
        assert isinstance(files, guard.Files), f"explorer {name} declares no files (explorer.cli.guard.declare)"
        paths = {action.dest for action in parser._actions if action.type is Path}
        assert paths <= files.options(), f"explorer {name}: {paths - files.options()} neither read nor written?"


# Each command with its output option naming one of its inputs: a new command fails here until
# it is added, with the way its output can clash.
def clashing(tmp_path: Path, data: Path) -> dict[str, list[str]]:
    report = tmp_path / "report.json"  # `eval --out report` writes report.md and report.json
    shutil.copy(data, report)
    folder = tmp_path / "perspectrum"
    folder.mkdir()
    original = folder / "perspectrum_with_answers_v1.0.json"
    original.write_text("[]", encoding="utf-8")
    return {
        "validate": [],
        "score": ["score", str(data), "--out", str(data)],
        "eval": ["eval", str(report), "--detectors", "rouge", "--out", str(tmp_path / "report")],
        "synth": ["synth", str(data), "--out", str(data)],
        "train": ["train", "--task", "coverage", "--data", str(data), "--out", str(data)],
        "generate": ["generate", str(data), "--out", str(data)],
        "claims": ["claims", str(data), "--out", str(data)],
        "build-data": ["build-data", "--data", str(folder), "--out", str(original)],
        "detectors": [],
        "calibrate": ["calibrate", str(data), "--out", str(data)],
        "rates": ["rates", str(report), "--out", str(tmp_path / "report")],
    }


def test_every_command_refuses_an_output_that_is_its_input(tmp_path, data, capsys):
    commands = clashing(tmp_path, data)
    assert set(commands) == set(subcommands())
    for name, argv in commands.items():
        if not argv:
            assert subcommands()[name].get_default("files").output is None
            continue
        before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
        assert main(argv) == 2, name
        assert "explorer: --out " in capsys.readouterr().err
        assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize("command", ["generate", "claims"])
def test_generate_and_claims_refuse_their_input_through_a_symlink(tmp_path, data, command, capsys):
    (tmp_path / "link.jsonl").symlink_to(data)
    before = data.read_bytes()
    assert main([command, str(data), "--out", str(tmp_path / "link.jsonl")]) == 2
    assert f"is the input file {data}" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_eval_ablation_refuses_a_report_path_that_writes_its_input(tmp_path, data, capsys):
    labelled = tmp_path / "s.json"
    shutil.copy(data, labelled)
    assert main(["eval", str(labelled), "--ablation", "--out", str(tmp_path / "s")]) == 2
    assert f"--out {tmp_path / 's'} writes {labelled}, which is the input file" in capsys.readouterr().err
    assert labelled.read_bytes() == data.read_bytes()


def test_build_data_refuses_an_output_inside_its_data_folder(tmp_path, capsys):
    folder = tmp_path / "D"
    folder.mkdir()
    original = folder / "perspectrum_with_answers_v1.0.json"
    original.write_text("[]", encoding="utf-8")
    assert main(["build-data", "--data", str(folder), "--out", str(original)]) == 2
    assert f"is inside the input folder {folder}" in capsys.readouterr().err
    assert original.read_text(encoding="utf-8") == "[]"


def test_build_data_refuses_the_repository_through_a_bind_mount(tmp_path):
    mount, folder = tmp_path / "mount", tmp_path / "perspectrum"
    mount.mkdir()
    folder.mkdir()
    script = 'mount --bind "$1" "$2" && exec "$3" -m explorer build-data --data "$4" --out "$2/perspectrum.jsonl"'
    command = ["unshare", "-rm", "sh", "-c", script, "sh", str(CHECKOUT), str(mount), sys.executable, str(folder)]
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"], check=False).returncode:
        pytest.skip("no mount namespaces here (unshare -rm)")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=environment, check=False)
    assert done.returncode == 2, done.stderr
    assert "is inside the repository" in done.stderr
    assert not (CHECKOUT / "perspectrum.jsonl").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path, data, kind, capsys):
    out = {"fifo": tmp_path / "pipe", "folder": tmp_path / "folder", "device": Path("/dev/full")}[kind]
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "folder":
        out.mkdir()
    # In a new process: the old code blocked for ever opening a FIFO that has no reader.
    run = explorer("score", str(data), "--out", str(out), "--quiet")
    _, stderr = finish(run, 120)
    assert run.returncode == 2, stderr
    assert f"--out {out} is a" in stderr and "not a regular file" in stderr


def test_a_read_only_output_is_not_replaced(tmp_path, data, capsys):
    out = tmp_path / "scores.jsonl"
    out.write_text(OLD, encoding="utf-8")
    out.chmod(0o444)
    assert main(["score", str(data), "--out", str(out), "--quiet"]) == 2
    assert f"--out {out} is read-only" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == OLD


def test_the_standard_output_is_still_an_output(data):
    run = explorer("score", str(data), "--out", "/dev/stdout", "--quiet")
    stdout, stderr = finish(run, 120)
    assert run.returncode == 0, stderr
    assert '"id": "r1"' in stdout


def test_files_of_the_repository_and_the_shared_data_are_refused_new_files_in_the_checkout_are_not(
    tmp_path, monkeypatch
):
    with pytest.raises(UnsafeOutputError, match="is a file of the repository"):
        check_output(CHECKOUT / "README.md")
    with pytest.raises(UnsafeOutputError, match="is a file of the repository"):
        check_output(CHECKOUT / "training_data", folder=True)
    with pytest.raises(UnsafeOutputError, match="is a file of the repository"):
        check_output(CHECKOUT / ".git" / "config")
    if (CHECKOUT / ".git").exists():  # git can tell what the repository holds; else all of it counts
        check_output(CHECKOUT / "report-that-does-not-exist.md")  # the README's commands write such files
    with pytest.raises(UnsafeOutputError, match="third-party text must not be copied"):
        check_output(CHECKOUT / "perspectrum.jsonl", third_party=True)
    shared = tmp_path / "shared"
    (shared / "perspectrum").mkdir(parents=True)
    monkeypatch.setenv("EXPLORER_SHARED_DATA", str(shared))
    with pytest.raises(UnsafeOutputError, match="inside the shared data folder"):
        check_output(shared / "perspectrum" / "new.json")


def test_synth_may_regenerate_the_shipped_synthetic_samples_and_nothing_else_of_the_repository():
    examples, synthetic = str(SAMPLE_DIR / "examples.jsonl"), str(SAMPLE_DIR / "synthetic.jsonl")
    guard.check(build_parser().parse_args(["synth", examples, "--out", synthetic]))  # test_synthetic's command
    with pytest.raises(CliError, match="is a file of the repository"):
        guard.check(build_parser().parse_args(["score", examples, "--out", synthetic]))


def test_train_refuses_an_output_folder_that_holds_its_data(tmp_path, data, capsys):
    assert main(["train", "--task", "coverage", "--data", str(data), "--out", str(tmp_path)]) == 2
    assert f"--out {tmp_path} holds the input {data}" in capsys.readouterr().err


def test_an_output_named_after_a_stream_or_a_device_is_refused(tmp_path, data, capsys):
    """Issue 52: `eval --out /dev/stdout` wrote /dev/stdout.md and /dev/stdout.json."""
    with pytest.raises(UnsafeOutputError, match="is a stream or a device, but the command writes files named after"):
        check_output(Path("/dev/stdout"), written=[Path("/dev/stdout.md"), Path("/dev/stdout.json")])
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert main(["eval", str(data), "--detectors", "rouge", "--out", str(pipe), "--quiet"]) == 2
    assert f"--out {pipe} is a stream or a device" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.jsonl", "pipe"]
