"""The dataset page, driven through Streamlit's AppTest: upload, filters, sorting, thresholds,
failures opening Inspect, deep links, background scoring. Scripted detectors give scores the
tests choose; ROUGE runs for real beside them."""

import json
import time

import pytest
from streamlit.testing.v1 import AppTest

from explorer.data.example import Labels
from explorer.data.samples import load_samples
from explorer.ui import links, state
from explorer.ui.text import literal
from tests.helpers import ROOT, make_example
from tests.scripted import SlowScriptedDetector, register, scripted

APP = str(ROOT / "app.py")
UPLOAD = f"{links.UPLOAD_PREFIX}mine.jsonl"

# id, topic, hallucination, coverage error, ambiguous type, (scripted h, c), (other h, c)
ROWS = [
    ("tax-clean", "Sugar tax", False, False, None, (0.10, 0.20), (0.30, 0.2)),
    ("tax-h", "Sugar tax", True, False, None, (0.80, 0.10), (0.20, 0.1)),
    ("tax-c", "Sugar tax", False, True, None, (0.20, 0.90), (0.10, 0.6)),
    ("tax-amb", "Sugar tax", True, False, "repetition", (0.55, 0.10), (0.50, 0.1)),
    ("zoo-clean", "Zoos", False, False, None, (0.45, 0.10), (0.10, 0.3)),
    ("zoo-h", "Zoos", True, False, None, (0.40, 0.20), (0.90, 0.1)),
    ("zoo-c", "Zoos", False, True, None, (0.10, 0.70), (0.20, 0.7)),
    ("zoo-clean2", "Zoos", False, False, None, (0.05, 0.10), (0.60, 0.2)),
]


def records() -> list[dict]:
    found = []
    for example_id, topic, h, c, ambiguous, mine, other in ROWS:
        example = make_example(
            f"Response of {example_id}: taxes reduce sugar consumption.",
            ("pro", ["Taxes reduce sugar consumption."]),
            ("con", ["Taxes hurt poor families."]),
            example_id=example_id,
            query=f"Question about {topic}?",
            topic=topic,
            split="test",
            labels=Labels(
                hallucination=h,
                coverage_error=c,
                kind="organic",
                ambiguous=ambiguous is not None,
                ambiguous_type=ambiguous,
            ),
            extra=scripted(scripted=mine, other=other, slow=mine),
        )
        found.append(example.to_dict())
    return found


def upload_bytes(items=None) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in (items or records())).encode("utf-8")


@pytest.fixture
def app(monkeypatch):
    """The dataset page on an uploaded file, with ROUGE and two scripted detectors."""
    register(monkeypatch, "scripted", "other", "slow")
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge", "scripted", "other"]
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("mine.jsonl", upload_bytes(), "application/jsonl")).run()
    assert not at.exception
    return at


def frame_in_tab(at, tab: str):
    """The first table in a tab (AppTest does not expose a dataframe's key): the examples table,
    or the AUC table of the Evaluation tab. Only the open tab is drawn, so the tab is opened
    first, as a click would."""
    if at.session_state[state.DATASET_TAB] != tab:
        at.session_state[state.DATASET_TAB] = tab
        at.run()
    opened = next(t for t in at.tabs if t.label == tab)
    return (opened.table if tab == "Evaluation" else opened.dataframe)[0].value


def threshold_slider(at, detector_name: str, error_type: str = "hallucination", slice_name: str = "full_organic"):
    """The threshold slider of `detector_name` on the dataset shown (its key names the dataset's fingerprint)."""
    suffix = f".{detector_name}.{error_type}.{slice_name}"
    return next(s for s in at.slider if s.key.startswith(state.DATASET_THRESHOLD + ".") and s.key.endswith(suffix))


def table_ids(at) -> list[str]:
    return list(frame_in_tab(at, "Examples").index)


def matching(at) -> str:
    return next(c.value for c in at.caption if "match the filters" in c.value)


def test_uploaded_file_is_scored_and_evaluated(app):
    assert app.selectbox(key=state.DATASET_SOURCE_WIDGET).value == UPLOAD
    assert matching(app) == "8 of 8 examples match the filters."
    frame = frame_in_tab(app, "Examples")
    assert frame.loc["tax-h", "scripted.hallucination"] == 0.8
    assert 0.0 <= frame.loc["tax-h", "rouge.hallucination"] <= 1.0
    aucs = frame_in_tab(app, "Evaluation")
    # Full organic hallucination: positives tax-h 0.8, zoo-h 0.4 vs 0.10, 0.45, 0.05: 5 of 6 pairs.
    assert aucs.loc["Full organic", "Scripted"].startswith("83.3 (")
    assert aucs.loc["Full organic", "errors / error-free"] == "2 / 3"
    assert aucs.loc["Unparaphrased synthetic", "Scripted"] == "no positives"
    assert app.query_params["dataset"] == UPLOAD


def test_filters_narrow_the_table_and_the_evaluation(app):
    app.multiselect(key=state.DATASET_FILTER_TOPIC).set_value(["Zoos"]).run()
    assert matching(app) == "4 of 8 examples match the filters."
    assert set(table_ids(app)) == {"zoo-clean", "zoo-h", "zoo-c", "zoo-clean2"}
    assert frame_in_tab(app, "Evaluation").loc["Full organic", "errors / error-free"] == "1 / 2"
    app.multiselect(key=state.DATASET_FILTER_TOPIC).set_value([]).run()
    app.multiselect(key=state.DATASET_FILTER_GOLD).set_value(["hallucination"]).run()
    assert set(table_ids(app)) == {"tax-h", "tax-amb", "zoo-h"}
    app.multiselect(key=state.DATASET_FILTER_AMBIGUOUS).set_value(["repetition"]).run()
    assert table_ids(app) == ["tax-amb"]
    app.multiselect(key=state.DATASET_FILTER_GOLD).set_value([]).run()
    app.multiselect(key=state.DATASET_FILTER_AMBIGUOUS).set_value([]).run()
    app.selectbox(key=state.DATASET_FILTER_SCORE_COLUMN).set_value("scripted.coverage").run()
    app.slider(key=state.DATASET_FILTER_SCORE_RANGE).set_value((0.5, 1.0)).run()
    assert set(table_ids(app)) == {"tax-c", "zoo-c"}
    assert not app.exception


def test_sorting_by_any_column(app):
    frame_in_tab(app, "Examples")
    app.selectbox(key=state.DATASET_SORT).set_value("other.hallucination").run()
    shown = frame_in_tab(app, "Examples")["other.hallucination"].tolist()
    assert shown == sorted(shown) and set(table_ids(app)[:2]) == {"tax-c", "zoo-clean"}  # both 0.10
    app.toggle(key=state.DATASET_SORT_DESCENDING).set_value(True).run()
    assert table_ids(app)[0] == "zoo-h"  # 0.90
    app.selectbox(key=state.DATASET_SORT).set_value("topic").run()
    assert table_ids(app)[-1].startswith("tax-")  # "Zoos" > "Sugar tax", descending


def test_threshold_slider_sets_the_confusion_and_the_failures(app):
    frame_in_tab(app, "Evaluation")
    slider = threshold_slider(app, "scripted")
    # Youden's J for scripted: flag at 0.8 (TPR 1/2, FPR 0) vs at 0.4 (TPR 1, FPR 1/3); both J = 1/2.
    assert slider.value in (0.8, 0.4)
    slider.set_value(0.42).run()
    assert any("recall 0.50 · FPR 0.33" in c.value for c in app.caption)
    app.selectbox(key=state.DATASET_FAILURE_DETECTOR).set_value("scripted").run()
    failure_keys = {b.key for b in app.button if b.key and b.key.startswith("dataset.open.")}
    assert failure_keys == {"dataset.open.false negative.zoo-h", "dataset.open.false positive.zoo-clean"}
    # The Examples tab lists failures first.
    assert table_ids(app)[:2] == ["zoo-h", "zoo-clean"]
    assert frame_in_tab(app, "Examples")["outcome"].iloc[0] == "false negative"


def test_a_failure_opens_in_inspect_with_gold_overlaid(app):
    threshold_slider(app, "scripted").set_value(0.42).run()
    app.selectbox(key=state.DATASET_FAILURE_DETECTOR).set_value("scripted").run()
    app.button(key="dataset.open.false negative.zoo-h").click().run()
    assert not app.exception
    assert app.subheader[0].value == "Question about Zoos?"
    assert app.session_state[state.SHOW_GOLD] is True
    assert app.toggle(key=state.SHOW_GOLD).value is True
    assert app.query_params["dataset"] == UPLOAD and app.query_params["example"] == "zoo-h"
    assert app.text_area(key="inspect.response").value.startswith("Response of zoo-h")


def test_precomputed_scores_join_the_table_and_the_evaluation(app):
    lines = []
    for example_id, *_ in ROWS:
        high = example_id.endswith("-h")
        scores = {"external": {"hallucination": 0.9 if high else 0.1, "coverage": 0.5, "per_perspective": {}}}
        scores["scripted"] = {"hallucination": 0.5, "coverage": 0.5, "per_perspective": {}}  # wins over computing
        lines.append({"id": example_id, "scores": scores, "words": {}})
    app.expander[0].file_uploader[0].set_value(("scores.jsonl", upload_bytes(lines), "application/jsonl")).run()
    assert not app.exception
    frame = frame_in_tab(app, "Examples")
    assert frame.loc["tax-h", "external.hallucination"] == 0.9
    assert frame["scripted.hallucination"].eq(0.5).all()
    aucs = frame_in_tab(app, "Evaluation")
    assert aucs.loc["Full organic", "external"].startswith("100.0")  # a detector the registry does not know
    app.expander[0].file_uploader[0].set_value(("bad.jsonl", b'{"id": "x"}\n', "application/jsonl")).run()
    problem = literal("bad.jsonl: line 1: not a record of `explorer score` output")  # shown escaped: it names the file
    assert any(problem in e.value for e in app.error)


def test_example_link_reopens_a_sample_in_inspect():
    last = load_samples()[-1]
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["dataset"] = "examples.jsonl"
    at.query_params["example"] = last.id
    at.run()
    assert not at.exception
    assert at.subheader[0].value == last.query
    assert at.text_area(key="inspect.response").value == last.response
    at.query_params["example"] = "no-such-example"
    at.run()
    assert any("There is no example 'no-such-example' in examples.jsonl" in w.value for w in at.warning)


def test_an_upload_is_shown_when_the_page_was_opened_without_a_link():
    # The sidebar's page link carries no query: the page writes its own `?dataset=` link,
    # which must not win over the next upload.
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge"]
    at.switch_page("app_pages/dataset.py").run()
    assert at.query_params["dataset"] == "examples.jsonl"
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("mine.jsonl", upload_bytes(), "application/jsonl")).run()
    assert at.selectbox(key=state.DATASET_SOURCE_WIDGET).value == UPLOAD
    assert matching(at) == "8 of 8 examples match the filters."
    assert at.query_params["dataset"] == UPLOAD


def test_bad_lines_are_listed_and_unlabelled_data_still_browses(monkeypatch):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    unlabelled = [dict(r, labels={}) for r in records()[:3]]
    data = upload_bytes(unlabelled) + b'{"id": "broken"}\n'
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("raw.jsonl", data, "application/jsonl")).run()
    assert not at.exception
    assert any("3 problem(s) in the file" in e.label for e in at.expander)  # one line, three fields
    assert "line 4: query: is required" in at.code[0].value
    assert any("no examples; no ROC curve to draw" in i.value for i in at.info)
    assert len(table_ids(at)) == 3


def test_model_based_detector_scores_in_the_background(monkeypatch):
    register(monkeypatch, "slow")
    SlowScriptedDetector.gate.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge", "slow"]
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("slow.jsonl", upload_bytes(), "application/jsonl")).run()
    assert not at.exception
    try:
        assert any("Slow scripted: 0 of 8" in p.proto.text for p in at.get("progress"))  # the page did not wait
        aucs = next(t for t in at.tabs if t.label == "Evaluation").table[0].value
        assert aucs.loc["Full organic", "Slow scripted"] == "scoring, 0 of 8"  # not "no positives"
    finally:
        SlowScriptedDetector.gate.set()
    deadline = time.monotonic() + 90  # generous: CI machines are slow and shared
    while time.monotonic() < deadline:
        time.sleep(0.3)
        at.run()
        if not at.get("progress"):
            break
    frame = frame_in_tab(at, "Examples")
    assert frame["slow.hallucination"].notna().all()
    assert frame.loc["tax-h", "slow.hallucination"] == 0.8


def test_trust_metrics_are_columns_and_trust_traps_filter(monkeypatch):
    register(monkeypatch, "scripted")
    trap = make_example(
        "Do sugar taxes reduce obesity? Yes: sugar taxes reduce obesity, so taxes on sugar reduce obesity.",
        ("pro", ["Revenue funds school sports programs."]),
        ("con", ["Shoppers cross the border to buy cheaper drinks."]),
        example_id="trap",
        query="Do sugar taxes reduce obesity?",
        topic="Sugar tax",
        split="test",
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge"]
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    data = upload_bytes([*records(), trap.to_dict()])
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("trap.jsonl", data, "application/jsonl")).run()
    frame = frame_in_tab(at, "Examples")
    assert {"query recall", "K-F1", "K-F1++", "trust trap"} <= set(frame.columns)
    assert frame.loc["trap", "query recall"] == 1.0 and frame.loc["trap", "K-F1++"] == 0.0
    at.toggle(key=state.DATASET_FILTER_TRUST_TRAPS).set_value(True).run()
    assert not at.exception
    assert table_ids(at) == ["trap"]


def test_summaries_show_the_phenomena_table_per_source(app):
    app.session_state[state.DATASET_TAB] = "Summaries"  # only the open tab is drawn
    app.run()
    summaries = next(t for t in app.tabs if t.label == "Summaries")
    table = summaries.dataframe[-1].value
    assert list(table.index) == ["organic"]
    # Each response is one sentence: "Response of ...: taxes reduce sugar consumption."
    assert table.loc["organic", "responses"] == 8 and table.loc["organic", "% short"] == 100.0


def test_thresholds_belong_to_the_dataset_and_a_new_one_starts_from_its_own_optimum(app):
    frame_in_tab(app, "Evaluation")
    threshold_slider(app, "scripted").set_value(0.05).run()  # flags everything on this dataset
    # A second file whose scripted scores sit much higher: its slider starts at its own Youden point.
    shifted = records()
    for record in shifted:
        record["response"] += " Also new."  # other examples (the scripted detector's scores ride along)
        mine = record["scripted"]["scripted"]
        mine["hallucination"] = min(1.0, mine["hallucination"] + 0.5)
    second_file = ("second.jsonl", upload_bytes(shifted), "application/jsonl")
    app.file_uploader(key=state.DATASET_UPLOADER).set_value(second_file).run()
    assert app.selectbox(key=state.DATASET_SOURCE_WIDGET).value == f"{links.UPLOAD_PREFIX}second.jsonl"
    second = threshold_slider(app, "scripted").value
    assert second in (0.9, 1.0) and not any("recall 1.00 · FPR 1.00" in c.value for c in app.caption)
    # Back on the first file, its own threshold is kept.
    app.selectbox(key=state.DATASET_SOURCE_WIDGET).set_value(UPLOAD).run()
    assert threshold_slider(app, "scripted").value == 0.05


def test_the_view_and_filters_survive_a_trip_to_inspect_and_back(app):
    app.radio(key=state.DATASET_ERROR_TYPE).set_value("coverage").run()
    app.selectbox(key=state.DATASET_SLICE).set_value("full_organic").run()
    app.selectbox(key=state.DATASET_FAILURE_DETECTOR).set_value("scripted").run()
    app.multiselect(key=state.DATASET_FILTER_TOPIC).set_value(["Zoos", "Sugar tax"]).run()
    frame_in_tab(app, "Evaluation")
    threshold_slider(app, "scripted", "coverage").set_value(0.75).run()  # misses zoo-c (0.70)
    app.button(key="dataset.open.false negative.zoo-c").click().run()
    assert app.subheader[0].value == "Question about Zoos?"
    app.switch_page("app_pages/dataset.py").run()
    assert not app.exception
    assert app.radio(key=state.DATASET_ERROR_TYPE).value == "coverage"
    assert app.selectbox(key=state.DATASET_SLICE).value == "full_organic"
    assert app.selectbox(key=state.DATASET_FAILURE_DETECTOR).value == "scripted"
    assert app.multiselect(key=state.DATASET_FILTER_TOPIC).value == ["Zoos", "Sugar tax"]
    assert threshold_slider(app, "scripted", "coverage").value == 0.75


def test_a_slice_without_synthetic_errors_points_to_the_file_that_has_them():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state.DETECTORS] = ["rouge"]
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    at.selectbox(key=state.DATASET_SLICE).set_value("unparaphrased_synthetic").run()
    assert any("The sample file synthetic.jsonl holds the paper's synthetic errors" in i.value for i in at.info)
