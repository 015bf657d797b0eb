"""The meaning judge's pairs: labelled from the answer's own spans, rule-built misstatements with
their changed words, Perspectrum's clusters as paraphrases, deterministic."""

import pytest

from explorer.data.example import Example, Labels, Perspective
from explorer.data.perspectrum_claims import Cluster, PerspectrumClaim
from explorer.detectors.ops.judge import ABSENT, MISSTATES, STATES
from explorer.detectors.semantic_tuned import tuned_encoder
from explorer.training import judge_data

BULLYING = "School uniforms reduce bullying over clothing."
MONEY = "Uniforms save parents money."
EXPRESSION = "Uniforms stifle the self-expression of students."
RESPONSE = (
    "Supporters say uniforms cut bullying about clothes, and they note that uniforms cost families more. "
    "Critics answer that a uniform keeps students from expressing themselves. It depends on what you value."
)
TURNED = "uniforms cost families more"


def _answer():
    stated = [RESPONSE.index(t) for t in ("uniforms cut bullying about clothes", "a uniform keeps students")]
    return Example(
        id="written-hand-x-1-distortion",
        query="Should schools require uniforms?",
        perspectives=(Perspective("pro", (BULLYING, MONEY)), Perspective("con", (EXPRESSION,))),
        response=RESPONSE,
        topic="Schools should require uniforms",
        labels=Labels(hallucination=True, coverage_error=True, kind="organic", ambiguous=False),
        split="train",
        extra={
            "argument_spans": [
                [[[stated[0], stated[0] + 35]], []],
                [[[stated[1], RESPONSE.index(" It depends")]]],
            ],
            "distortions": [
                {
                    "perspective": 0,
                    "argument": 1,
                    "span": [RESPONSE.index(TURNED), RESPONSE.index(TURNED) + len(TURNED)],
                    "changed": [RESPONSE.index("more"), RESPONSE.index("more") + 4],
                    "how": "comparative",
                }
            ],
        },
    )


@pytest.fixture(scope="module")
def builder():
    return judge_data.Builder(tuned_encoder())


def test_pairs_are_labelled_from_the_answers_own_spans(builder):
    example = _answer()
    pairs = list(builder.answer_pairs(example, *judge_data._spans_of(example), "written-2"))
    by = {(p.argument, p.text): p for p in pairs}
    assert by[(BULLYING, "Supporters say uniforms cut bullying about clothes")].label == STATES
    [misstating] = [p for p in pairs if p.argument == MONEY and p.label == MISSTATES and p.text.startswith("and")]
    assert misstating.text[slice(*misstating.changed)] == "more"
    closing = [p for p in pairs if p.text == "It depends on what you value."]
    assert closing and all(p.label == ABSENT for p in closing)
    assert not [p for p in pairs if p.argument == EXPRESSION and "bullying" in p.text and p.label != ABSENT]
    assert pairs == list(builder.answer_pairs(example, *judge_data._spans_of(example), "written-2"))


def test_rule_built_misstatements_keep_the_changed_words_and_clusters_are_paraphrases(builder):
    claim = PerspectrumClaim(
        1,
        "train",
        "Schools should require uniforms",
        (
            Cluster("pro", ((1, BULLYING), (2, "Uniforms mean fewer children are teased for what they wear."))),
            Cluster("pro", ((3, MONEY),)),
        ),
    )
    pairs = list(builder.cluster_pairs([claim]))
    assert (
        judge_data.Pair(
            BULLYING, "Uniforms mean fewer children are teased for what they wear.", STATES, "perspectrum", claim.text
        )
        in pairs
    )
    assert any(p.label == ABSENT and {p.argument, p.text} == {BULLYING, MONEY} for p in pairs)
    statements = [
        judge_data.Pair(
            f"Uniforms reduce bullying in {n} schools.",
            f"uniforms cut bullying in {n} schools",
            STATES,
            "perspectrum",
            claim.text,
        )
        for n in range(10)
    ]
    turned = [m for p in statements for m in builder.misstatements(p)]
    assert len(turned) >= 3, "most states pairs give a misstatement"
    for m in turned:
        assert m.label == MISSTATES and m.source.startswith("perspectrum+")
        span, text = (m.changed, m.text) if m.changed else (m.changed_in_argument, m.argument)
        assert text[slice(*span)].strip()


def test_a_negation_said_another_way_is_still_a_statement(builder):
    pair = judge_data.Pair("Arming police will not help.", "they say it does not help", STATES, "perspectrum", "t")
    restated = list(builder.restatements(pair))
    assert {(p.argument, p.text) for p in restated} == {
        ("Arming police will not help.", "they say it fails to help"),
        ("Arming police will do nothing to help.", "they say it does not help"),
    }
    assert all(p.label == STATES and p.source == "perspectrum+restated" for p in restated)
