"""The assistant-style Perspectrum builder: deterministic, train split only, never the foreign dev
set, and every span names exactly the text it says it names."""

import json

import pytest

from explorer.data import answer_styles, perspectrum, perspectrum_answers, perspectrum_claims
from explorer.data.answer_pools import yes_no_question
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.data.perspectrum_responses import Casing
from tests.data.conftest import SECRET


@pytest.fixture
def built(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    return perspectrum_answers.build(folder=folder, variants=4)


def test_deterministic_for_a_seed(fake_perspectrum, tmp_path):
    folder, _, _ = fake_perspectrum
    paths = []
    for run, seed in enumerate((0, 0, 1)):
        paths.append(tmp_path / f"run{run}.jsonl")
        write_jsonl(perspectrum_answers.build(folder=folder, seed=seed), paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_only_train_claims_and_no_dev_or_test_perspective(fake_perspectrum, built):
    _, test_pids, dev_pids = fake_perspectrum
    assert built and {e.split for e in built} == {"train"}
    for example in built:
        assert not perspectrum.used_pids(example) & (test_pids | dev_pids)
        assert SECRET not in json.dumps(example.to_dict())


def test_no_test_or_dev_claim_text_is_ever_touched(fake_perspectrum, claim_text_reads):
    folder, _, _ = fake_perspectrum
    touched = claim_text_reads((4, 5, 6, 7))
    assert perspectrum_answers.build(folder=folder) and not touched


def test_the_foreign_dev_set_is_never_opened(fake_perspectrum, opened_files, tmp_path):
    folder, _, _ = fake_perspectrum
    assert perspectrum_answers.main(["--out", str(tmp_path / "out.jsonl"), "--data", str(folder)]) == 0
    assert opened_files and not [path for path in opened_files if "npov_foreign" in path]


def test_every_span_names_its_text(built):
    kinds = set()
    for example in built:
        response, labels = example.response, example.labels
        for start, end in labels.hallucinated_spans:
            assert 0 <= start < end <= len(response)
            text = response[start:end]
            assert text == text.strip() and text.strip(",;") == text
        if "answer" in example.extra:
            kinds.add(example.id.rsplit("-", 1)[1])
            invented = example.extra["answer"]["invented"]
            assert invented == [response[s:e] for s, e in labels.hallucinated_spans]
            assert bool(invented) == bool(labels.hallucination)
        for record in example.extra.get("verbalizations", []):
            for start, end in record["spans"]:
                assert 0 <= start < end <= len(response) and "\n" not in response[start:end]
    assert kinds == {"clean", "hallucination", "coverage", "both", "ambiguous"}


def test_woven_errors_sit_inside_an_unchanged_clean_answer(built):
    """The twins share the clean answer's words: taking the invented spans out of a one-error
    answer built by clause leaves the clean answer (the error is the only difference)."""
    by_id = {e.id: e for e in built}
    checked = 0
    for example in built:
        answer = example.extra.get("answer", {})
        if not example.id.endswith("-hallucination") or answer.get("errors") not in (["reason"], ["example_clause"]):
            continue
        clean = by_id[example.id.replace("-hallucination", "-clean")]
        ((start, end),) = example.labels.hallucinated_spans
        assert example.response[: start - 2] + example.response[end:] == clean.response
        checked += 1
    assert checked


def test_a_dropped_argument_is_not_stated_and_is_named(built, fake_perspectrum):
    folder, _, _ = fake_perspectrum
    pool = {e["pId"]: e["text"] for e in json.loads((folder / perspectrum_claims.POOL_FILE).read_text())}
    dropped = [e for e in built if e.labels.coverage_error and "synthetic" not in e.extra]
    assert dropped
    for example in dropped:
        ((uncovered),) = example.labels.uncovered
        entry = next(
            a
            for a in example.extra["perspectrum"]["arguments"]
            if (a["perspective"], a["argument"]) == (uncovered.perspective, uncovered.argument)
        )
        assert pool[entry["stated_pid"]].rstrip(".")[1:] not in example.response
        assert example.labels.hallucination == example.id.endswith("-both")


def test_the_papers_synthetic_errors_of_the_clean_answers(built):
    removed = [e for e in built if e.id.endswith("-synthetic-hallucination")]
    added = [e for e in built if e.id.endswith("-synthetic-coverage")]
    assert removed and added
    assert {e.labels.kind for e in removed + added} == {"synthetic_paraphrased"}
    for example in removed:
        assert example.labels.hallucinated_spans
        text = example.extra["synthetic"]["removed"]["text"]
        assert text not in [t for _, _, t in example.arguments()]


def test_examples_are_valid_json_lines(built, tmp_path):
    write_jsonl(built, tmp_path / "out.jsonl")
    loaded = parse_jsonl(tmp_path / "out.jsonl")
    assert loaded.ok and len(loaded.examples) == len(built)


def test_a_strengthened_qualifier_is_the_span():
    out = answer_styles.Written()
    statement = answer_styles.Statement(
        "pro", ((0, 0),), ("Uniforms may reduce bullying.",), strengthen=("may", "will")
    )
    answer_styles.write_statement(out, statement, "Supporters argue that {x}", Casing(["Then uniforms may help."]))
    assert out.text == "Supporters argue that uniforms will reduce bullying."
    ((start, end),) = out.invented
    assert out.text[start:end] == "will"
    assert out.verbalizations[(0, 0)] == [(0, len(out.text))]


def test_an_invented_clause_is_its_own_span():
    out = answer_styles.Written()
    statement = answer_styles.Statement("con", ((1, 0),), ("It costs too much",), clause=(", ", "since budgets fell"))
    answer_styles.write_statement(out, statement, "{x}", Casing([]))
    assert out.text == "It costs too much, since budgets fell."
    ((start, end),) = out.invented
    assert out.text[start:end] == "since budgets fell"
    assert [out.text[s:e] for s, e in out.verbalizations[(1, 0)]] == ["It costs too much"]


def test_ambiguous_types_left_out_change_nothing_else(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    every = perspectrum_answers.build(folder=folder, variants=4)
    some = perspectrum_answers.build(folder=folder, variants=4, ambiguous_types=("partial_hallucination",))
    kept = {e.labels.ambiguous_type for e in some if e.labels.ambiguous}
    assert kept <= {"partial_hallucination"}
    assert [e.to_dict() for e in some] == [
        e.to_dict() for e in every if not e.labels.ambiguous or e.labels.ambiguous_type in kept
    ]


def test_invented_arguments_keeps_the_answers_that_invent_an_argument_and_changes_nothing_else(fake_perspectrum):
    folder, _, _ = fake_perspectrum
    every = perspectrum_answers.build(folder=folder, variants=4)
    some = perspectrum_answers.build(folder=folder, variants=4, invented="arguments")
    written_errors = [e for e in some if e.labels.kind == "organic" and e.labels.hallucination]
    assert written_errors and not any(e.labels.ambiguous for e in some)
    assert all(e.extra[perspectrum.SOURCE_FIELD]["extra_pids"] for e in written_errors)
    dropped = [e for e in every if e.to_dict() not in [k.to_dict() for k in some]]
    assert dropped and all(e.labels.kind == "organic" and e.labels.hallucination for e in dropped)
    assert [e.to_dict() for e in some] == [e.to_dict() for e in every if e not in dropped]


def test_yes_no_question_fronts_the_claims_auxiliary():
    assert yes_no_question("school uniforms should be required") == "Should school uniforms be required?"
    assert yes_no_question("homework must be banned") == "Should homework be banned?"
    assert yes_no_question("it is time to stop buying bottled water") == "Is it time to stop buying bottled water?"
    # No auxiliary to front, a negated one, or no short plain subject before it: no question.
    assert yes_no_question("we have to teach creationism") is None
    assert yes_no_question("governments should not ban smoking") is None
    assert yes_no_question("the rule, which many say is fair, should stay") is None


def test_questions_change_some_queries_and_nothing_else(fake_perspectrum):
    # Off by default: the builds the shipped models' records hash stay as they were.
    folder, _, _ = fake_perspectrum
    plain = perspectrum_answers.build(folder=folder, variants=6)
    asked = perspectrum_answers.build(folder=folder, variants=6, questions=True)
    assert [e.id for e in asked] == [e.id for e in plain]
    # Everything but the query, and the answers that restate it (the "qa" style opens with it).
    same = [(a, p) for a, p in zip(asked, plain) if p.query not in p.response]
    assert len(same) > len(plain) / 2
    assert all(a.replace(query="").to_dict() == p.replace(query="").to_dict() for a, p in same)
    changed = {a.query for a, p in zip(asked, plain) if a.query != p.query}
    assert changed and all(q.split()[0] in ("Should", "Is", "Are", "Can", "Will") and q.endswith("?") for q in changed)
