"""Error rates over a log (`explorer.evaluation.rates`): the adjusted mean probability worked out by
hand, its refusals, groups and questions, the bootstrap interval; and `explorer rates`."""

import dataclasses
import json
import re

import numpy as np
import pytest

from explorer.cli import main
from explorer.config import SAMPLE_DIR
from explorer.data.example import Labels
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.evaluation import calibration, rates
from explorer.evaluation.rates import ALL, RateError, Settings

# A detector that ranks errors higher, with overlap: 30 answers with the error, 50 without.
RNG = np.random.default_rng(0)
POSITIVES = list(np.clip(RNG.normal(0.7, 0.15, 30), 0, 1))
NEGATIVES = list(np.clip(RNG.normal(0.35, 0.15, 50), 0, 1))
QUICK = Settings(n_bootstrap=100, seed=0)


def _fit(clusters=None):
    return calibration.fit([True] * 30 + [False] * 50, POSITIVES + NEGATIVES, clusters)


def test_on_its_own_calibration_set_the_rate_is_that_sets_share_of_errors():
    """q = (30 m1 + 50 m0) / 80, so (q - m0) / (m1 - m0) = 30 / 80 exactly; the plain mean of
    P(error) is near it too, since the fit learned that share as its prior."""
    fit = _fit()
    (found,) = rates.estimate(POSITIVES + NEGATIVES, [ALL] * 80, fit, "hallucination", QUICK)
    assert found.rate == pytest.approx(30 / 80) and found.answers == 80
    assert found.low < found.rate < found.high


def test_where_the_log_has_another_share_of_errors_the_adjustment_finds_it_and_the_plain_mean_does_not():
    fit = _fit()
    only_errors = rates.estimate(POSITIVES, [ALL] * 30, fit, "hallucination", QUICK)[0]
    assert only_errors.rate == pytest.approx(1.0) and only_errors.mean_probability < 0.8
    # One error in ten: three of the positives, all the negatives but their first 23.
    log = POSITIVES[:3] + NEGATIVES[23:]
    found = rates.estimate(log, [ALL] * len(log), fit, "hallucination", QUICK)[0]
    assert abs(found.rate - 0.1) < abs(found.mean_probability - 0.1)
    assert found.low <= 0.1 <= found.high


def test_groups_get_their_own_rate_and_all_answers_come_first():
    fit = _fit(clusters=list(range(80)))
    groups = ["errors"] * 30 + ["clean"] * 50
    found = rates.estimate(POSITIVES + NEGATIVES, groups, fit, "coverage", QUICK)
    assert [r.group for r in found] == [ALL, "clean", "errors"]
    by = {r.group: r for r in found}
    assert by["errors"].rate > 0.9 and by["clean"].rate < 0.1 and by["errors"].answers == 30
    again = rates.estimate(POSITIVES + NEGATIVES, groups, fit, "coverage", QUICK)
    assert again == found  # seeded: the same intervals


def test_whole_questions_are_resampled_when_answers_share_them():
    """Two questions whose answers score alike: drawn as two units, the log's spread is wider than
    drawn as 80 independent answers."""
    fit = _fit()
    scores = POSITIVES + NEGATIVES
    one_by_one = rates.estimate(scores, [ALL] * 80, fit, "coverage", QUICK)[0]
    by_question = rates.estimate(scores, [ALL] * 80, fit, "coverage", QUICK, clusters=["a"] * 30 + ["b"] * 50)[0]
    assert by_question.high - by_question.low > one_by_one.high - one_by_one.low


def test_a_calibration_that_cannot_carry_a_rate_is_refused_with_why():
    with pytest.raises(RateError, match="little better than chance"):
        reversed_fit = calibration.fit([True] * 50 + [False] * 30, NEGATIVES + POSITIVES)
        rates.estimate([0.5], [ALL], reversed_fit, "hallucination")
    without_sample = dataclasses.replace(_fit(), sample=None)
    with pytest.raises(RateError, match="written without the scores it was fitted on"):
        rates.estimate([0.5], [ALL], without_sample, "hallucination")
    # ROC AUC 0.63: it ranks errors higher, but their mean P(error) is only 0.06 above the others'.
    shifted = list(np.linspace(0.17, 0.97, 40)) + list(np.linspace(0.05, 0.85, 40))
    close = calibration.fit([True] * 40 + [False] * 40, shifted)
    assert close.informative
    with pytest.raises(RateError, match="says too little for a rate"):
        rates.estimate([0.5], [ALL], close, "hallucination")


def test_the_group_of_an_answer_is_its_field():
    example = parse_jsonl(SAMPLE_DIR / "examples.jsonl").examples[0]
    assert rates.group_of(example, None) == ALL
    assert rates.group_of(example, "topic") == example.topic
    assert rates.group_of(example.replace(extra={"model": "v2"}), "model") == "v2"
    assert rates.group_of(example, "model") == rates.NO_GROUP


def test_explorer_rates_reads_no_label_and_writes_a_table_a_record_and_a_figure(tmp_path, capsys):
    """The verdict detector's shipped results of the sample serve at once through the result cache."""
    answers = parse_jsonl(SAMPLE_DIR / "examples.jsonl").examples[:40]
    with_labels, without = tmp_path / "labelled.jsonl", tmp_path / "log.jsonl"
    write_jsonl(answers, with_labels)
    write_jsonl([e.replace(labels=Labels()) for e in answers], without)
    argv = ["--by", "topic", "--bootstrap", "100", "--quiet"]
    assert main(["rates", str(with_labels), "--out", str(tmp_path / "a"), *argv]) == 0
    assert main(["rates", str(without), "--out", str(tmp_path / "b"), *argv]) == 0
    first = json.loads((tmp_path / "a.json").read_text())
    second = json.loads((tmp_path / "b.json").read_text())
    assert first["rates"] == second["rates"]  # the labels were not read
    assert first["calibrated_on"] == calibration.shipped().data_of("stacked")
    assert {r["group"] for r in first["rates"]} == {ALL, *(e.topic for e in answers)}
    assert "| all answers | 40 |" in (tmp_path / "a.md").read_text()
    page = (tmp_path / "a.html").read_text()
    assert "Plotly.newPlot" in page and not re.search(r"<script[^>]+src=", page)  # plotly inlined: opens offline


def test_explorer_rates_refuses_a_detector_whose_calibration_cannot_carry_a_rate(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    write_jsonl(parse_jsonl(SAMPLE_DIR / "examples.jsonl").examples[:5], log)
    assert main(["rates", str(log), "--detector", "rouge", "--out", str(tmp_path / "r"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "no rate can be estimated with rouge: hallucination:" in error and "nothing was written" in error
    assert not list(tmp_path.glob("r.*"))
