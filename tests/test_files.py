"""Outputs are written whole or not at all: a killed, failed or concurrent run never leaves a
truncated or mixed output, and the previous output survives (issue 14, problem 2). Inputs are
read only when they are regular files of bounded size (issue 28)."""

import errno
import json
import os
import signal

import pytest

from explorer.cli import main
from explorer.files import WriteError, atomic_writer, read_regular, same_file, write_text
from tests.bad_inputs.builders import good
from tests.faults import explorer, finish, unwritable_folder, wait_for
from tests.helpers import jsonl

OLD = '{"id": "old", "scores": {}}\n'


def temporary_files(folder):
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


@pytest.fixture
def many_examples(tmp_path):
    """Enough examples that scoring them with ROUGE takes seconds: time to kill the run."""
    path = tmp_path / "many.jsonl"
    path.write_text(jsonl(*(good(f"e{i}") for i in range(20_000))), encoding="utf-8")
    return path


def test_the_file_appears_only_when_the_block_ends(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text(OLD, encoding="utf-8")
    with atomic_writer(target) as out:
        out.write("new\n")
        assert target.read_text(encoding="utf-8") == OLD  # not yet
    assert target.read_text(encoding="utf-8") == "new\n"
    assert temporary_files(tmp_path) == []


def test_an_error_in_the_block_keeps_the_old_file_and_no_temporary_one(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text(OLD, encoding="utf-8")
    with pytest.raises(KeyError), atomic_writer(target) as out:
        out.write("half of it\n")
        raise KeyError("scoring failed")
    assert target.read_text(encoding="utf-8") == OLD
    assert temporary_files(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions_and_a_replaced_one_keeps_its_own(tmp_path):
    umask = os.umask(0o022)
    try:
        with atomic_writer(tmp_path / "new.txt") as out:
            out.write("x")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o644
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o640)
    with atomic_writer(kept) as out:
        out.write("new")
    assert kept.stat().st_mode & 0o777 == 0o640


def test_writing_through_a_symlink_replaces_the_file_it_points_to(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text(OLD, encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(real)
    with atomic_writer(tmp_path / "link.jsonl") as out:
        out.write("new\n")
    assert (tmp_path / "link.jsonl").is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_an_owned_file_replaces_whatever_stands_at_its_path(tmp_path):
    """A cache entry or the calibrations: a link or a FIFO in its place is replaced by the new
    file, never written through (a FIFO without a reader would block, /dev/zero swallow it)."""
    (tmp_path / "link.json").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.json")
    for name in ("link.json", "fifo.json"):
        write_text(tmp_path / name, "new\n", owned=True)
        path = tmp_path / name
        assert path.is_file() and not path.is_symlink() and path.read_text(encoding="utf-8") == "new\n"
    assert temporary_files(tmp_path) == []


def test_same_file_sees_through_symlinks_hard_links_and_relative_paths(tmp_path, monkeypatch):
    data = tmp_path / "data.jsonl"
    data.write_text("x")
    (tmp_path / "soft").symlink_to(data)
    os.link(data, tmp_path / "hard")
    monkeypatch.chdir(tmp_path)
    assert same_file(tmp_path / "soft", data) and same_file(tmp_path / "hard", data)
    assert same_file("data.jsonl", data) and not same_file(tmp_path / "new.jsonl", data)


def test_a_full_device_is_a_write_error_not_a_traceback():
    with pytest.raises(WriteError, match="cannot write /dev/full: No space left on device"):
        with atomic_writer("/dev/full") as out:
            out.write("x" * 100_000)


def test_score_to_a_device_is_refused_before_anything_is_written(tmp_path, capsys):
    """Issue 28 refuses every output that is not a regular file, devices included; the
    standard streams are the exception (`tests/test_guard.py`)."""
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(good("a")), encoding="utf-8")
    assert main(["score", str(data), "--out", "/dev/full", "--quiet"]) == 2
    assert "explorer: --out /dev/full is a character device, not a regular file" in capsys.readouterr().err


def test_score_to_an_unwritable_folder_exits_3_before_scoring(tmp_path, capsys):
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(good("a")), encoding="utf-8")
    out = unwritable_folder(tmp_path) / "scores.jsonl"
    assert main(["score", str(data), "--out", str(out), "--quiet"]) == 3
    assert f"cannot write {out}" in capsys.readouterr().err
    assert not out.exists()


def test_a_disk_that_fills_up_mid_run_leaves_the_old_output_and_no_partial_file(tmp_path):
    """The process may not grow a file past 4 kB (RLIMIT_FSIZE): its writes fail as on a full disk."""
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(*(good(f"e{i}") for i in range(50))), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    out.write_text(OLD, encoding="utf-8")
    run = explorer("score", str(data), "--out", str(out), "--quiet", "--no-cache", file_size_limit=4096)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 3, stderr
    assert f"explorer: cannot write {out}: File too large; nothing was written" in stderr
    assert out.read_text(encoding="utf-8") == OLD
    assert temporary_files(tmp_path) == []


def test_a_run_killed_mid_way_leaves_the_previous_output_whole(tmp_path, many_examples):
    out = tmp_path / "scores.jsonl"
    out.write_text(OLD, encoding="utf-8")
    run = explorer("score", str(many_examples), "--out", str(out), "--quiet", "--no-cache")

    # Killed once it has written some scores, to a temporary file or (as it did) to the output itself.
    def writing() -> bool:
        temporary = any(p.stat().st_size > 0 for p in tmp_path.glob(".scores.jsonl.*.tmp"))
        return temporary or out.read_text(encoding="utf-8") != OLD or run.poll() is not None

    wait_for(writing)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=60)
    assert run.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert out.read_text(encoding="utf-8") == OLD


def test_two_runs_writing_one_output_leave_one_whole_file(tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(jsonl(*(good(f"a{i}") for i in range(1_500))), encoding="utf-8")
    second.write_text(jsonl(*(good(f"b{i}") for i in range(1_000))), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    runs = [explorer("score", str(path), "--out", str(out), "--quiet", "--no-cache") for path in (first, second)]
    for run in runs:
        run.communicate(timeout=120)
        assert run.returncode == 0
    ids = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert ids in ([f"a{i}" for i in range(1_500)], [f"b{i}" for i in range(1_000)])
    assert temporary_files(tmp_path) == []


# Issue 52: the temporary file a SIGKILL leaves is removed by the next write of the same output.


def test_the_next_write_removes_a_dead_writers_temporary_file_and_no_live_ones(tmp_path):
    target = tmp_path / "out.jsonl"
    (tmp_path / ".out.jsonl.abc123.tmp").write_text("", encoding="utf-8")  # what a SIGKILL left
    (tmp_path / ".other.jsonl.abc123.tmp").write_text("", encoding="utf-8")  # another output's
    with atomic_writer(target) as out:
        out.write("first\n")
        live = temporary_files(tmp_path)
        assert ".out.jsonl.abc123.tmp" not in live and len(live) == 2  # its own and the other output's
        write_text(target, "second\n")  # a second writer of the same output, while the first is writing
        assert set(live) <= set(temporary_files(tmp_path))  # the first one's file was kept
    assert target.read_text(encoding="utf-8") == "first\n"  # the last to finish wins, whole
    assert temporary_files(tmp_path) == [".other.jsonl.abc123.tmp"]


def test_a_run_killed_mid_way_leaves_a_temporary_file_the_next_run_removes(tmp_path, many_examples):
    out = tmp_path / "scores.jsonl"
    run = explorer("score", str(many_examples), "--out", str(out), "--quiet", "--no-cache")
    wait_for(lambda: temporary_files(tmp_path) or run.poll() is not None)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=60)
    assert run.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert temporary_files(tmp_path), "killed before it made its temporary file"
    small = tmp_path / "small.jsonl"
    small.write_text(jsonl(good("a")), encoding="utf-8")
    assert main(["score", str(small), "--out", str(out), "--quiet", "--no-cache"]) == 0
    assert temporary_files(tmp_path) == []


# Issue 28: an input is read only when it is a regular file, within a size limit.


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_validate_refuses_a_device_or_a_fifo_at_once(tmp_path, source):
    if source == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)
    # The old code read /dev/zero until the kernel killed it, and waited for ever on the FIFO.
    run = explorer("validate", source, memory_limit=2 << 30)
    _, stderr = finish(run, 60)
    assert run.returncode == 3, stderr
    assert f"explorer: cannot read {source}: a " in stderr and "not a regular file" in stderr


def test_an_input_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text(jsonl(good("a")), encoding="utf-8")
    with pytest.raises(OSError, match=r"\d bytes, more than the 10 bytes read at most") as refused:
        read_regular(path, 10)
    assert refused.value.errno == errno.EFBIG
    assert read_regular(path, 10_000) == path.read_bytes()
