"""Every numeric option has a range (issue 28): a value outside it is exit 2 naming the option and
the range, before anything is read or written, never a traceback, an hours-long run or an empty
output."""

import pytest

from explorer.cli import build_parser, main
from tests.faults import explorer, finish
from tests.helpers import jsonl
from tests.test_guard import subcommands

OLD = '{"id": "old"}\n'


@pytest.fixture
def data(tmp_path, record):
    path = tmp_path / "data.jsonl"
    path.write_text(jsonl(record), encoding="utf-8")
    return path


def test_no_numeric_option_is_a_bare_int_or_float():
    for name, parser in subcommands().items():
        bare = [action.option_strings for action in parser._actions if action.type in (int, float)]
        assert not bare, f"explorer {name}: {bare} need a range (explorer.console)"


@pytest.mark.parametrize(
    "command, option, value, range_text",
    [
        ("score", "--threads", "-1", "[1, 256]"),
        ("score", "--salience-steps", "100000000", "[1, 1024]"),
        ("score", "--salience-samples", "0", "[1, 1024]"),
        ("score", "--workers", "1000000", "[1, 256]"),
        ("score", "--gpus-per-worker", "nan", "(0, 16]"),
        ("eval", "--bootstrap", "99999999999", "[0, 100000]"),
        ("generate", "--seed", "100000000000000000000", "[0, 4294967295]"),
        ("generate", "--max-new-tokens", "100000000", "[1, 4096]"),
        ("generate", "--top-p", "2", "(0, 1]"),
        ("claims", "--max-new-tokens", "-1", "[1, 4096]"),
        ("claims", "--threads", "0", "[1, 256]"),
        ("build-data", "--variants", "0", "[1, 100]"),
        ("build-data", "--variants", "1000000", "[1, 100]"),
        ("build-data", "--seed", "-5", "[0, 4294967295]"),
        ("train", "--steps", "10000000", "[1, 100000]"),
        ("train", "--batch-size", "100000", "[1, 4096]"),
    ],
)
def test_an_option_out_of_range_exits_2_naming_it_and_its_range(
    tmp_path, data, command, option, value, range_text, capsys
):
    out = tmp_path / "out.jsonl"
    out.write_text(OLD, encoding="utf-8")
    argv = {
        "build-data": ["build-data", "--out", str(out)],
        "train": ["train", "--task", "coverage", "--data", str(data)],
    }.get(command, [command, str(data), "--out", str(out)])
    with pytest.raises(SystemExit) as exited:
        main([*argv, option, value])
    assert exited.value.code == 2
    assert f"argument {option}: {value} is out of range: must be {range_text}" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == OLD  # generate --max-new-tokens 100000000 emptied it


@pytest.mark.parametrize("value", ["http://x", "x", "host:0", "host:99999", "ray://", "[::1]"])
def test_a_ray_address_that_is_none_exits_2(data, tmp_path, value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["score", str(data), "--out", str(tmp_path / "o"), "--engine", "ray", "--address", value])
    assert exited.value.code == 2
    assert f"argument --address: {value!r} is not a Ray address: auto, HOST:PORT or ray://HOST:PORT" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "value", ["auto", "10.0.0.5:6379", "head.cluster.local:6379", "ray://10.0.0.5:10001", "[::1]:6379"]
)
def test_ray_addresses_parse(value):
    assert build_parser().parse_args(["score", "x", "--out", "y", "--address", value]).address == value


def test_an_unreachable_ray_address_is_refused_in_seconds_not_minutes(data, tmp_path):
    """The old code left Ray retrying an address nothing listens on for ten minutes."""
    pytest.importorskip("ray.data")
    out = tmp_path / "out.jsonl"
    run = explorer("score", str(data), "--out", str(out), "--engine", "ray", "--address", "127.0.0.1:1", "--quiet")
    _, stderr = finish(run, 120)
    assert run.returncode == 2, stderr
    assert "explorer: cannot reach the Ray cluster at 127.0.0.1:1 within 10 s: Connection refused" in stderr
    assert not out.exists()
