"""The Perspectrum builder: deterministic, never reads the reserved test split, spans on the right text."""

import json
import os

import pytest

from explorer import cli
from explorer.data import perspectrum, perspectrum_claims
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from tests.data.conftest import SECRET


@pytest.mark.parametrize("splits", [("test",), ("train", "test"), ("dev", "test")])
def test_the_test_split_is_refused(fake_perspectrum, splits):
    folder, _, _ = fake_perspectrum
    with pytest.raises(perspectrum_claims.TestSplitError):
        perspectrum.build(splits, folder=folder)
    with pytest.raises(perspectrum_claims.TestSplitError):
        perspectrum_claims.load_claims(splits, folder)


def test_the_cli_refuses_the_test_split(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    assert perspectrum.main(["--out", str(tmp_path / "x.jsonl"), "--splits", "test", "--data", str(folder)]) == 2
    assert not (tmp_path / "x.jsonl").exists()


def test_explorer_build_data_writes_the_builders_examples_and_refuses_the_test_split(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    out = tmp_path / "built.jsonl"
    assert cli.main(["build-data", "--out", str(out), "--data", str(folder), "--seed", "3"]) == cli.EXIT_OK
    built = parse_jsonl(out)
    assert built.ok and [e.to_dict() for e in built.examples] == [
        e.to_dict() for e in perspectrum.build(folder=folder, seed=3)
    ]
    refused = tmp_path / "refused.jsonl"
    args = ["build-data", "--out", str(refused), "--data", str(folder), "--splits", "dev,test"]
    assert cli.main(args) == cli.EXIT_USAGE and not refused.exists()


def test_no_test_claim_text_is_ever_touched(fake_perspectrum, claim_text_reads):
    """Claim records of the test split are read for their id and perspective ids, never their text."""
    folder, _, _ = fake_perspectrum
    touched = claim_text_reads((6, 7))
    examples = perspectrum.build(folder=folder)
    assert examples and not touched


def test_no_test_split_text_or_perspective_in_any_example(fake_perspectrum):
    folder, test_pids, _ = fake_perspectrum
    examples = perspectrum.build(folder=folder, variants=4)
    assert {e.split for e in examples} == {"train", "dev"}
    for example in examples:
        assert not perspectrum.used_pids(example) & test_pids
        assert SECRET not in json.dumps(example.to_dict())
        assert example.extra[perspectrum.SOURCE_FIELD]["claim"] not in (6, 7)


def test_train_examples_use_no_dev_perspective(fake_perspectrum):
    folder, _, dev_pids = fake_perspectrum
    examples = perspectrum.build(("train",), folder=folder, variants=4)
    assert examples and all(not perspectrum.used_pids(e) & dev_pids for e in examples)


def test_deterministic_for_a_seed(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    paths = []
    for run, seed in enumerate((0, 0, 1)):
        paths.append(tmp_path / f"run{run}.jsonl")
        write_jsonl(perspectrum.build(folder=folder, seed=seed), paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_examples_are_valid_and_labelled_like_the_paper(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    examples = perspectrum.build(folder=folder)
    write_jsonl(examples, tmp_path / "out.jsonl")
    loaded = parse_jsonl(tmp_path / "out.jsonl")
    assert loaded.ok and len(loaded.examples) == len(examples)
    kinds = {(e.labels.kind, e.labels.hallucination, e.labels.coverage_error) for e in examples}
    assert kinds == {
        ("paraphrased", False, False),
        ("synthetic_paraphrased", True, False),
        ("synthetic_paraphrased", False, True),
    }


def _stated_text(folder, pid):
    pool = {e["pId"]: e["text"] for e in json.loads((folder / perspectrum_claims.POOL_FILE).read_text())}
    return pool[pid]


def test_a_synthetic_hallucination_spans_the_removed_arguments_sentence(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    examples = perspectrum.build(folder=folder, variants=4)
    hallucinations = [e for e in examples if e.labels.hallucination]
    assert hallucinations
    for example in hallucinations:
        removed = example.extra["synthetic"]["removed"]
        source = {(a["perspective"], a["argument"]): a for a in example.extra[perspectrum.SOURCE_FIELD]["arguments"]}
        entry = source[(removed["perspective"], removed["argument"])]
        stated = _stated_text(folder, entry["stated_pid"]).rstrip(".")
        ((start, end),) = example.labels.hallucinated_spans
        span = example.response[start:end]
        assert stated[1:] in span  # the first letter may be lower-cased mid-sentence
        # A whole sentence, or the first half of a merged one (cut before ", and ..." / "; they ...").
        assert span[0].isalpha() and (span.endswith(".") or example.response[end] in ",;")
        assert start == 0 or example.response[start - 1] == " "
        # The removed argument is gone from the input; the response is unchanged.
        assert removed["text"] not in [t for _, _, t in example.arguments()]


def test_a_synthetic_coverage_error_names_the_added_unstated_argument(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    examples = perspectrum.build(folder=folder, variants=4)
    errors = [e for e in examples if e.labels.coverage_error]
    assert errors
    for example in errors:
        ((uncovered),) = example.labels.uncovered
        added = example.extra["synthetic"]["added"]
        text = example.perspectives[uncovered.perspective].arguments[uncovered.argument]
        assert text == added["text"] and uncovered.spans is None
        assert text.rstrip(".")[1:] not in example.response
        source = example.extra[perspectrum.SOURCE_FIELD]
        cluster_of_added = source["added_pid"]
        used = {pid for a in source["arguments"] for pid in a["cluster"]}
        assert cluster_of_added not in used


# --------------------------------------------------------------------------------------
# On the real data, where it is on disk


@pytest.fixture(scope="module")
def real_folder():
    try:
        return shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))


def test_real_data_never_yields_a_test_claim_or_perspective(real_folder):
    split = json.loads((real_folder / perspectrum_claims.SPLIT_FILE).read_text())
    test_ids = {int(cid) for cid, which in split.items() if which == "test"}
    test_pids = {
        int(pid)
        for record in json.loads((real_folder / perspectrum_claims.CLAIMS_FILE).read_text())
        if int(record["cId"]) in test_ids
        for cluster in record["perspectives"]
        for pid in cluster["pids"]
    }
    examples = perspectrum.build(folder=real_folder)
    assert len(examples) > 2000
    assert {e.split for e in examples} == {"train", "dev"}
    for example in examples:
        assert example.extra[perspectrum.SOURCE_FIELD]["claim"] not in test_ids
        assert not perspectrum.used_pids(example) & test_pids
    again = perspectrum.build(folder=real_folder)
    assert [e.to_dict() for e in again] == [e.to_dict() for e in examples]


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_build_data_reads_only_regular_perspectrum_files(fake_perspectrum, tmp_path, kind):
    from tests.faults import explorer, finish

    folder, _, _ = fake_perspectrum
    claims = folder / "perspectrum_with_answers_v1.0.json"
    claims.unlink()
    if kind == "fifo":
        os.mkfifo(claims)
    else:
        claims.symlink_to("/dev/zero")
    # The old code waited for ever on the FIFO and read /dev/zero to 4 GB in 3 s.
    run = explorer("build-data", "--data", str(folder), "--out", str(tmp_path / "built.jsonl"), memory_limit=2 << 30)
    _, stderr = finish(run, 120)
    assert run.returncode == 3, stderr
    assert f"explorer: {claims}: a " in stderr and "not a regular file" in stderr
    assert not (tmp_path / "built.jsonl").exists()
