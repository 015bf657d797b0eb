"""The team-written twins for the meaning judge: each line checked (train claims and perspectives
only, the changed words found once, a twin whole), a bad line keeps the good ones, the shipped
files pass against the real Perspectrum, and the judge's pairs take them with their spans."""

import json

import pytest

from explorer.data import perspectrum_claims, written_pairs
from explorer.data.labels import JUDGE_LABELS
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from explorer.detectors.ops.judge import MISSTATES, STATES
from explorer.training import judge_data
from explorer.training.data import topic_half
from tests.data.conftest import SECRET

FAITHFUL = "Supporters say the zoo point is far from false, and it holds for every zoo."
TURNED = "Supporters say the zoo point is far from true, and it holds for every zoo."


def _claim(folder, claim_id=1):
    return next(c for c in perspectrum_claims.load_claims(["train"], folder) if c.id == claim_id)


def _twin(folder, **changes):
    pid = _claim(folder).clusters[0].members[0][0]
    base = {"claim": 1, "pid": pid, "twin": "a", "how": "restated-negation", "frame": "attribution"}
    return [
        base | {"label": "states", "text": FAITHFUL},
        base | {"label": "misstates", "how": "negation", "text": TURNED, "changed": "far from true"} | changes,
    ]


def _check(tmp_path, folder, *records):
    path = tmp_path / "hand-x.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return written_pairs.check([path], folder)


def test_a_twin_becomes_a_statement_and_a_misstatement_whose_changed_words_are_a_span(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    pairs, errors = _check(tmp_path, folder, *_twin(folder))
    assert errors == []
    faithful, turned = sorted(pairs, key=lambda p: p.label != "states")
    assert faithful.argument == turned.argument == _claim(folder).clusters[0].members[0][1]
    assert faithful.changed is None and turned.text[slice(*turned.changed)] == "far from true"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"changed": "nowhere in it"}, "changed"),
        ({"changed": "zoo"}, "changed"),  # twice in the text
        ({"changed": "rom tru"}, "changed"),  # part of a word
        ({"label": "contradicts"}, "label"),
        ({"text": "Zoos are bad."}, "text"),  # too short
        ({"text": "An unrelated sentence about the weather in spring, and rain.", "changed": "rain"}, "text"),
    ],
)
def test_a_bad_line_is_named_with_its_field_and_its_twin_is_dropped_whole(fake_perspectrum, tmp_path, change, field):
    folder, _, _ = fake_perspectrum
    other = [r | {"twin": "b", "text": r["text"].replace("every", "each")} for r in _twin(folder)]
    pairs, errors = _check(tmp_path, folder, *_twin(folder, **change), "not json", *other)
    assert {(e.where, e.field) for e in errors} >= {("hand-x.jsonl:3", "line")}
    assert any(e.field == field for e in errors)
    assert {p.where for p in pairs} == {"hand-x.jsonl:4", "hand-x.jsonl:5"}


def test_a_dev_or_test_claim_is_refused_and_its_text_never_read(fake_perspectrum, tmp_path, claim_text_reads):
    folder, _, _ = fake_perspectrum
    touched = claim_text_reads({4, 6, 7})
    records = [r | {"claim": claim} for claim in (4, 6) for r in _twin(folder)]
    pairs, errors = _check(tmp_path, folder, *records)
    assert pairs == [] and {e.field for e in errors} == {"claim"}
    assert touched == [] and all(SECRET not in str(e) for e in errors)


def test_a_perspective_copied_word_for_word_is_refused(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    copied = _claim(folder).clusters[0].members[1][1]
    _, errors = _check(tmp_path, folder, _twin(folder)[0] | {"label": "absent", "text": copied})
    assert [e.field for e in errors] == ["text"]


def test_the_judges_pairs_take_each_twin_against_every_member_of_its_cluster(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    twins, _ = _check(tmp_path, folder, *_twin(folder))
    claims = perspectrum_claims.load_claims(["train"], folder)
    pairs = list(judge_data.twin_pairs(twins, claims))
    members = {text for _, text in _claim(folder).clusters[0].members}
    assert {p.argument for p in pairs} == members and {p.source for p in pairs} == {"twins"}
    turned = [p for p in pairs if p.label == MISSTATES]
    assert len(turned) == len(members) and all(p.text[slice(*p.changed)] == "far from true" for p in turned)
    assert sum(p.label == STATES for p in pairs) == len(members)


def test_the_shipped_twins_pass_their_check():
    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    pairs, errors = written_pairs.check(written_pairs.pair_files(), folder)
    assert errors == []
    assert {p.label for p in pairs} == set(JUDGE_LABELS) and len(pairs) >= 1000
    # each hand wrote on the claims it was given, of the judge's half (the verdict's head never sees them)
    given = written_pairs.hand_inputs(perspectrum_claims.load_claims(["train"], folder))
    for k, claims in enumerate(given, 1):
        written = {p.topic for p in pairs if p.where.startswith(f"hand-{k}.jsonl:")}
        assert written <= {c["claim_text"] for c in claims}
    assert all(topic_half(p.topic) == "components" for p in pairs)


def test_the_command_writes_the_checked_lines_with_their_arguments_and_exits_1_on_a_bad_one(
    fake_perspectrum, tmp_path, capsys
):
    folder, _, _ = fake_perspectrum
    path = tmp_path / "hand-x.jsonl"
    path.write_text("\n".join([*map(json.dumps, _twin(folder)), "not json"]) + "\n")
    out = tmp_path / "twins.jsonl"
    assert written_pairs.main([str(path), "--data", str(folder), "--out", str(out)]) == 1
    assert "hand-x.jsonl:3: line: not JSON" in capsys.readouterr().err
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["label"] for w in written] == ["states", "misstates"]
    assert {w["argument"] for w in written} == {_claim(folder).clusters[0].members[0][1]}
