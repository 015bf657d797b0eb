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


# Rewordings: the same words a distortion changes, with the meaning kept, and their turned twins.

REWORDED = [
    # (rule, text, kept, turned)
    (restatements.synonym, "Gun control would reduce crime.", "lower", "raise"),
    (restatements.synonym, "Social media harms teenagers.", "hurts", "helps"),
    (restatements.synonym, "This is dangerous for children.", "unsafe", "safe"),
    (restatements.comparison, "Nuclear power is cheaper than solar energy.", "costs less than", "costs more than"),
    (restatements.comparison, "Vaccines are safer than the disease.", "less dangerous than", "more dangerous than"),
    (restatements.comparison, "Taxes are higher than before.", "not as low as", "lower than"),
    (restatements.comparison, "Solar panels are less expensive than coal.", "cheaper than", "less cheap than"),
]


def _draws(rule, text, kept):
    """The rewording of `text` whose kept words are `kept`, over seeds (each rule draws its words)."""
    for seed in range(200):
        found = rule(text, random.Random(seed))
        if found is not None and found.kept.text[slice(*found.kept.changed)] == kept:
            return found
    raise AssertionError(f"{rule.__name__} never says {kept!r} for {text!r}")


@pytest.mark.parametrize(("rule", "text", "kept", "turned"), REWORDED, ids=[r[2] for r in REWORDED])
def test_a_rewording_keeps_the_text_around_its_words_and_its_twin_turns_the_same_words(rule, text, kept, turned):
    found = _draws(rule, text, kept)
    start, end = found.kept.changed
    assert found.kept.text[:start] == text[:start]
    assert found.kept.text[end:] == text[len(text) - (len(found.kept.text) - end) :]
    assert found.turned is not None and found.turned.text[slice(*found.turned.changed)] == turned
    assert found.turned.text[: found.turned.changed[0]] == found.kept.text[:start]


@pytest.mark.parametrize(
    "text",
    [
        "It does more harm than good.",  # "harm" a noun: never a verb's opposite ("more help")
        "The Protect Act passed in 2019.",  # a capitalized word inside a sentence is a name
        "An increase in crime followed.",  # "increase" after a determiner is a noun: no verb group
    ],
)
def test_a_rewording_never_turns_a_noun_into_a_verb_nor_rewords_a_name(text):
    for seed in range(50):
        found = restatements.rewording(text, random.Random(seed))
        if found is None:
            continue
        changed = found.kept.text[slice(*found.kept.changed)]
        assert changed[:1].islower() and changed not in ("help", "improve", "raise", "boost")
        turned = found.turned.text[slice(*found.turned.changed)] if found.turned else ""
        assert turned not in restatements.verb_lexicon().base


def test_the_lexicon_groups_hold_no_word_and_its_opposite():
    table = restatements.lexicon()
    opposite = restatements.opposites()
    for word, others in [*table.words.items(), *((w, o) for w, (_, o) in table.verbs.items())]:
        assert not {o for o, _ in opposite.get(word, ())} & set(others), word
