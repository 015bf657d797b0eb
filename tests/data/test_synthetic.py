"""Synthetic errors (§4.2): which argument goes or comes, labels, spans, kinds, reproducibility."""

import dataclasses
import json

import pytest

from explorer.cli import main
from explorer.data import synthetic
from explorer.data.example import Labels
from explorer.data.jsonl import parse_jsonl
from explorer.data.samples import SAMPLE_DIR, load_samples
from tests.helpers import make_example

CLEAN = Labels(hallucination=False, coverage_error=False, kind="organic", ambiguous=False)
RESPONSE = "Taxes cut sugar intake. The money pays for clinics. But the poor pay most."


@pytest.fixture
def clean_example():
    return make_example(
        RESPONSE,
        ("pro", ["Taxes reduce sugar consumption.", "Revenue funds health clinics."]),
        ("con", ["Taxes hurt poor families."]),
        example_id="sugar-clean",
        topic="Sugar tax",
        labels=CLEAN,
        split="train",
        extra={
            "verbalizations": [
                {"perspective": 0, "argument": 0, "spans": [[0, 23]]},
                {"perspective": 0, "argument": 1, "spans": [[24, 51]]},
                {"perspective": 1, "argument": 0, "spans": [[52, 74]]},
            ]
        },
    )


SPARE = {("Sugar tax", "con"): ["Shoppers simply buy sweets instead."], ("Sugar tax", "pro"): ["Firms cut sugar."]}


def test_hallucination_removes_an_argument_the_response_states_and_marks_its_sentence(clean_example):
    made = synthetic.make_hallucination(clean_example, choice=(0, 1))
    assert made.id == "sugar-clean-synthetic-hallucination"
    assert made.perspectives[0].arguments == ("Taxes reduce sugar consumption.",)
    assert made.response == clean_example.response
    assert made.labels == Labels(
        hallucination=True, coverage_error=False, kind="synthetic", ambiguous=False, hallucinated_spans=((24, 51),)
    )
    assert made.response[24:51] == "The money pays for clinics."
    assert made.extra["synthetic"]["removed"] == {
        "perspective": 0,
        "argument": 1,
        "text": "Revenue funds health clinics.",
    }
    # the con verbalization keeps pointing at the con argument
    assert synthetic.verbalizations(made) == {(0, 0): ((0, 23),), (1, 0): ((52, 74),)}
    assert made.split == "train" and made.topic == "Sugar tax"


def test_the_last_argument_of_a_perspective_is_never_removed(clean_example):
    assert synthetic.removable_arguments(clean_example) == [(0, 0), (0, 1)]
    with pytest.raises(ValueError, match="cannot be removed"):
        synthetic.make_hallucination(clean_example, choice=(1, 0))
    for seed in range(30):
        made = synthetic.make_hallucination(clean_example, seed=seed)
        assert all(p.arguments for p in made.perspectives)
    single = make_example("R.", ("pro", ["A."]), ("con", ["B."]), labels=CLEAN)
    assert synthetic.make_hallucination(single) is None


def test_coverage_error_adds_an_unused_argument_of_the_topic_and_perspective(clean_example):
    made = synthetic.make_coverage_error(
        clean_example, SPARE, seed=0, choice=(1, "Shoppers simply buy sweets instead.")
    )
    assert made.id == "sugar-clean-synthetic-coverage"
    (uncovered,) = made.labels.uncovered
    assert made.perspectives[1].arguments[uncovered.argument] == "Shoppers simply buy sweets instead."
    assert uncovered.perspective == 1 and uncovered.spans is None
    assert made.labels.coverage_error and made.labels.hallucination is False and not made.labels.hallucinated_spans
    assert len(made.perspectives[1].arguments) == 2
    # verbalizations follow the shifted argument
    con = synthetic.verbalizations(made)
    assert con[(1, 1 - uncovered.argument)] == ((52, 74),)


def test_an_argument_the_example_already_has_is_never_added(clean_example):
    pool = {("Sugar tax", "pro"): ["Taxes reduce sugar consumption."], ("Sugar tax", "con"): []}
    assert synthetic.make_coverage_error(clean_example, pool) is None


def test_spare_arguments_come_first_other_examples_of_the_topic_only_without_them(clean_example):
    other = make_example("x", ("pro", ["Another pro point."]), ("con", ["Another con point."]), topic="Sugar tax")
    pool = synthetic.addition_pool([clean_example, other], {("Sugar tax", "con"): ["Spare con."]})
    assert pool[("Sugar tax", "con")] == ["Spare con."]
    assert "Another pro point." in pool[("Sugar tax", "pro")]


def test_same_seed_same_output_and_kinds_follow_the_source(clean_example):
    paraphrased = clean_example.replace(id="sugar-para", labels=dataclasses.replace(CLEAN, kind="paraphrased"))
    errored = clean_example.replace(id="sugar-bad", labels=Labels(hallucination=True, coverage_error=False))
    examples = [clean_example, paraphrased, errored]
    first = synthetic.synthesize(examples, SPARE, seed=3)
    assert [e.to_dict() for e in first] == [e.to_dict() for e in synthetic.synthesize(examples, SPARE, seed=3)]
    assert [(e.id, e.labels.kind) for e in first] == [
        ("sugar-clean-synthetic-hallucination", "synthetic"),
        ("sugar-clean-synthetic-coverage", "synthetic"),
        ("sugar-para-synthetic-hallucination", "synthetic_paraphrased"),
        ("sugar-para-synthetic-coverage", "synthetic_paraphrased"),
    ]
    # one example's draw does not depend on the others in the file
    alone = synthetic.synthesize([paraphrased], SPARE, seed=3)
    assert [e.to_dict() for e in alone] == [e.to_dict() for e in first[2:]]


def test_pinned_choices_on_the_sample_data():
    examples = {e.id: e for e in load_samples()}
    source = examples["zoos-clean"]
    pool = synthetic.addition_pool(load_samples(), synthetic.read_spare_arguments(SAMPLE_DIR / "spare_arguments.jsonl"))
    hallucination = synthetic.make_hallucination(source, seed=0)
    coverage = synthetic.make_coverage_error(source, pool, seed=0)
    assert hallucination.extra["synthetic"]["removed"]["perspective"] == 0
    assert hallucination.extra["synthetic"]["removed"]["argument"] == 3
    ((start, end),) = hallucination.labels.hallucinated_spans
    assert hallucination.response[start:end].startswith("Many of them channel part of their ticket revenue")
    added = coverage.extra["synthetic"]["added"]
    assert (added["perspective"], added["argument"]) == (1, 0)
    assert added["text"].startswith("The money spent on zoo facilities")
    assert coverage.perspectives[1].arguments[0] == added["text"]


def test_the_shipped_synthetic_file_is_up_to_date():
    """The shipped synthetic.jsonl is `explorer synth` of the shipped examples.jsonl with --seed 0."""
    examples = load_samples()
    spare = synthetic.read_spare_arguments(SAMPLE_DIR / "spare_arguments.jsonl")
    expected = [*examples, *synthetic.synthesize(examples, spare, seed=0)]
    shipped = parse_jsonl(SAMPLE_DIR / "synthetic.jsonl")
    assert not shipped.errors
    assert [e.to_dict() for e in shipped.examples] == [e.to_dict() for e in expected], (
        "run: explorer synth explorer/resources/samples/examples.jsonl --out explorer/resources/samples/synthetic.jsonl"
    )
    made = [e for e in shipped.examples if e.labels.kind in ("synthetic", "synthetic_paraphrased")]
    assert len(made) == 2 * sum(synthetic.is_error_free(e.labels) for e in examples)
    assert all(e.labels.hallucinated_spans for e in made if e.labels.hallucination)


def test_cli_writes_the_input_then_the_synthetic_examples(tmp_path, clean_example, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(clean_example.to_dict()) + "\n", encoding="utf-8")
    (tmp_path / "spare_arguments.jsonl").write_text(
        json.dumps({"topic": "Sugar tax", "perspective": "con", "arguments": ["Shoppers buy sweets."]}) + "\n"
    )
    out = tmp_path / "out.jsonl"
    assert main(["synth", str(source), "--out", str(out), "--seed", "1"]) == 0
    ids = [e.id for e in parse_jsonl(out).examples]
    assert ids == ["sugar-clean", "sugar-clean-synthetic-hallucination", "sugar-clean-synthetic-coverage"]
    assert "2 synthetic example(s) from 1 error-free example(s)" in capsys.readouterr().err
    assert main(["synth", str(source), "--out", str(out), "--only-synthetic"]) == 0
    assert len(parse_jsonl(out).examples) == 2
