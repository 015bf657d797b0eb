"""Rule-built restatements of a negation: the same meaning said another way, with the changed span."""

import random

import pytest

from explorer.data import restatements
from explorer.data.restatements import restatement

CASES = [
    (restatements.do_not_as_fail, "It does not address the causes.", "It fails to address the causes."),
    (restatements.do_not_as_fail, "Quotas don't work.", "Quotas fail to work."),
    (restatements.fail_as_do_not, "Trade failed to allocate resources.", "Trade did not allocate resources."),
    (
        restatements.not_as_nothing,
        "Legalising it would not end the violence.",
        "Legalising it would do nothing to end the violence.",
    ),
    (restatements.not_as_nothing, "Arming police won't help.", "Arming police will do nothing to help."),
    (restatements.nothing_as_not, "A tax would do nothing to reduce obesity.", "A tax would not reduce obesity."),
    (
        restatements.not_as_rather,
        "Schools should teach facts, not dogma.",
        "Schools should teach facts rather than dogma.",
    ),
    (restatements.rather_as_not, "It is men rather than women who lose out.", "It is men, not women who lose out."),
    (restatements.not_linked_as_no_link, "Growth is not associated with quotas.", "Growth has no link to quotas."),
    (restatements.inconsistent_as_not_square, "It is inconsistent with the law.", "It does not square with the law."),
    (restatements.not_square_as_inconsistent, "It doesn't square with the law.", "It is inconsistent with the law."),
]


@pytest.mark.parametrize(
    ("rule", "text", "said"), CASES, ids=[f"{rule.how}-{n}" for n, (rule, _, _) in enumerate(CASES)]
)
def test_each_rule_says_the_negation_another_way_and_names_the_words_it_changed(rule, text, said):
    found = rule(text)
    assert found is not None and found.text == said
    start, end = found.changed
    assert said[:start] == text[:start] and said[end:] == text[len(text) - (len(said) - end) :]


@pytest.mark.parametrize(
    "text",
    [
        "Uniforms do square with school values.",  # no negation to restate
        "Open primaries would not violate party rights.",  # "not" before a verb of no sought effect, no comma
        "Uniforms save parents money.",
    ],
)
def test_a_text_without_a_negation_the_rules_know_is_left_alone(text):
    assert restatement(text, random.Random(0)) is None
