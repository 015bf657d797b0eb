"""The verdict and the claim view read side by side (`explorer.evaluation.accounts`), on the claim
view's real reading (the semantic alignment of MiniLM) and verdicts made by hand."""

import pytest

from explorer import detectors
from explorer.detectors import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.detectors.semantic import assessment_of
from explorer.evaluation.accounts import account
from explorer.evaluation.calibration import Calibration
from explorer.evaluation.verdict import Piece, Verdict
from explorer.render.accounts import account_line_html, accounts_html
from tests.helpers import make_example

# P(error) is the logistic of the score: 2.0 reads "likely", -2.0 "unlikely", 0.0 "unclear".
CALIBRATION = Calibration(mean=0.0, scale=1.0, coef=1.0, intercept=0.0, positives=10, negatives=10, auc=0.9)
STATISTIC = "Supporters say open primaries increase voter engagement, with turnout rising by 23 percent in 2016."
INVENTED = "Moon bases would host every future election."
EXAMPLE = make_example(
    f"{STATISTIC} Critics answer that party members should choose their own nominees. {INVENTED}",
    ("pro", ["Open primaries increase voter engagement.", "Independent voters deserve a say in choosing candidates."]),
    ("con", ["Party members should choose their own nominees."]),
    query="Should states hold open primaries?",
)


@pytest.fixture(scope="module")
def assessment():
    result = detectors.create("semantic").score(EXAMPLE)
    return assessment_of(result, EXAMPLE)


def judge(words: dict[str, float], argument: tuple[int, int, float] | None = None) -> DetectorResult:
    """A verdict detector's result with these response words scored (the rest 0)."""
    response = tuple(
        ResponseWordScore(EXAMPLE.response.index(word), EXAMPLE.response.index(word) + len(word), score)
        for word, score in words.items()
    )
    arguments = ()
    if argument is not None:
        p, a, score = argument
        arguments = (ArgumentWordScore(p, a, 0, len(EXAMPLE.perspectives[p].arguments[a]), score),)
    return DetectorResult("judge", 0.5, 0.5, {}, response, arguments, {})


def sentence(text: str, score: float) -> Verdict:
    start = EXAMPLE.response.index(text)
    return Verdict("hallucination", "judge", score, CALIBRATION, Piece(text, start, start + len(text), 1.0))


def argument(p: int, a: int, score: float) -> Verdict:
    text = EXAMPLE.perspectives[p].arguments[a]
    return Verdict("coverage", "judge", score, CALIBRATION, Piece(text, 0, len(text), 1.0, p, a))


def test_a_likely_hallucination_in_a_supported_sentence_is_a_disagreement_with_its_facts(assessment):
    """The issue's case: the verdict quotes the sentence with an invented statistic, the claim view
    finds the sentence's claim close to an argument."""
    verdicts = {"hallucination": sentence(STATISTIC, 2.0), "coverage": argument(1, 0, -2.0)}
    found = account(EXAMPLE, verdicts, judge({"23": 0.95, "2016": 0.9, "turnout": 0.7}), assessment)
    read = found["hallucination"]
    assert [reading.verdict for reading in read.claims] == ["supported"]
    assert read.agrees is False
    assert read.words[0] == ("23", 0.95) and {"23", "2016", "turnout"} <= set(read.new_words)
    # The claim view flags the invented sentence instead: named in the same account.
    assert [reading.text for reading in read.elsewhere] == [INVENTED]
    box = accounts_html(EXAMPLE, found, "Judge")
    assert 'data-differs="hallucination"' in box and "No argument contains" in box and "\u201c23\u201d" in box
    line = account_line_html(EXAMPLE, read)
    assert 'data-agrees="false"' in line and "differs: why" in line and "supported" in line


def test_a_likely_hallucination_the_claim_view_flags_too_is_an_agreement(assessment):
    verdicts = {"hallucination": sentence(INVENTED, 2.0), "coverage": argument(1, 0, -2.0)}
    read = account(EXAMPLE, verdicts, judge({"Moon": 0.9}), assessment)["hallucination"]
    assert read.agrees is True and [reading.verdict for reading in read.claims] == ["unsupported"]
    assert 'data-agrees="true"' in account_line_html(EXAMPLE, read)


def test_an_unlikely_verdict_beside_a_flagged_claim_says_which_and_an_unclear_one_contradicts_nothing(assessment):
    verdicts = {"hallucination": sentence(STATISTIC, -2.0), "coverage": argument(1, 0, 0.0)}
    found = account(EXAMPLE, verdicts, judge({"Moon": 0.2}), assessment)
    assert found["hallucination"].agrees is False
    assert "whose words Judge scores at most 0.20" in accounts_html(EXAMPLE, found, "Judge")
    assert found["coverage"].agrees is None and 'data-agrees=""' in account_line_html(EXAMPLE, found["coverage"])


def test_coverage_agrees_where_the_claim_view_finds_the_argument_uncovered(assessment):
    covered, dropped = argument(0, 0, 2.0), argument(0, 1, 2.0)
    sure = sentence(INVENTED, 2.0)
    read = account(EXAMPLE, {"hallucination": sure, "coverage": dropped}, judge({}, (0, 1, 0.9)), assessment)
    assert read["coverage"].argument.flagged and read["coverage"].agrees is True
    read = account(EXAMPLE, {"hallucination": sure, "coverage": covered}, judge({}, (0, 0, 0.9)), assessment)
    assert not read["coverage"].argument.flagged and read["coverage"].agrees is False
    assert "covered by" in accounts_html(EXAMPLE, read, "Judge")


TURNED = make_example(
    "Supporters say open primaries decrease voter engagement. Critics answer that party members should choose "
    "their own nominees.",
    ("pro", ["Open primaries increase voter engagement."]),
    ("con", ["Party members should choose their own nominees."]),
    query="Should states hold open primaries?",
)


def test_an_unlikely_verdict_beside_a_misstated_argument_differs_and_says_what_the_meaning_check_reads():
    """Issue 47's case on the screen: the claim view calls the turned sentence supported (its words
    are the argument's), the verdict says unlikely, and the meaning check the verdict keeps finds
    the argument misstated: the account names the misstatement and calls it a disagreement."""
    assessment = assessment_of(detectors.create("semantic").score(TURNED), TURNED)
    first = TURNED.response.split(". ")[0] + "."
    finding = {"finding": "misstates", "argument": [0, 0], "piece": [0, len(first)], "misstated": 0.65, "by": "meaning"}
    result = DetectorResult("judge", 0.2, 0.2, {}, (), (), {}, {"findings": [finding]})
    text = TURNED.perspectives[0].arguments[0]
    low = {
        "hallucination": Verdict("hallucination", "judge", -2.0, CALIBRATION, Piece(first, 0, len(first), 1.0)),
        "coverage": Verdict("coverage", "judge", -2.0, CALIBRATION, Piece(text, 0, len(text), 1.0, 0, 0)),
    }
    found = account(TURNED, low, result, assessment)
    for error_type, read in found.items():
        assert not read.claim_view_flags_piece, error_type  # closeness calls the turned sentence supported
        assert read.misstates_piece and read.agrees is False
        line = account_line_html(TURNED, read)
        assert "<b>pro 1</b> misstated (0.65, card below)" in line and "differs: why" in line
    box = accounts_html(TURNED, found, "Judge")
    assert "The verdict and the meaning check differ" in box
    assert "\u201cSupporters say open primaries decrease voter engagement.\u201d as misstating <b>pro 1</b>" in box
    assert "a turned argument stays close" in box and "a coverage error unlikely for the same reason" in box
    assert box.count("as misstating") == 1

    high = {key: Verdict(v.error_type, "judge", 2.0, CALIBRATION, v.piece) for key, v in low.items()}
    found = account(TURNED, high, result, assessment)
    assert all(read.agrees is True for read in found.values())  # the meaning check bears a likely verdict out
    plain = account(TURNED, low, DetectorResult("judge", 0.2, 0.2, {}, (), (), {}), assessment)
    assert all(read.agrees is True and not read.misstated for read in plain.values())
