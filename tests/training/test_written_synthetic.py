"""Synthetic errors of the team-written corpus: each removed argument's statement is the span,
paraphrased inputs come from the argument's cluster, deterministic, train claims only."""

import json

import pytest

from explorer.data.example import Example, Labels, Perspective
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.data.perspectrum_claims import Cluster, PerspectrumClaim
from explorer.detectors.matching import MatchingDetector
from explorer.training import written_synthetic

BULLYING = "School uniforms reduce bullying over clothing."
MONEY = "Uniforms save parents money."
EXPRESSION = "Uniforms stifle the self-expression of students."
CLAIM = PerspectrumClaim(
    id=1,
    split="train",
    text="Schools should require uniforms",
    clusters=(
        Cluster("pro", ((1, BULLYING), (2, "Uniforms mean fewer children are teased for what they wear."))),
        Cluster("pro", ((3, MONEY), (4, "Families spend less on clothes when there is a uniform."))),
        Cluster("pro", ((5, "Uniforms make it easier to spot intruders on school grounds."),)),
        Cluster("con", ((6, EXPRESSION), (7, "A uniform stops pupils from expressing who they are."))),
    ),
)
ANSWER = Example(
    id="written-test-1-clean",
    query="Should schools require uniforms?",
    perspectives=(Perspective("pro", (BULLYING, MONEY)), Perspective("con", (EXPRESSION,))),
    response=(
        "## For\nSupporters note that uniforms cut bullying about clothes, and that they save families money. "
        "## Against\nCritics answer that a uniform keeps students from expressing themselves. "
        "Where you land depends on what you value."
    ),
    topic=CLAIM.text,
    labels=Labels(hallucination=False, coverage_error=False, kind="organic", ambiguous=False),
    split="train",
)


@pytest.fixture(scope="module")
def made():
    return written_synthetic.build([ANSWER], [CLAIM], MatchingDetector())


def test_a_removed_argument_is_invented_where_the_answer_states_it(made):
    prefix = f"{ANSWER.id}-synthetic-hallucination-0-"
    removed = {e.id.removeprefix(prefix): e for e in made if e.id.startswith(prefix)}
    assert set(removed) == {"0", "1"}
    assert not [e for e in made if "-synthetic-hallucination-1-" in e.id]  # the con side's only argument stays
    for argument, words in (("0", "bullying"), ("1", "money")):
        example = removed[argument]
        spans = [example.response[s:e] for s, e in example.labels.hallucinated_spans]
        assert example.labels.hallucination and len(example.perspectives[0].arguments) == 1
        assert spans and all(words in span for span in spans), spans
        assert "depends on what you value" not in " ".join(spans)


def test_paraphrased_inputs_take_another_member_of_each_cluster(made):
    restated = next(e for e in made if e.id == f"{ANSWER.id}-paraphrased")
    assert restated.response == ANSWER.response and not restated.labels.hallucination
    for (_, _, text), (_, _, original) in zip(restated.arguments(), ANSWER.arguments()):
        cluster = next(c for c in CLAIM.clusters if original in {t for _, t in c.members})
        assert text != original and text in {t for _, t in cluster.members}
    paraphrased_kinds = {e.labels.kind for e in made if e.id.startswith(restated.id + "-")}
    assert paraphrased_kinds == {"synthetic_paraphrased"}


def test_a_coverage_error_adds_an_unused_cluster_of_the_side(made):
    added = [e for e in made if "synthetic-coverage" in e.id]
    assert added and all(e.labels.coverage_error and not e.labels.hallucination for e in added)
    for example in added:
        (uncovered,) = example.labels.uncovered
        text = example.perspectives[uncovered.perspective].arguments[uncovered.argument]
        assert text == "Uniforms make it easier to spot intruders on school grounds."


def test_deterministic(made):
    again = written_synthetic.build([ANSWER], [CLAIM], MatchingDetector())
    assert [e.to_dict() for e in again] == [e.to_dict() for e in made]


def zoo_answer(tmp_path):
    """A written answer on a claim of the `fake_perspectrum` folder, saved as a builder's input."""
    zoo = [f"The animals point number {k} member 0 holds true." for k in range(6)]
    answer = ANSWER.replace(
        topic="Zoos should be banned",
        perspectives=(Perspective("pro", tuple(zoo[:2])), Perspective("con", (zoo[3],))),
        response=f"{zoo[0]} Also, {zoo[1].lower()} On the other side, {zoo[3].lower()}",
    )
    source = tmp_path / "written.jsonl"
    write_jsonl([answer], source)
    return source


def test_main_reads_train_claims_only_and_never_the_foreign_dev_set(
    fake_perspectrum, opened_files, monkeypatch, tmp_path
):
    folder, _, _ = fake_perspectrum
    source = zoo_answer(tmp_path)
    claims_read = []
    real_load = written_synthetic.load_claims
    monkeypatch.setattr(
        written_synthetic,
        "load_claims",
        lambda splits, folder: claims_read.append(tuple(splits)) or real_load(splits, folder),
    )
    out = tmp_path / "out.jsonl"
    assert written_synthetic.main(["--data", str(source), "--out", str(out), "--perspectrum", str(folder)]) == 0
    assert claims_read == [("train",)]
    assert opened_files and not [path for path in opened_files if "npov_foreign" in path]
    written = parse_jsonl(out).examples
    assert written and all("Reserved" not in json.dumps(e.to_dict()) for e in written)


def test_a_misstatement_turns_one_stated_argument_and_marks_it_invented_and_uncovered(made):
    [turned] = [e for e in made if "-misstatement-" in e.id]
    [(start, end)] = turned.labels.hallucinated_spans
    [uncovered] = turned.labels.uncovered
    stated = written_synthetic.statements(MatchingDetector(), ANSWER)[(uncovered.perspective, uncovered.argument)]
    before = ANSWER.response[stated[0][0] : stated[0][1]]
    assert turned.response[start:end] != before
    assert turned.response[:start] == ANSWER.response[: stated[0][0]]
    assert turned.labels.hallucination and turned.labels.coverage_error


def test_an_answer_of_the_second_recipe_is_turned_where_its_spans_say():
    statement = "uniforms cut bullying about clothes"
    start = ANSWER.response.index(statement)
    spans = [[[[start, start + len(statement)]], []], [[]]]
    example = ANSWER.replace(extra={"argument_spans": spans})
    assert written_synthetic.statements(None, example) == {(0, 0): [(start, start + len(statement))]}


def test_misstatements_only_writes_the_turned_answers_alone(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    source, every, turned = zoo_answer(tmp_path), tmp_path / "every.jsonl", tmp_path / "turned.jsonl"
    for out, more in ((every, []), (turned, ["--misstatements-only"])):
        argv = ["--data", str(source), "--out", str(out), "--perspectrum", str(folder), *more]
        assert written_synthetic.main(argv) == 0
    every, turned = parse_jsonl(every).examples, parse_jsonl(turned).examples
    assert turned and all(written_synthetic.MISSTATEMENT in e.id for e in turned)
    assert [e.to_dict() for e in turned] == [e.to_dict() for e in every if written_synthetic.MISSTATEMENT in e.id]
    assert len(every) > len(turned)
