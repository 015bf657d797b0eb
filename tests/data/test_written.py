"""The team-written corpus: each record checked (spans found exactly once, labels agree with the
variant, train claims and perspectives only), a bad line keeps the good ones, and the shipped
corpus passes the check against the real Perspectrum."""

import json
import os

import pytest

from explorer.config import CHECKOUT
from explorer.data import perspectrum_claims, written
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from tests.data.conftest import SECRET

RESPONSE = (
    "Here's a quick overview. Supporters say the zoos point number one member two holds true, and a 2019 survey "
    "found 64 percent agree. Critics reply that the zoos point number four member two holds true. It depends on "
    "your values."
)


def _pids(folder, claim_id=1):
    claim = next(c for c in perspectrum_claims.load_claims(["train"], folder) if c.id == claim_id)
    pro = next(c for c in claim.clusters if c.stance == "pro")
    con = [c for c in claim.clusters if c.stance == "con"]
    return {"pro-1": pro.members[0][0], "con-1": con[0].members[0][0], "con-2": con[1].members[0][0]}


def _record(folder, **changes):
    record = {
        "claim": 1,
        "pids": _pids(folder),
        "variant": "both",
        "ambiguous_type": None,
        "style": "plain",
        "query": "Should zoos be banned?",
        "response": RESPONSE,
        "invented": ["and a 2019 survey found 64 percent agree"],
        "dropped": [{"argument": "con-2", "part": None}],
    }
    return record | changes


def _check(tmp_path, folder, *records):
    path = tmp_path / "hand-x.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return written.check([path], folder)


def test_a_record_becomes_a_train_example_whose_spans_point_at_the_text(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    checked = _check(tmp_path, folder, _record(folder))
    assert not checked.errors
    [example] = checked.examples
    [(start, end)] = example.labels.hallucinated_spans
    assert example.response[start:end] == "and a 2019 survey found 64 percent agree"
    [dropped] = example.labels.uncovered
    assert dropped.spans is None and example.perspectives[dropped.perspective].name == "con"
    assert example.split == "train" and example.labels.kind == "organic"
    assert (example.labels.hallucination, example.labels.coverage_error) == (True, True)


def test_a_partial_coverage_span_points_into_the_argument(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    record = _record(
        folder,
        variant="ambiguous",
        ambiguous_type="partial_coverage",
        invented=[],
        dropped=[{"argument": "con-2", "part": "holds true"}],
    )
    [example] = _check(tmp_path, folder, record).examples
    [dropped] = example.labels.uncovered
    [(start, end)] = dropped.spans
    assert example.perspectives[dropped.perspective].arguments[dropped.argument][start:end] == "holds true"


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"invented": ["a 1987 court ruling"]}, "invented[0]"),  # not in the text
        ({"invented": ["holds true"]}, "invented[0]"),  # twice in the text
        ({"variant": "clean"}, "invented/dropped"),  # labels disagree with the variant
        ({"variant": "hallucination"}, "invented/dropped"),
        ({"variant": "ambiguous", "ambiguous_type": "guess"}, "ambiguous_type"),
        ({"dropped": [{"argument": "pro-7", "part": None}]}, "dropped[0].argument"),
        ({"claim": 4}, "claim"),  # a dev claim
        ({"claim": 6}, "claim"),  # a test claim
        ({"pids": {"pro-1": 3}}, "pids.pro-1"),  # a perspective a test claim shares
        ({"response": "Too short."}, "response"),
        ({"response": RESPONSE + " {con: template}"}, "response"),
    ],
)
def test_a_bad_record_names_its_field_and_the_good_ones_are_kept(fake_perspectrum, tmp_path, changes, field):
    folder, _, _ = fake_perspectrum
    checked = _check(tmp_path, folder, _record(folder), _record(folder, **changes), "not json")
    assert [e.id for e in checked.examples] == ["written-hand-x-1-both"]
    assert [(e.where, e.field) for e in checked.errors] == [("hand-x.jsonl:2", field), ("hand-x.jsonl:3", "line")]


def test_the_check_reads_no_test_claim_text(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    checked = _check(tmp_path, folder, _record(folder), _record(folder, claim=6))
    assert all(SECRET not in json.dumps(e.to_dict()) for e in checked.examples)


@pytest.fixture(scope="module")
def real_corpus():
    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    return written.check(written.corpus_files() + written.corpus_files(written.SECOND_DIR), folder)


def test_the_shipped_corpus_passes_its_check(real_corpus):
    assert real_corpus.errors == []
    assert len(real_corpus.examples) >= 2500
    variants = {e.extra["variant"] for e in real_corpus.examples}
    assert variants == set(written.VARIANTS)
    second = [e for e in real_corpus.examples if "argument_spans" in e.extra]
    assert len(second) >= 1000 and {e.extra["hand"] for e in second} >= {f"hand-{n}" for n in range(7, 13)}


def test_the_shipped_corpus_spans_name_the_text_and_the_build_is_deterministic(real_corpus, tmp_path):
    for example in real_corpus.examples:
        for start, end in example.labels.hallucinated_spans:
            assert example.response[start:end].strip() == example.response[start:end] != ""
    files = written.corpus_files() + written.corpus_files(written.SECOND_DIR)
    again = written.check(files, shared_data_dir("perspectrum") / "perspectrum")
    assert [e.to_dict() for e in again.examples] == [e.to_dict() for e in real_corpus.examples]


def test_the_corpus_files_hold_no_argument_text(real_corpus):
    """Arguments are perspective ids; a part left out is a character span of its argument."""
    for path in written.corpus_files() + written.corpus_files(written.SECOND_DIR):
        for line in path.read_text("utf-8").splitlines():
            record = json.loads(line)
            assert set(record) <= written.RECORD_KEYS
            assert all(item["part"] is None or isinstance(item["part"], list) for item in record.get("dropped", []))


LONG_RESPONSE = (
    "Here's a quick overview. Supporters say the zoos point number one member two holds true, a view most "
    "experts share. Critics reply that the zoos point number four member two does not hold. It depends on "
    "your values."
)


def _second_recipe(folder, **changes):
    record = _record(
        folder,
        variant="distortion",
        response=LONG_RESPONSE,
        invented=[],
        dropped=[],
        stated={"pro-1": ["the zoos point number one member two holds true"]},
        distorted=[
            {
                "argument": "con-1",
                "text": "the zoos point number four member two does not hold",
                "changed": "does not hold",
                "how": "negation",
            }
        ],
    )
    record["pids"].pop("con-2")
    return record | changes


def test_a_distortion_is_a_hallucination_and_a_coverage_error_of_its_argument(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    checked = _check(tmp_path, folder, _second_recipe(folder))
    assert not checked.errors
    [example] = checked.examples
    [(start, end)] = example.labels.hallucinated_spans
    assert example.response[start:end] == "the zoos point number four member two does not hold"
    [uncovered] = example.labels.uncovered
    assert (uncovered.perspective, uncovered.argument, uncovered.spans) == (1, 0, None)
    [distortion] = example.extra["distortions"]
    assert example.response[slice(*distortion["changed"])] == "does not hold"
    [[pro], [con]] = example.extra["argument_spans"]
    assert [example.response[s:e] for s, e in pro] == ["the zoos point number one member two holds true"]
    assert con == []


def test_an_invention_of_the_second_recipe_names_its_kind(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    record = _second_recipe(
        folder,
        variant="hallucination",
        response=LONG_RESPONSE.replace("does not hold", "holds true"),
        stated={
            "pro-1": ["the zoos point number one member two holds true"],
            "con-1": ["the zoos point number four member two holds true"],
        },
        distorted=[],
        invented=[{"text": "a view most experts share", "kind": "consensus"}],
    )
    [example] = _check(tmp_path, folder, record).examples
    assert example.extra["inventions"] == [{"span": list(example.labels.hallucinated_spans[0]), "kind": "consensus"}]


@pytest.mark.parametrize(
    "changes, field",
    [
        (
            {"stated": {"pro-1": ["the zoos point number one member two holds true"], "con-1": ["does not hold"]}},
            "stated.con-1",
        ),
        ({"stated": {}}, "stated.pro-1"),  # pro-1 neither stated, distorted nor dropped
        (
            {"distorted": [{"argument": "con-1", "text": "does not hold", "changed": "not", "how": "guess"}]},
            "distorted[0].how",
        ),
        ({"invented": [{"text": "a view most experts share", "kind": "gossip"}]}, "invented[0].kind"),
        ({"variant": "clean"}, "invented/dropped"),
    ],
)
def test_a_bad_second_recipe_record_names_its_field(fake_perspectrum, tmp_path, changes, field):
    folder, _, _ = fake_perspectrum
    checked = _check(tmp_path, folder, _second_recipe(folder, **changes))
    assert [e.field for e in checked.errors] == [field]


def test_hands_inputs_are_train_claims_with_both_sides_and_up_to_five_arguments_a_side(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    claims = perspectrum_claims.load_claims(["train"], folder)
    inputs = written.hand_inputs(claims, used={1}, seed=3)
    assert inputs == written.hand_inputs(claims, used={1}, seed=3)
    assert inputs[-1]["claim"] == 1 and {i["claim"] for i in inputs} == {1, 2, 3}
    for item in inputs:
        sides = [ref.split("-")[0] for ref in item["pids"]]
        assert {"pro", "con"} <= set(sides) and max(sides.count("pro"), sides.count("con")) <= 5
        assert all(SECRET not in text for text in item["arguments"].values())


# Issue 52: through the guard, it never writes its own input, the repository or the shared data,
# reads only regular files and writes no empty output.


def test_the_written_corpus_builder_never_writes_its_own_input(tmp_path, capsys):
    corpus = CHECKOUT / "training_data" / "written" / "hand-1.jsonl"
    before = corpus.read_bytes()
    assert written.main(["--out", str(corpus)]) == 2
    assert f"--out {corpus} is the input file {corpus}" in capsys.readouterr().err
    copy = tmp_path / "dev.jsonl"  # a copy of a dev set, named as a corpus file and as the output
    copy.write_text('{"id": "x"}\n', encoding="utf-8")
    assert written.main([str(copy), "--out", str(copy)]) == 2
    assert copy.read_text(encoding="utf-8") == '{"id": "x"}\n' and corpus.read_bytes() == before


def test_the_written_corpus_builder_writes_nothing_when_no_record_is_good(fake_perspectrum, tmp_path, capsys):
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
