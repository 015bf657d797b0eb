"""Rule-built distortions: each rule turns the meaning and says exactly which words it changed."""

import random

import pytest

from explorer.data import distortions
from explorer.data.written import DISTORTIONS


def _changed(d):
    return d.text[d.changed[0] : d.changed[1]]


@pytest.mark.parametrize(
    "text, turned, changed",
    [
        ("The law would violate freedom of speech.", "The law would not violate freedom of speech.", "would not"),
        ("Homework does not improve learning.", "Homework improves learning.", "improves"),
        ("Uniforms can't stop bullying.", "Uniforms can stop bullying.", "can"),
        (
            "Social media facilitates cyberbullying.",
            "Social media does not facilitate cyberbullying.",
            "does not facilitate",
        ),
        ("Uniforms reduce bullying.", "Uniforms do not reduce bullying.", "do not reduce"),
        ("It can never be justified.", "It can always be justified.", "always"),
        ("Voters can choose freely.", "Voters cannot choose freely.", "cannot"),
    ],
)
def test_negation_adds_or_drops_one_negation(text, turned, changed):
    d = distortions.negation(text)
    assert (d.text, _changed(d), d.how) == (turned, changed, "negation")


def test_negation_leaves_title_case_nouns_alone():
    assert distortions.negation("The American Jobs Act is good for the economy").text == (
        "The American Jobs Act is not good for the economy"
    )


def test_an_antonym_replaces_one_word_in_any_inflection_and_keeps_its_case():
    rng = random.Random(0)
    d = distortions.antonym("Increasing voter engagement", rng)
    assert d.text.endswith("voter engagement") and _changed(d) in {"Decreasing", "Reducing"}
    assert d.how == "antonym"
    d = distortions.antonym("Taxes are higher in cities", rng)
    assert (_changed(d), d.how) == ("lower", "comparative")
    assert distortions.antonym("Zebras graze on plains", rng) is None


def test_a_role_swap_exchanges_subject_and_object():
    d = distortions.role_swap("Social media facilitates cyberbullying.")
    assert d.text == "Cyberbullying facilitates social media."
    assert _changed(d) == "Cyberbullying facilitates social media" and d.how == "role"
    assert distortions.role_swap("It helps them.") is None  # pronouns: nothing to swap


def test_a_cause_swap_turns_cause_and_effect():
    d = distortions.cause_swap("Crime rises because poverty grows.")
    assert d.text == "Poverty grows because crime rises." and d.how == "cause"


def test_every_kind_is_a_corpus_kind_and_the_rules_are_deterministic():
    text = "Banning cars would reduce pollution because fewer engines run."
    first = distortions.distortions(text, random.Random(3))
    assert first == distortions.distortions(text, random.Random(3))
    assert {d.how for d in first} <= set(DISTORTIONS) and len(first) >= 3
    for d in first:
        assert d.text != text and _changed(d).strip() == _changed(d) != ""


def test_have_of_possession_is_negated_with_do():
    assert distortions.negation("Politicians have a duty to serve.").text == "Politicians do not have a duty to serve."
    assert distortions.negation("The law has harmed workers.").text == "The law has not harmed workers."
