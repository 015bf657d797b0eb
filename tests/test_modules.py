"""Every `python -m` module goes through the one guard and the one set of bounds (issue 52): it
declares what it reads and writes, refuses to write a file of the repository, defaults no output
to the shipped weights and takes no unbounded number. The modules are found by their source (a
top-level `if __name__ == "__main__":`), so a new one cannot be missed."""

import argparse
import ast
import importlib
from pathlib import Path

import pytest

from explorer.cli import guard
from explorer.cli.exit_codes import MODULES
from explorer.config import CHECKOUT
from tests.helpers import ROOT


def runnable(tree: ast.Module) -> bool:
    """Whether a module's source has a top-level `if __name__ == "__main__":`."""
    return any(
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        for node in tree.body
    )


def modules_with_main() -> list[str]:
    """The modules run as `python -m MODULE`, but for the explorer command (tests/test_guard.py)."""
    found = []
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        if runnable(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
    return [module for module in found if module not in ("explorer.cli", "explorer.__main__")]


@pytest.fixture(scope="module")
def parsers() -> dict[str, argparse.ArgumentParser]:
    return {module: importlib.import_module(module).build_parser() for module in modules_with_main()}


def numeric(action: argparse.Action) -> bool:
    return isinstance(action.default, (int, float)) and not isinstance(action.default, bool)


def test_the_exit_code_record_lists_every_module_with_a_main():
    assert sorted(modules_with_main()) == sorted(MODULES)
    for module in MODULES:
        assert callable(importlib.import_module(module).main), module


def test_every_module_declares_its_files_and_every_path_option_among_them(parsers):
    for module, parser in parsers.items():
        assert parser.prog == f"python -m {module}"
        files = parser.get_default("files")
        assert isinstance(files, guard.Files), f"{module} declares no files (explorer.cli.guard.declare)"
        paths = {action.dest for action in parser._actions if action.type is Path}
        assert paths <= files.options(), f"{module}: {paths - files.options()} neither read nor written?"


def test_no_module_defaults_its_output_to_a_file_of_the_repository(parsers):
    for module, parser in parsers.items():
        files = parser.get_default("files")
        assert files.output, f"{module} writes nothing?"
        default = parser.get_default(files.output)
        assert default is None or CHECKOUT not in Path(default).resolve().parents, f"{module} --out {default}"


def test_every_number_a_module_takes_has_a_range(parsers):
    for module, parser in parsers.items():
        for action in parser._actions:
            if action.type in (int, float) or (numeric(action) and action.type is None):
                pytest.fail(f"{module} {action.option_strings}: no range (explorer.console)")
            if numeric(action):
                with pytest.raises(argparse.ArgumentTypeError, match="out of range|is not"):
                    action.type("1e309" if isinstance(action.default, float) else "100000000000")
                with pytest.raises(argparse.ArgumentTypeError):
                    action.type("nan")


def argv_refusing(module: str, parser: argparse.ArgumentParser, tmp_path: Path) -> tuple[list[str], Path]:
    """A command line of `module` whose output is a file (or folder) of the repository, with
    every other required option given a harmless value."""
    files = parser.get_default("files")
    target = CHECKOUT / ("training_data" if files.folder else "README.md")
    data = tmp_path / "data.jsonl"
    data.write_text("", encoding="utf-8")
    argv = []
    for action in parser._actions:
        if action.required and action.option_strings and action.dest != files.output:
            argv += [action.option_strings[0], str(tmp_path / "work" if action.dest == "work" else data)]
    return [*argv, f"--{files.output.replace('_', '-')}", str(target)], target


def test_no_module_writes_a_file_of_the_repository(parsers, tmp_path, capsys):
    """Refused with exit 2 before anything is read: the old trainers replaced the shipped weights
    (explorer/resources/tagger/tokens) and `explorer.data.written` its own corpus files."""
    for module, parser in parsers.items():
        argv, target = argv_refusing(module, parser, tmp_path)
        before = sorted(path.stat().st_mtime_ns for path in [target, *target.rglob("*")])
        assert importlib.import_module(module).main(argv) == 2, module
        err = capsys.readouterr().err
        assert f"python -m {module}: --out {target} is " in err and "repository" in err, err
        assert sorted(path.stat().st_mtime_ns for path in [target, *target.rglob("*")]) == before


@pytest.mark.parametrize(
    "module",
    [
        "explorer.training.tagger",
        "explorer.training.classifier",
        "explorer.training.generator",
        "explorer.training.matcher",
        "explorer.training.tuned_cross_encoder",
        "explorer.training.tuned_alignment_classifier",
        "explorer.cli.stacked",
    ],
)
def test_a_trainer_writes_the_shipped_weights_only_when_asked_by_name(module, parsers, tmp_path, capsys):
    parser = parsers[module]
    argv, _ = argv_refusing(module, parser, tmp_path)
    without_out = argv[:-2]
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(without_out)
    assert exited.value.code == 2
    assert "one of the arguments --out --ship is required" in capsys.readouterr().err
    shipped = parser.parse_args([*without_out, "--ship"]).out
    assert shipped.is_relative_to(CHECKOUT / "explorer" / "resources")
    assert Path(shipped) in parser.get_default("files").may_replace


# The plausible mistakes of issue 52, each once a traceback (or a hang, or gigabytes read).

SAMPLES = str(ROOT / "explorer" / "resources" / "samples" / "synthetic.jsonl")


@pytest.mark.parametrize(
    "option, value, range_text",
    [
        ("--batch-size", "0", "[1, 4096]"),
        ("--steps", "-5", "[1, 100000]"),
        ("--learning-rate", "nan", "(0, inf)"),
        ("--threads", "100000", "[1, 256]"),
        ("--rank", "1000000", "[1, 256]"),
    ],
)
def test_a_trainer_number_out_of_range_exits_2_naming_it(tmp_path, option, value, range_text, capsys):
    from explorer.training import tagger

    with pytest.raises(SystemExit) as exited:
        tagger.main(["--data", SAMPLES, "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o"), option, value])
    assert exited.value.code == 2
    assert f"argument {option}: {value} is out of range: must be {range_text}" in capsys.readouterr().err
    assert not (tmp_path / "w").exists() and not (tmp_path / "o").exists()


def test_a_missing_data_file_is_exit_3_naming_it(tmp_path, capsys):
    from explorer.training import tagger

    missing = tmp_path / "missing.jsonl"
    assert tagger.main(["--data", str(missing), "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o")]) == 3
    assert f"python -m explorer.training.tagger: {missing}: No such file or directory" in capsys.readouterr().err


def test_a_work_folder_that_is_a_file_is_refused(tmp_path, capsys):
    from explorer.training import generator

    work = tmp_path / "work"
    work.write_text("mine", encoding="utf-8")
    argv = ["--data", SAMPLES, "--dev", SAMPLES, "--work", str(work), "--out", str(tmp_path / "o")]
    assert generator.main(argv) == 2
    assert f"--work {work} is a regular file, not a folder" in capsys.readouterr().err
    assert work.read_text(encoding="utf-8") == "mine"


def test_the_default_dev_set_is_the_shared_datas_not_one_under_the_current_folder(tmp_path, monkeypatch, capsys):
    from explorer.training import classifier

    shared = tmp_path / "shared"
    (shared / "npov_foreign").mkdir(parents=True)
    monkeypatch.setenv("EXPLORER_SHARED_DATA", str(shared))
    monkeypatch.chdir(tmp_path / "shared" / "npov_foreign")  # ../shared/data/... from here is nothing
    args = classifier.build_parser().parse_args(["--data", SAMPLES, "--work", "w", "--out", "o"])
    assert args.dev == shared / "npov_foreign" / "dev.jsonl"
    monkeypatch.setenv("EXPLORER_SHARED_DATA", str(tmp_path / "none"))
    monkeypatch.setattr("explorer.training.checkpoints.shared_data_dir", lambda: None)
    with pytest.raises(SystemExit) as exited:
        classifier.build_parser().parse_args(["--data", SAMPLES, "--work", "w", "--out", "o"])
    assert exited.value.code == 2 and "the following arguments are required: --dev" in capsys.readouterr().err


def one_class(tmp_path: Path) -> Path:
    from explorer.data.jsonl import parse_jsonl, write_jsonl

    path = tmp_path / "clean.jsonl"
    examples = parse_jsonl(Path(SAMPLES)).examples
    write_jsonl([e for e in examples if e.labels.hallucination is False and e.labels.coverage_error is False], path)
    return path


def test_stacked_heads_on_one_class_data_exit_2_before_any_scoring(tmp_path, capsys):
    from explorer.cli import stacked

    out = tmp_path / "heads"
    assert stacked.main(["--data", str(one_class(tmp_path)), "--no-sample", "--out", str(out)]) == 2
    assert "the training set has 0 of 39 example(s) with a hallucination error; it needs examples with and without" in (
        capsys.readouterr().err
    )
    assert not out.exists()


def test_stacked_heads_are_never_written_into_the_shared_data(tmp_path, monkeypatch, capsys):
    from explorer.cli import stacked

    monkeypatch.setenv("EXPLORER_SHARED_DATA", str(tmp_path))
    assert stacked.main(["--data", SAMPLES, "--out", str(tmp_path / "stacked")]) == 2
    assert "is inside the shared data folder" in capsys.readouterr().err
    assert not (tmp_path / "stacked").exists()


@pytest.mark.parametrize("record", [None, "[]", "{broken"])
def test_a_generator_init_without_a_training_record_is_refused_before_training(tmp_path, record, capsys):
    """The old run read `--init`'s training.json after all its steps: a traceback then lost them."""
    from explorer.training import generator

    init = tmp_path / "init"
    init.mkdir()
    if record is not None:
        (init / "training.json").write_text(record, encoding="utf-8")
    argv = ["--data", SAMPLES, "--dev", SAMPLES, "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o")]
    assert generator.main([*argv, "--init", str(init)]) == (3 if record is None else 2)
    assert f"{init / 'training.json'}" in capsys.readouterr().err
    assert not (tmp_path / "w").exists() and not (tmp_path / "o").exists()
