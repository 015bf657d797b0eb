"""The team-written corpus builder (`python -m explorer.data.written`) through the guard (issue 52):
it never writes its own input, the repository or the shared data, reads only regular files and
writes no empty output."""

import os

import pytest

from explorer.config import CHECKOUT


def test_the_written_corpus_builder_never_writes_its_own_input(tmp_path, capsys):
    from explorer.data import written

    corpus = CHECKOUT / "training_data" / "written" / "hand-1.jsonl"
    before = corpus.read_bytes()
    assert written.main(["--out", str(corpus)]) == 2
    assert f"--out {corpus} is the input file {corpus}" in capsys.readouterr().err
    copy = tmp_path / "dev.jsonl"  # a copy of a dev set, named as a corpus file and as the output
    copy.write_text('{"id": "x"}\n', encoding="utf-8")
    assert written.main([str(copy), "--out", str(copy)]) == 2
    assert copy.read_text(encoding="utf-8") == '{"id": "x"}\n' and corpus.read_bytes() == before


def test_the_written_corpus_builder_writes_nothing_when_no_record_is_good(fake_perspectrum, tmp_path, capsys):
    from explorer.data import written

    folder, _, _ = fake_perspectrum
    bad = tmp_path / "hand-x.jsonl"
    bad.write_text('{"claim": 1}\nnot json\n', encoding="utf-8")
    out = tmp_path / "built.jsonl"
    assert written.main([str(bad), "--data", str(folder), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "hand-x.jsonl:2: line: not JSON" in err and f"no record could be read: {out} was not written" in err
    assert not out.exists()


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_the_written_corpus_builder_reads_only_regular_files(tmp_path, source):
    from tests.faults import finish, python_module

    if source == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)
    # The old code read 8.4 GB of /dev/zero, and waited for ever on the FIFO.
    run = python_module("explorer.data.written", source, "--check", memory_limit=2 << 30)
    _, stderr = finish(run, 120)
    assert run.returncode == 3, stderr
    assert f"python -m explorer.data.written: {source}: a " in stderr and "not a regular file" in stderr


def test_the_written_corpus_builder_refuses_a_fifo_as_its_output(tmp_path):
    from tests.faults import finish, python_module

    out = tmp_path / "pipe"
    os.mkfifo(out)
    run = python_module("explorer.data.written", "--out", str(out))  # the old code hung opening it
    _, stderr = finish(run, 120)
    assert run.returncode == 2, stderr
    assert f"--out {out} is a named pipe (FIFO), not a regular file" in stderr
