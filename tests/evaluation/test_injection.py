"""The lab's synthetic errors chosen to demonstrate, and whether the verdict caught them
(`explorer.evaluation.injection`), on examples worked out by hand."""

from explorer.data import edits, synthetic
from explorer.detectors import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.evaluation import injection
from explorer.evaluation.calibration import Calibration
from explorer.evaluation.verdict import Piece, Verdict
from explorer.render.injection import catch_html, choice_html
from tests.helpers import make_example

CALIBRATION = Calibration(mean=0.0, scale=1.0, coef=1.0, intercept=0.0, positives=10, negatives=10, auc=0.9)
# Taxes are named by every pro argument; only the revenue argument's statement has words of its own.
RESPONSE = "Taxes cut sugar intake. Taxes raise revenue for school clinics. Taxes hurt poor families."
STATED = (RESPONSE.index("Taxes raise"), RESPONSE.index(" Taxes hurt"))  # where it states pro 2
EXAMPLE = synthetic.with_verbalizations(
    make_example(
        RESPONSE,
        ("pro", ["Taxes cut sugar intake.", "Taxes raise revenue for school clinics."]),
        ("con", ["Taxes hurt poor families.", "Taxes cut sugar sales."]),
        topic="sugar tax",
    ),
    {(0, 1): [STATED]},
)
POOL = {
    ("sugar tax", "con"): ["Taxes hurt poor families.", "Shops near borders lose trade to neighbouring towns."],
    ("sugar tax", "pro"): ["Taxes cut sugar intake in schools."],
}


def test_a_hallucination_removes_the_argument_the_response_states_most_distinctly():
    # Its statement's content words without the query's ("taxes", "sugar" ...): raise, revenue,
    # school, clinics, none in another argument (4 of 4). "cut sugar intake" is shared with con 2.
    choice = injection.removal(EXAMPLE)
    assert (choice.perspective, choice.argument) == (0, 1) and (choice.distinct, choice.words) == (4, 4)
    html = choice_html(EXAMPLE, choice)
    assert "Removes <b>pro 2</b>" in html and "4 of 4 words of its statement its own" in html


def test_a_coverage_error_adds_the_argument_with_content_nothing_in_the_example_gives():
    choice = injection.addition(EXAMPLE, POOL)
    assert (choice.perspective, choice.text) == (1, "Shops near borders lose trade to neighbouring towns.")
    assert choice.distinct == choice.words  # none of its words is in the response or an argument
    assert injection.addition(EXAMPLE.replace(topic="other"), POOL) is None


def test_a_second_synthetic_error_keeps_the_first_ones_labels():
    first = edits.apply_synthetic(EXAMPLE, "hallucination", POOL, choice=(0, 1))
    both = edits.apply_synthetic(first, "coverage", POOL, choice=(1, "Shops near borders lose trade."))
    assert both.labels.hallucination and both.labels.coverage_error
    assert both.labels.hallucinated_spans == first.labels.hallucinated_spans
    assert both.labels.summary() == "hallucination + coverage error"
    # The other way round, an uncovered argument is renumbered past the argument removed before it
    # (a seed that puts the added argument after "Taxes hurt poor families").
    for seed in range(20):
        added = edits.apply_synthetic(
            EXAMPLE, "coverage", POOL, seed=seed, choice=(1, "Shops near borders lose trade.")
        )
        [uncovered] = added.labels.uncovered
        if uncovered.argument > 0:
            break
    removed = edits.apply_synthetic(added, "hallucination", POOL, choice=(1, 0))
    assert removed.labels.hallucination and removed.labels.coverage_error
    [moved] = removed.labels.uncovered
    assert removed.perspectives[1].arguments[moved.argument] == added.perspectives[1].arguments[uncovered.argument]


def verdict(error_type: str, score: float, piece: Piece | None) -> Verdict:
    return Verdict(error_type, "judge", score, CALIBRATION, piece)


def test_the_verdict_is_read_against_the_edits_gold_labels():
    made = edits.apply_synthetic(EXAMPLE, "hallucination", POOL, choice=(0, 1))
    (start, end), *_ = made.labels.hallucinated_spans or [(24, 63)]
    stated = made.response.index("Taxes raise")
    result = DetectorResult(
        "judge",
        0.5,
        0.1,
        {},
        (ResponseWordScore(stated + 12, stated + 19, 0.3),),
        (ArgumentWordScore(0, 0, 0, 5, 0.1),),
        {},
    )
    at_gold = Piece("Taxes raise revenue for school clinics.", stated, stated + 39, 1.0)
    elsewhere = Piece("Taxes hurt poor families.", made.response.index("Taxes hurt"), len(made.response), 1.0)
    outcomes = {
        (2.0, at_gold): injection.CAUGHT,
        (2.0, elsewhere): injection.ELSEWHERE,
        (0.0, at_gold): injection.UNSURE,
        (-2.0, at_gold): injection.MISSED,
    }
    for (score, piece), outcome in outcomes.items():
        found = {"hallucination": verdict("hallucination", score, piece), "coverage": verdict("coverage", -2.0, None)}
        [catch] = injection.caught(made, found, result).values()  # only the error the labels record
        assert catch.outcome == outcome
    before = {"hallucination": verdict("hallucination", -3.0, None)}
    [catch] = injection.caught(made, found, result, before).values()
    assert catch.gold_words == 0.3
    report = catch_html(
        [catch], "Judge", {"hallucination": {"features": [{"feature": "rouge hallucination", "push": -1.5}]}}
    )
    assert 'data-outcome="missed"' in report and "Judge missed its own synthetic hallucination" in report
    assert (
        "P(error) 0.05 \u2192 0.12" in report
        and "reach 0.30" in report
        and "rouge's hallucination score (-1.50)" in report
    )
