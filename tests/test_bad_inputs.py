"""The bad-input corpus (`tests/bad_inputs/`): every file read, validated and scored as its case says."""

import re

import pytest

from explorer import detectors
from explorer.cli import main
from explorer.data.example import Example
from explorer.data.jsonl import parse_example, parse_jsonl
from explorer.detectors import DetectorResult
from explorer.scoring.runner import score_example
from explorer.scoring.scores_file import parse_scores
from explorer.text.words import DEFAULT_SEGMENTER
from tests.bad_inputs.builders import FOLDER
from tests.bad_inputs.corpus import CASES
from tests.bad_inputs.scores import EXAMPLES, EXAMPLES_DATA, SCORES_CASES, SCORES_FOLDER

# The detectors run over the whole corpus; the cases a detector must refuse with a DetectorError
# say so in their `refused_by`. Salience is checked only on the cases it refuses: on a CPU it
# takes minutes for each of the corpus's long responses. The stacked detector (a default, the
# verdict's) refuses what its semantic alignments refuse, with their message.
DETECTORS = ["rouge", "semantic", "stacked"]
# The stacked detector's repeat on a second instance stops at this many words of an example: its
# taggers read a 5,000-word answer in ten seconds, and a repeat checks the caches, not the length.
REPEATED_WORDS = {"stacked": 1000}

BY_NAME = {case.name: case for case in CASES}
SCORED = [case for case in CASES if case.kept]


def case_id(case) -> str:
    return case.name


def test_the_corpus_files_match_their_definitions():
    assert len(CASES) >= 30
    assert {path.stem for path in FOLDER.glob("*.jsonl")} == set(BY_NAME)
    assert {path.stem for path in SCORES_FOLDER.glob("*.jsonl")} == {case.name for case in SCORES_CASES} | {"examples"}
    stale = [case.name for case in (*CASES, *SCORES_CASES) if case.path.read_bytes() != case.data]
    stale += ["scores/examples"] if EXAMPLES.read_bytes() != EXAMPLES_DATA else []
    assert not stale, f"run `python -m tests.bad_inputs.corpus` to rewrite {stale}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_reading_keeps_the_good_examples_and_names_every_problem(case):
    loaded = parse_jsonl(case.path)
    assert [e.id for e in loaded.examples] == list(case.kept)
    assert [str(e) for e in loaded.errors] == list(case.errors)
    assert [str(w) for w in loaded.warnings] == list(case.warnings)
    for example in loaded.examples:
        assert parse_example(example.to_dict()) == example  # written back, it reads the same


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_validate_exits_1_on_any_problem(case, capsys):
    assert main(["validate", str(case.path)]) == (1 if case.errors else 0)
    assert capsys.readouterr().err.splitlines() == [f"{case.path}: {error}" for error in case.errors] + [
        f"{case.path}: warning: {warning}" for warning in case.warnings
    ]


@pytest.fixture(scope="module", params=DETECTORS)
def detector_twice(request):
    """Two instances of one detector, so the second scores without the first one's caches."""
    return detectors.create(request.param), detectors.create(request.param)


def assert_valid_result(example: Example, result: DetectorResult, *, scores_every_word: bool) -> None:
    assert 0.0 <= result.hallucination <= 1.0 and 0.0 <= result.coverage <= 1.0
    assert list(result.per_perspective) == [p.name for p in example.perspectives]
    assert all(0.0 <= value <= 1.0 for value in result.per_perspective.values())
    response_words = {(w.start, w.end): w.text for w in DEFAULT_SEGMENTER.content_words(example.response)}
    for word in result.response_words:
        assert example.response[word.start : word.end] == response_words[(word.start, word.end)]
        assert 0.0 <= word.score <= 1.0
    for word in result.argument_words:
        text = example.perspectives[word.perspective].arguments[word.argument]
        words = {(w.start, w.end): w.text for w in DEFAULT_SEGMENTER.content_words(text)}
        assert text[word.start : word.end] == words[(word.start, word.end)]
        assert 0.0 <= word.score <= 1.0
    if scores_every_word:
        assert {(w.start, w.end) for w in result.response_words} == set(response_words)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in SCORED if "salience" in c.refused_by], ids=case_id)
def test_salience_refuses_what_does_not_fit_the_model_context(case):
    salience = detectors.create("salience")
    for example in parse_jsonl(case.path).examples:
        assert score_example(example, [salience]).errors["salience"].startswith(case.refused_by["salience"])


@pytest.mark.parametrize("case", SCORED, ids=case_id)
def test_each_detector_scores_each_good_example_the_same_twice_or_refuses_it(detector_twice, case):
    first, second = detector_twice
    refusal = case.refused_by.get(first.name)
    for example in parse_jsonl(case.path).examples:
        scored = score_example(example, [first])
        if refusal:
            assert scored.errors[first.name].startswith(refusal)
            continue
        assert not scored.errors, scored.errors
        result = scored.results[first.name]
        assert_valid_result(example, result, scores_every_word=first.name == "rouge")
        words = len(example.response.split()) + sum(len(a.split()) for _, _, a in example.arguments())
        if words <= REPEATED_WORDS.get(first.name, words):
            assert second.score(example).to_dict() == result.to_dict()


def test_invisible_joiners_leave_rouge_scores_as_for_plain_text():
    example = parse_jsonl(BY_NAME["zero-width"].path).examples[0]
    plain = re.sub("[\u00ad\u200c\u200d\u2060\ufeff]", "", example.response).replace("\u200b", " ")
    rouge = detectors.create("rouge")
    assert rouge.score(example).scores_dict() == rouge.score(example.replace(response=plain)).scores_dict()


# Issue 14, problem 9: `eval --scores` checks a scores file line by line, as it checks examples.


@pytest.mark.parametrize("case", SCORES_CASES, ids=case_id)
def test_a_bad_scores_line_is_named_and_left_out_and_the_rest_used(case):
    read = parse_scores(case.path, parse_jsonl(EXAMPLES).examples)
    assert sorted(read.results) == list(case.kept)
    assert [str(e) for e in read.errors] == [case.error]


@pytest.mark.parametrize("case", SCORES_CASES[:3], ids=case_id)
def test_eval_reports_a_bad_scores_line_exits_1_and_scores_that_example_itself(case, tmp_path, capsys):
    out = tmp_path / "report"
    command = ["eval", str(EXAMPLES), "--scores", str(case.path), "--detectors", "rouge", "--out", str(out), "--quiet"]
    assert main(command) == 1
    assert capsys.readouterr().err.splitlines()[0] == f"{case.path}: {case.error}"
    assert (tmp_path / "report.json").is_file()
