"""The misstatement card: the argument beside the words that misstate it, turning words marked, text escaped."""

from explorer.data.example import Example, Perspective
from explorer.detectors.base import DetectorResult
from explorer.detectors.semantic import assessment_of
from explorer.detectors.semantic_tuned import SemanticTunedDetector
from explorer.render import claims, findings

ARGUMENT = "Open primaries <increase> voter engagement."
RESPONSE = "Supporters say open primaries decrease voter engagement. It depends."


def _result(finding):
    return DetectorResult("meaning", 0.8, 0.8, {"pro": 0.8}, (), (), {}, {"findings": [finding]})


def test_a_misstated_argument_is_named_and_its_turning_words_marked_on_both_sides():
    example = Example("x", "q?", (Perspective("pro", ("Another one.", ARGUMENT)),), RESPONSE)
    start = RESPONSE.index("open")
    finding = {
        "argument": [0, 1],
        "finding": "misstates",
        "stated": 0.1,
        "misstated": 0.82,
        "piece": [start, RESPONSE.index(".")],
        "turning": {
            "response": [[RESPONSE.index("decrease"), RESPONSE.index("decrease") + 8, 1.0]],
            "argument": [[ARGUMENT.index("increase"), ARGUMENT.index("increase") + 8, 0.6]],
        },
    }
    html = findings.misstatements_html(example, findings.misstatements(_result(finding)))
    assert "Misstates pro argument 2" in html and "P(misstated) 0.82" in html
    assert ">decrease</span>" in html and ">increase</span>" in html
    assert "&lt;" in html and "<increase>" not in html  # user text escaped
    assert findings.misstatements_among({"meaning": _result({**finding, "finding": "states"})}) == []


def test_the_claim_view_counts_and_notes_a_claim_that_misstates_an_argument():
    arguments = ("Open primaries give independents a voice.", "Open primaries increase voter engagement.")
    example = Example("x", "Should states hold open primaries?", (Perspective("pro", arguments),), RESPONSE)
    assessment = assessment_of(SemanticTunedDetector().score(example), example)
    finding = {"argument": [0, 1], "finding": "misstates", "misstated": 0.7, "piece": [0, RESPONSE.index(".")]}
    headline = claims.claim_verdict_html(assessment, [finding])
    assert "1 misstates an argument (Meaning check (judge))" in headline
    assert "misstates" not in claims.claim_verdict_html(assessment)
    cards = claims.claim_cards_html(example, assessment, None, [finding])
    assert "misstating pro 2</b> (P(misstated) 0.70)" in cards


def test_each_argument_gets_one_card_the_first_checks_saying_which_check_and_how():
    example = Example("x", "q?", (Perspective("pro", ("Another one.", ARGUMENT)),), RESPONSE)
    piece = [RESPONSE.index("open"), RESPONSE.index(".")]
    turned = {"finding": "misstates", "argument": [0, 1], "piece": piece, "turning": {"response": []}}
    polarity = {**turned, "by": "polarity", "misstated": 0.87, "measure": "closeness", "how": ["antonym"]}
    meaning, other = {**turned, "misstated": 0.95}, {**turned, "argument": [0, 0], "misstated": 0.6}
    by_polarity = DetectorResult("polarity", 0.87, 0.87, {"pro": 0.87}, (), (), {}, {"findings": [polarity]})
    assert findings.misstatements_among({"polarity": by_polarity, "meaning": _result(meaning)}) == [polarity]
    found = findings.misstatements_among({"meaning": _result(other), "polarity": by_polarity})
    assert found == [other, polarity]
    cards = findings.misstatements_html(example, found)
    assert "P(misstated) 0.60 · Meaning check (judge)" in cards
    assert "closeness 0.87 · antonym · Polarity check (tuned matcher)" in cards
