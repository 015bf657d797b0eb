"""`explorer.inspect`: the notebook API scores an example, a record or a file and renders the report."""

import json
import os
import stat
import time
import warnings

import pytest

import explorer
from explorer import detectors
from explorer.data.jsonl import InvalidExample, parse_example
from explorer.data.samples import load_samples
from explorer.evaluation.calibration import LIKELY, UNLIKELY
from explorer.files import UnsafeOutputError
from tests.helpers import jsonl

HOSTILE = "<script>alert(1)</script>"


def test_a_record_gives_verdicts_scores_and_a_report_that_renders_and_saves(tmp_path, record):
    record = dict(record, response=record["response"] + " " + HOSTILE)
    found = explorer.inspect(record, detectors=["rouge"])
    assert isinstance(found, explorer.Inspection)
    assert list(found.results) == ["rouge"]  # the verdict detector is scored, but not listed as chosen
    assert found.judge.detector == detectors.VERDICT_DETECTOR
    assert set(found.verdicts) == {"hallucination", "coverage"}
    assert found.scores.loc["rouge", "hallucination"] == found.results["rouge"].hallucination
    shown = found._repr_html_()
    assert shown.startswith('<div class="rag-report">') and "<script" not in shown and "&lt;script&gt;" in shown
    saved = found.save(tmp_path / "out" / "report.html")
    page = saved.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and shown in page  # the notebook shows the saved report
    assert f'data-score-of="{detectors.VERDICT_DETECTOR}.hallucination"' in page  # the verdict detector's scores


def test_a_sample_example_is_not_judged_in_error():
    """Calibrated on the Perspectrum-built dev set, the verdict hedges on the sample's style: the
    clean example's hallucination is unlikely and neither error is called likely."""
    clean = next(e for e in load_samples() if e.id == "congestion-charging-clean")
    found = explorer.inspect(clean)
    assert list(found.results) == ["rouge", detectors.VERDICT_DETECTOR]
    assert found.verdicts["hallucination"].verdict == UNLIKELY
    assert LIKELY not in {v.verdict for v in found.verdicts.values()}


def test_a_file_gives_one_inspection_per_good_line_and_reports_the_bad_ones(tmp_path, record):
    path = tmp_path / "data.jsonl"
    second = dict(record, id="r2", response="Taxes reduce sugar consumption.")
    path.write_text(jsonl(record, "{not json", second), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many = explorer.inspect(path, detectors="rouge")
    assert [f.example.id for f in many] == ["r1", "r2"]
    assert len(many.problems) == 1 and "line 2" in str(many.problems[0])
    assert any("1 line(s) could not be read" in str(w.message) for w in caught)
    frame = many.frame()
    assert list(frame.index) == ["r1", "r2"] and "rouge.hallucination" in frame.columns
    assert [p.name for p in many.save(tmp_path / "reports")] == ["r1.html", "r2.html"]


def test_bad_input_says_what_is_wrong(tmp_path, record):
    with pytest.raises(detectors.UnknownDetectorError, match="available: rouge"):
        explorer.inspect(record, detectors=["nope"])
    with pytest.raises(InvalidExample, match="response"):
        explorer.inspect({k: v for k, v in record.items() if k != "response"})
    with pytest.raises(FileNotFoundError, match="no such JSON Lines file"):
        explorer.inspect(str(tmp_path / "missing.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"id": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="holds no valid example: line 1"):
        explorer.inspect(empty)


def test_a_response_of_dots_is_refused_within_seconds_before_any_detector_reads_it(record):
    # Issue 51: 20,000 dots held the verdict's detector 13 minutes, the taggers 5.6 and 8.
    started = time.monotonic()
    with pytest.raises(InvalidExample, match="characters 0-20,000 are 20,000 characters without a space"):
        explorer.inspect(dict(record, response="." * 20_000), detectors=["tagger", "tagger_coverage", "stacked"])
    assert time.monotonic() - started < 5


# Issue 28: `save` goes through the CLI's output guard and writer.


def _inspection(example_id: str, record: dict, source=None) -> explorer.Inspection:
    """An inspection without scores: rendering and saving need none."""
    return explorer.Inspection(example=parse_example(dict(record, id=example_id)), results={}, source=source)


def test_save_refuses_a_fifo_and_leaves_it_as_it_was(tmp_path, record):
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeOutputError, match="is a named pipe"):
        _inspection("a", record).save(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # the old code renamed a report over it (and over /dev/full)


def test_save_refuses_the_file_the_examples_came_from(tmp_path, record):
    source = tmp_path / "data.jsonl"
    source.write_text(jsonl(record), encoding="utf-8")
    with pytest.raises(UnsafeOutputError, match="is the input file"):
        _inspection("a", record, source).save(source)
    with pytest.raises(UnsafeOutputError, match="holds the input"):
        explorer.Inspections([_inspection("a", record, source)], source=source).save(tmp_path)
    assert source.read_text(encoding="utf-8") == jsonl(record)


def test_a_saved_report_follows_the_umask_and_a_failed_save_leaves_nothing(tmp_path, record, monkeypatch):
    umask = os.umask(0o022)
    try:
        saved = _inspection("a", record).save(tmp_path / "report.html")
    finally:
        os.umask(umask)
    assert saved.stat().st_mode & 0o777 == 0o644
    monkeypatch.setattr(explorer.Inspection, "html", lambda self: "<p>\ud800</p>")  # cannot be encoded
    with pytest.raises(UnicodeEncodeError):
        _inspection("b", record).save(tmp_path / "broken.html")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.html"]


def test_ids_that_differ_in_whitespace_or_normal_form_get_a_report_each(tmp_path, record):
    ids = ["a b", "a  b", "a\tb", "caf\u00e9", "cafe\u0301", "A B"]
    many = explorer.Inspections([_inspection(example_id, record) for example_id in ids])
    saved = many.save(tmp_path / "reports")
    assert len({path.name.casefold() for path in saved}) == len(ids)
    names = ["a-b.html", "a-b-2.html", "a-b-3.html", "caf.html", "cafe.html", "A-B-4.html"]
    assert [path.name for path in saved] == names


def test_a_calibration_file_is_in_force_for_the_scores_verdict_and_report(tmp_path):
    """`calibration=` a file `explorer calibrate` wrote: its fits replace the shipped ones it
    refitted, and the report names what the thresholds were fitted on."""
    from explorer.config import SAMPLE_DIR
    from explorer.data.jsonl import parse_jsonl
    from explorer.evaluation import refit
    from explorer.scoring.runner import score_examples

    train = [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "train"]
    rouge = detectors.create("rouge")
    results = {s.example.id: s.results["rouge"] for s in score_examples(train, [rouge])}
    own = refit.fit_labels(train, {"rouge": results}, source="mine.jsonl", n_bootstrap=0)
    refit.write(own, tmp_path / "mine.json")
    example = load_samples()[0]
    shipped = explorer.inspect(example, detectors=["rouge"])
    mine = explorer.inspect(example, detectors=["rouge"], calibration=tmp_path / "mine.json")
    fitted = own.calibrations.detectors["rouge"][1]["coverage"]
    assert mine.scores.loc["rouge", "coverage threshold"] == pytest.approx(fitted.threshold)
    assert shipped.scores.loc["rouge", "coverage threshold"] != pytest.approx(fitted.threshold)
    assert own.name in mine.html() and own.name not in shipped.html()
    assert mine.verdicts["hallucination"].verdict == shipped.verdicts["hallucination"].verdict  # stacked: not refitted
