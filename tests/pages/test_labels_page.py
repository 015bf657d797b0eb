"""The dataset page's Label and Error rates tabs, driven through Streamlit's AppTest (the words of
the labelling view need a browser: `test_browser_labelling.py`): the queue least sure first, a
calibration fitted on the session's labels, in force and named, a refusal with too few, and the
error rates of the answers in view."""

from streamlit.testing.v1 import AppTest

from explorer import detectors
from explorer.config import SAMPLE_DIR
from explorer.data.example import Labels
from explorer.data.jsonl import dumps, parse_jsonl
from explorer.data.labelling import by_content
from explorer.data.samples import load_samples
from explorer.evaluation import calibration
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_examples
from explorer.ui import state
from explorer.ui.dataset.labels import queue
from tests.helpers import ROOT

APP = str(ROOT / "app.py")


def dataset_page(answers, labelled, detector_names) -> AppTest:
    """The dataset page on an upload of `answers`, `labelled` the session's labels, the Label tab open."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[state.LABELS] = by_content(labelled)
    at.session_state[state.DETECTORS] = list(detector_names)
    at.run()
    at.switch_page("app_pages/dataset.py").run()
    data = "".join(dumps(e) + "\n" for e in answers).encode("utf-8")
    at.file_uploader(key=state.DATASET_UPLOADER).set_value(("mine.jsonl", data, "application/jsonl")).run()
    at.session_state[state.DATASET_TAB] = "Label"
    at.run()
    assert not at.exception, at.exception
    return at


def synthetic_dev():
    """The sample's synthetic dev split: 27 answers with each error, 45 without, 24 ambiguous."""
    return [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "dev"]


def test_calibrating_on_the_sessions_labels_puts_it_in_force_and_names_it():
    answers = synthetic_dev()
    at = dataset_page(answers, answers, ["rouge"])  # gold labels as the user's
    calibrate = next(b for b in at.button if b.label.startswith("Calibrate on your "))
    assert calibrate.label == f"Calibrate on your {len(answers)} labels"
    calibrate.click().run()
    assert not at.exception, at.exception
    own = at.session_state[state.OWN_CALIBRATION]
    assert own.labels == 72 and own.name == "your 72 labels (mine.jsonl)"
    assert set(own.calibrations.detectors) == {"rouge"}
    assert any(f"Verdicts calibrated on {own.name}" in info.value for info in at.sidebar.info)
    assert any(f"In force: calibrated on {own.name}" in s.value for s in at.success)
    next(b for b in at.sidebar.button if b.label == "Use the shipped calibration").click().run()
    assert state.OWN_CALIBRATION not in at.session_state


def test_too_few_labels_are_refused_with_the_counts():
    answers = synthetic_dev()
    at = dataset_page(answers, answers[:12], ["rouge"])
    next(b for b in at.button if b.label == "Calibrate on your 12 labels").click().run()
    refusal = next(e.value for e in at.error if "Not calibrated" in e.value)
    assert "nothing to calibrate" in refusal and "at least 20 of each are needed" in refusal
    assert state.OWN_CALIBRATION not in at.session_state


def test_the_queue_offers_the_answers_the_verdict_is_least_sure_of_first():
    """The verdict detector's results of the sample ship, so they come from the cache at once."""
    samples = load_samples()
    judge = detectors.create(detectors.VERDICT_DETECTOR)
    results = {s.example.id: s.results for s in score_examples(samples, [judge], ResultCache())}
    order = queue(samples, results)
    fits = calibration.shipped()

    def distance(example_id):
        found = results[example_id][detectors.VERDICT_DETECTOR]
        return min(abs(fits.get(found, t).probability(found.score(t)) - 0.5) for t in ("hallucination", "coverage"))

    distances = [distance(i) for i in order]
    assert distances == sorted(distances) and len(order) == len(samples)


def test_the_error_rates_tab_estimates_the_answers_in_view():
    answers = [e.replace(labels=Labels()) for e in load_samples()[:30]]
    at = dataset_page(answers, [], ["rouge", detectors.VERDICT_DETECTOR])
    header = next(m.value for m in at.markdown if "in the queue, least sure first" in m.value)
    assert header.startswith("Answer **1** of 30")
    at.session_state[state.DATASET_TAB] = "Error rates"
    at.run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if "answers scored by" in c.value)
    assert caption.startswith("30 of 30 answers") and calibration.shipped().data_of("stacked") in caption
    rows = at.tabs[-1].dataframe[0].value
    assert set(rows["error"]) == {"Hallucination", "Coverage error"} and set(rows["answers"]) == {30}
