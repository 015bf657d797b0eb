"""What the stacked verdict rests on, as HTML (`explorer.render.evidence`)."""

import re

from explorer.render.evidence import TOWARD_ERROR, TOWARD_NO_ERROR, verdict_evidence_html

EVIDENCE = {
    "hallucination": {
        "intercept": -1.0,
        "features": [
            {"feature": "cross_encoder_tuned hallucination", "value": 0.91, "push": 2.0},
            {"feature": "rouge coverage", "value": None, "push": 0.0},
            {"feature": "semantic hallucination", "value": 0.12, "push": -0.5},
        ],
    }
}


def rows(page: str) -> dict[str, str]:
    return dict(re.findall(r'data-feature="([^"]+)"(.*?)</div>', page))


def test_each_push_is_a_bar_toward_an_error_or_away_from_it_scaled_by_the_largest():
    page = verdict_evidence_html(
        EVIDENCE, {"cross_encoder_tuned": "Cross-encoder", "semantic": "Semantic", "rouge": "ROUGE-1"}
    )
    found = rows(page)
    assert list(found) == [f["feature"] for f in EVIDENCE["hallucination"]["features"]]
    assert "Cross-encoder · hallucination score" in found["cross_encoder_tuned hallucination"]
    assert (
        TOWARD_ERROR in found["cross_encoder_tuned hallucination"]
        and "width:50.0%" in found["cross_encoder_tuned hallucination"]
    )
    assert (
        TOWARD_NO_ERROR in found["semantic hallucination"]
        and "left:37.5%;width:12.5%" in found["semantic hallucination"]
    )
    assert "not read" in found["rouge coverage"] and "+0.00" in found["rouge coverage"]
    assert "constant -1.00; log-odds +0.50, score 0.62" in page and "P(error)" not in page
    # The verdict's own rows carry data-error-type; the evidence under it must not pass for them.
    assert 'data-evidence-for="hallucination"' in page and "data-error-type" not in page


def test_component_names_are_escaped():
    page = verdict_evidence_html(EVIDENCE, {"semantic": "<script>alert(1)</script>"})
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_only_p_error_is_the_verdicts_calibrated_one():
    """The head's logistic output is the detector's score; the P(error) shown is the verdict's."""
    page = verdict_evidence_html(EVIDENCE, {}, {"hallucination": 0.55})
    [row] = re.findall(r'data-verdict-p="hallucination"[^>]*>(.*?)</div>', page)
    assert row == "the verdict's P(error) 0.55: the score 0.62 read through its calibration"
    assert page.count("P(error)") == 1


def test_the_verdicts_p_error_comes_last_and_reads_the_raised_score():
    """The calibration reads the score after the doubt has raised it (0.62 -> 0.70), so its line
    follows the doubt's and names 0.70, not the head's 0.62."""
    doubted = {"coverage": {**EVIDENCE["hallucination"], "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25}}}
    page = verdict_evidence_html(doubted, {}, {"coverage": 0.66})
    assert page.index("data-doubt=") < page.index("data-verdict-p=")
    assert "P(error) 0.66: the score 0.70 read through" in page


def test_the_meaning_checks_doubt_is_shown_with_the_score_it_raises_to():
    """score 0.62 joined with a doubt of 0.8 at weight 0.25: 1 - 0.38 x 0.8 = 0.70."""
    doubted = {"coverage": {**EVIDENCE["hallucination"], "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25}}}
    page = verdict_evidence_html(doubted, {"meaning": "Meaning check"})
    [row] = re.findall(r'data-doubt="coverage"[^>]*>(.*?)</div>', page)
    assert row.startswith("raised to 0.70: Meaning check doubts an argument is stated (coverage error score 0.80)")
    assert "weight 0.25" in row
    assert "data-doubt" not in verdict_evidence_html(EVIDENCE, {})


def test_a_sure_misstatements_floor_is_shown_after_the_doubt():
    floored = {
        "coverage": {
            **EVIDENCE["hallucination"],
            "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25},
            "floor": {"misstated": 0.9, "argument": [0, 0], "by": "meaning"},
        }
    }
    page = verdict_evidence_html(floored, {"meaning": "Meaning <check>"}, {"coverage": 0.93})
    assert page.index('data-doubt="coverage"') < page.index('data-floor="coverage"') < page.index("data-verdict-p=")
    assert "P(error) 0.93: the score 0.90 read through" in page
    [row] = re.findall(r'data-floor="coverage"[^>]*>(.*?)</div>', page)
    assert row.startswith("raised to 0.90: Meaning &lt;check&gt; reads an argument as misstated with P(misstated) 0.90")


def test_the_likeliest_dropped_argument_is_shown_after_the_doubt_with_the_score_it_raises_to():
    """0.70 after the doubt, joined with P(dropped) 0.5 at weight 0.4: 1 - 0.30 x 0.8 = 0.76; the
    argument's name is user text, escaped."""
    argued = {
        "coverage": {
            **EVIDENCE["hallucination"],
            "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25},
            "argument": {"argument": [1, 0], "name": "<con> argument 1", "dropped": 0.5, "weight": 0.4},
        }
    }
    page = verdict_evidence_html(argued, {}, {"coverage": 0.8})
    assert page.index("data-doubt=") < page.index('data-argument="coverage"') < page.index("data-verdict-p=")
    [row] = re.findall(r'data-argument="coverage"[^>]*>(.*?)</div>', page)
    assert row.startswith("raised to 0.76: The argument head reads &lt;con&gt; argument 1 as the likeliest dropped")
    assert "P(dropped) 0.50" in row and "weight 0.40" in row
    assert "the score 0.76 read through" in page


def test_the_meaning_checks_misstatement_is_shown_with_the_score_it_raises_to_before_a_floor():
    """score 0.62 joined with a misstatement of 0.8 at weight 0.15: 1 - 0.38 x 0.88 = 0.67; the
    component's title is escaped."""
    misstated = {
        "hallucination": {
            **EVIDENCE["hallucination"],
            "misstated": {"by": "meaning", "misstated": 0.8, "weight": 0.15},
            "floor": {"misstated": 0.99, "argument": [0, 0], "by": "meaning"},
        }
    }
    page = verdict_evidence_html(misstated, {"meaning": "Meaning <check>"}, {"hallucination": 0.97})
    assert page.index('data-misstated="hallucination"') < page.index('data-floor="hallucination"')
    [row] = re.findall(r'data-misstated="hallucination"[^>]*>(.*?)</div>', page)
    assert row.startswith(
        "raised to 0.67: Meaning &lt;check&gt; reads an argument as misstated (hallucination score 0.80)"
    )
    assert "weight 0.15" in row
    assert "data-misstated" not in verdict_evidence_html(EVIDENCE, {})
