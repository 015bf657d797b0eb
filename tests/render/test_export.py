"""The scores table (one row per example), its filters and summaries, and the downloads."""

import io
import re

import numpy as np
import pandas as pd
import pytest

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.data.samples import load_samples
from explorer.evaluation import table
from explorer.render import export
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_example
from tests.evaluation.test_evaluation import labelled
from tests.helpers import make_example
from tests.scripted import ScriptedDetector, scripted

HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture
def corpus():
    dropped_con = {"uncovered": (UncoveredArgument(1, 0),)}
    rows = [
        ("a-clean", "A", False, False, None, (0.1, 0.2), {}),
        ("a-h", "A", True, False, None, (0.7, 0.1), {}),
        ("b-c", "B", False, True, None, (0.2, 0.9), dropped_con),
        ("b-amb", "B", True, False, "repetition", (0.4, 0.3), {}),
        ("c-clean", None, False, False, None, (0.6, 0.1), {}),
    ]
    examples = [
        labelled(i, h=h, c=c, kind="organic", ambiguous_type=amb, extra=scripted(scripted=s), **more).replace(
            topic=topic, split="test" if topic != "B" else "dev"
        )
        for i, topic, h, c, amb, s, more in rows
    ]
    examples.append(make_example("No labels here.", ("pro", ["x"]), example_id="unlabelled"))
    detector = ScriptedDetector()
    results = {e.id: score_example(e, [detector]).results for e in examples}
    return examples, results


def test_scores_frame_has_one_row_per_example_indexed_by_id(corpus):
    examples, results = corpus
    frame = table.scores_frame(examples, results, ["scripted", "rouge"])
    assert list(frame.index) == [e.id for e in examples] and frame.index.name == "id"
    assert list(frame.columns) == [
        *table.LABEL_COLUMNS,
        "scripted.hallucination",
        "scripted.coverage",
        "rouge.hallucination",
        "rouge.coverage",
    ]
    assert frame.loc["a-h", "scripted.hallucination"] == 0.7
    assert np.isnan(frame.loc["a-h", "rouge.hallucination"])  # no rouge results given
    assert frame.loc["b-amb", "gold"] == "hallucination" and frame.loc["b-amb", "ambiguous_type"] == "repetition"
    assert frame.loc["unlabelled", "gold"] == "unlabelled" and pd.isna(frame.loc["unlabelled", "hallucination"])
    # Other metrics join by id.
    extra = pd.DataFrame({"id": ["a-h", "b-c"], "query_alignment": [0.5, 0.9]}).set_index("id")
    joined = frame.join(extra)
    assert joined.loc["b-c", "query_alignment"] == 0.9 and np.isnan(joined.loc["a-clean", "query_alignment"])


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (table.Filters(topics=("A",)), ["a-clean", "a-h"]),
        (table.Filters(topics=(table.NO_TOPIC,)), ["c-clean", "unlabelled"]),
        (table.Filters(splits=("dev",)), ["b-c", "b-amb"]),
        (table.Filters(golds=("error-free",)), ["a-clean", "c-clean"]),
        (table.Filters(ambiguous_types=("repetition",)), ["b-amb"]),
        (table.Filters(kinds=("organic",), golds=("hallucination", "coverage error")), ["a-h", "b-c", "b-amb"]),
        (table.Filters(score_ranges={"scripted.hallucination": (0.5, 1.0)}), ["a-h", "c-clean"]),
        (table.Filters(score_ranges={"scripted.hallucination": (0.0, 1.0)}), None),  # full range: all, even NaN
    ],
)
def test_filters(corpus, filters, expected):
    examples, results = corpus
    frame = table.scores_frame(examples, results, ["scripted"])
    kept = list(table.apply_filters(frame, filters).index)
    assert kept == (expected if expected is not None else [e.id for e in examples])


def test_outcomes_at_a_threshold(corpus):
    examples, results = corpus
    outcome = table.outcomes(examples, results, "scripted", "hallucination", "full_organic", 0.5)
    assert outcome.to_dict() == {"a-clean": "true negative", "a-h": "true positive", "c-clean": "false positive"}


def test_topic_and_perspective_summaries(corpus):
    examples, results = corpus
    topics = table.topic_summary(examples, results, ["scripted"])
    assert topics.loc["A", ["examples", "hallucinations", "coverage errors"]].tolist() == [2, 1, 0]
    assert topics.loc["B", "coverage error rate"] == 0.5
    assert topics.loc["A", "mean scripted.hallucination"] == pytest.approx(0.4)
    assert topics.index[0] in ("A", "B")  # the topics with the most errors come first
    perspectives = table.perspective_summary(examples, results, ["scripted"])
    assert perspectives.loc["con", "uncovered in"] == 1 and perspectives.loc["pro", "uncovered in"] == 0
    assert perspectives.loc["con", "uncovered rate"] == pytest.approx(1 / 5)
    assert perspectives.index[0] == "con"


def test_csv_and_parquet_round_trip(corpus):
    examples, results = corpus
    frame = table.scores_frame(examples, results, ["scripted"])
    back = pd.read_parquet(io.BytesIO(export.table_parquet(frame)))
    pd.testing.assert_frame_equal(back, frame)
    csv = pd.read_csv(io.BytesIO(export.table_csv(frame)), index_col="id")
    assert list(csv.index) == list(frame.index)
    assert csv["scripted.coverage"].tolist() == pytest.approx(frame["scripted.coverage"].tolist(), nan_ok=True)


def test_html_report_is_self_contained_and_escapes_user_text():
    response = HOSTILE + " Taxes cut sugar and fund moon bases."
    moon_bases = (response.index("fund"), response.index("bases") + len("bases"))
    example = make_example(
        response,
        (HOSTILE, ["Taxes cut sugar.", HOSTILE]),
        example_id=HOSTILE,
        topic=HOSTILE,
        labels=Labels(hallucination=True, coverage_error=False, hallucinated_spans=(moon_bases,)),
    )
    shown = ["rouge", "semantic", detectors.VERDICT_DETECTOR]
    results = score_example(example, [detectors.create(name) for name in dict.fromkeys(shown)]).results
    page = export.example_html(example, results)
    assert page.startswith("<!doctype html>")
    assert export.CONTENT_SECURITY_POLICY in page
    assert "<script" not in page and not re.search(r"<(link|img|iframe)\b", page, re.IGNORECASE)
    assert "&lt;script&gt;" in page
    assert 'data-score="' in page and 'data-gold="1"' in page
    # The verdict, the scores against thresholds, the claims view and every detector's highlights.
    assert 'data-error-type="hallucination"' in page and 'data-score-of="rouge.coverage"' in page
    assert "data-claim-verdict=" in page and page.count("<h3>Response · hallucination") == len(results)
    # The verdict's links land on the outlined sentence and argument of the verdict detector.
    for anchor in re.findall(r'href="#([^"]+)"', page):
        assert page.count(f'id="{anchor}"') == 1
    assert "model all-MiniLM-L6-v2" in page and "settings: match 0.67" in page


@pytest.mark.slow
def test_a_sample_examples_report_with_every_fast_detector_and_salience_is_small():
    """No plotly.js inlined: a report of a sample example with four detectors stays far below 1 MB."""
    example = next(e for e in load_samples() if e.id == "congestion-charging-hallucination")
    chosen = [detectors.create(name) for name in ("rouge", "semantic", "alignment_classifier", "salience")]
    results = score_example(example, chosen, ResultCache()).results  # salience: the shipped result
    assert set(results) == {"rouge", "semantic", "alignment_classifier", "salience"}
    page = export.example_html(example, results)
    assert len(page.encode("utf-8")) < 1_000_000
    assert "Where each response sentence draws from" in page  # salience's map, by sentences


# Issue 14, problem 7: a cell a spreadsheet would run as a formula is written as text.


@pytest.mark.parametrize("payload", ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\r=1"])
def test_csv_cells_that_start_like_a_formula_are_written_as_text(payload):
    frame = pd.DataFrame(
        {"topic": [payload, "plain"], f"{payload}.hallucination": [0.25, -0.5]},
        index=pd.Index([payload, "safe-id"], name="id"),
    )
    read = pd.read_csv(io.BytesIO(export.table_csv(frame)), keep_default_na=False)
    assert read.columns[1] == "topic" and read.columns[2] == f"'{payload}.hallucination"
    assert list(read["id"]) == [f"'{payload}", "safe-id"]
    assert list(read["topic"]) == [f"'{payload}", "plain"]
    assert list(read.iloc[:, 2]) == [0.25, -0.5]  # numbers stay numbers, negative ones too
