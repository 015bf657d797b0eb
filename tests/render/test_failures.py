"""Issue 26's pure parts: the verdict's quote of a long sentence, a failure as HTML, the
thresholds and ranking the dataset page starts from, a sample's name."""

from explorer.data.example import Labels, UncoveredArgument
from explorer.data.samples import picker_label
from explorer.detectors import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.evaluation import table, verdict
from explorer.evaluation.calibration import Calibration, Calibrations
from explorer.render.failures import failure_html
from explorer.render.verdict import quote_html
from tests.helpers import make_example

LONG = (
    "They add that voting early builds a habit that lasts a lifetime, and that young people will live longest "
    "with the consequences of decisions made today, pointing out that in Austria, turnout among 16- and "
    "17-year-olds reached 94% in the first national election after the change."
)
ARGUMENTS = [
    "Voting early builds a habit that lasts a lifetime.",
    "Young people will live longest with the consequences of decisions made today.",
]


def flat(example, score=0.5):
    """A result scoring every word alike, as the verdict detector scores a claim's words."""
    words = tuple(ResponseWordScore(w.start, w.end, score) for w in _words(example.response))
    arguments = tuple(
        ArgumentWordScore(p, a, w.start, w.end, score) for p, a, text in example.arguments() for w in _words(text)
    )
    return DetectorResult("x", score, score, {"pro": score}, words, arguments, {})


def _words(text):
    from explorer.text.words import DEFAULT_SEGMENTER

    return DEFAULT_SEGMENTER.content_words(text)


def test_a_long_sentence_is_quoted_at_its_least_supported_clause():
    example = make_example(LONG, ("pro", ARGUMENTS))
    piece = verdict.worst_sentence(example, flat(example))
    quoted = quote_html(piece)
    assert "reached 94% in the first national election" in quoted
    assert quoted.startswith("…") and "<b data-focus>" in quoted
    assert len(quoted.replace("<b data-focus>", "").replace("</b>", "")) <= 170


def test_a_short_sentence_is_quoted_whole_and_escaped():
    example = make_example("Taxes <b>cut</b> sugar.", ("pro", ["Taxes cut sugar."]))
    assert quote_html(verdict.worst_sentence(example, flat(example))) == "Taxes &lt;b&gt;cut&lt;/b&gt; sugar."


def test_a_miss_shows_the_gold_span_or_the_dropped_argument_escaped_with_every_score():
    response = "Taxes cut sugar. <script>x</script> Moon bases are great."
    missed = make_example(
        response,
        ("pro", ["Taxes cut sugar.", "Clinics get <i>money</i>."]),
        example_id="m<1>",
        labels=Labels(
            hallucination=True,
            coverage_error=True,
            hallucinated_spans=((17, 35),),
            uncovered=(UncoveredArgument(0, 1),),
        ),
    )
    results = {"x": flat(missed, 0.2), "y": flat(missed, 0.9)}
    titles = {"x": "X", "y": "Y"}
    shown = failure_html(
        missed,
        results,
        detector_name="x",
        error_type="hallucination",
        kind="false negative",
        threshold=0.5,
        titles=titles,
    )
    assert "&lt;script&gt;x&lt;/script&gt;" in shown and "<script>" not in shown
    assert 'data-failure="m&lt;1&gt;"' in shown
    assert "<b>X 0.20</b> &lt; 0.50" in shown and "Y 0.90" in shown
    dropped = failure_html(
        missed, results, detector_name="y", error_type="coverage", kind="false negative", threshold=0.5, titles=titles
    )
    assert "dropped pro argument 2" in dropped and "Clinics get &lt;i&gt;money&lt;/i&gt;." in dropped
    alarm = failure_html(
        missed,
        results,
        detector_name="y",
        error_type="hallucination",
        kind="false positive",
        threshold=0.5,
        titles=titles,
    )
    assert "flagged sentence" in alarm


def test_sliders_start_at_the_calibrated_threshold_and_know_the_sets_optimum():
    examples = [
        make_example("a", ("pro", ["a"]), example_id=f"{name}{i}", labels=Labels(error, False, kind="organic"))
        for name, error in (("e", False), ("h", True))
        for i in range(3)
    ]
    scores = {"e0": 0.1, "e1": 0.2, "e2": 0.3, "h0": 0.4, "h1": 0.5, "h2": 0.6}
    results = {i: {"x": DetectorResult("x", s, 0.0, {}, (), (), {})} for i, s in scores.items()}
    # P(error) = 0.5 at score 0.55 (coef 1, scale 1, intercept 0)
    calibration = Calibration(mean=0.55, scale=1.0, coef=1.0, intercept=0.0, positives=3, negatives=3, auc=1.0)
    fitted = Calibrations(data="dev", detectors={"x": ({}, {"hallucination": calibration})})
    marks = table.thresholds(examples, results, "x", "hallucination", "full_organic", fitted)
    assert (marks.calibrated, marks.optimum, marks.start, marks.calibrated_on) == (0.55, 0.4, 0.55, "dev")
    uncalibrated = table.thresholds(examples, results, "x", "hallucination", "full_organic", Calibrations("", {}))
    assert uncalibrated.start == uncalibrated.optimum == 0.4
    results["e0"]["y"] = DetectorResult("y", 0.9, 0.0, {}, (), (), {})
    for i in ("e1", "e2", "h0", "h1", "h2"):
        results[i]["y"] = DetectorResult("y", 0.5, 0.0, {}, (), (), {})
    assert table.best_detector(examples, results, ["y", "x"], "hallucination", "full_organic") == "x"


def test_a_sample_is_named_by_what_it_shows_first():
    labels = Labels(True, False, kind="organic", ambiguous=True, ambiguous_type="repetition")
    example = make_example("a", ("pro", ["a"]), example_id="nuclear-repetition", topic="Nuclear power", labels=labels)
    assert picker_label(example) == "Hallucination (repetition) · Nuclear power · nuclear-repetition"
    paraphrased = make_example("a", ("pro", ["a"]), example_id="p", labels=Labels(False, False, kind="paraphrased"))
    assert picker_label(paraphrased) == "Error-free (paraphrased) · p"
