"""Polarity: the claim's words that turn the argument it states, two turns cancelling."""

import pytest

from explorer.text.polarity import turned


@pytest.mark.parametrize(
    "claim, argument, words, kind",
    [
        ("this system decreases voter engagement", "Increasing voter engagement", ["decreases"], "antonym"),
        (
            "a minority of Americans support legalizing",
            "A majority of Americans support legalizing",
            ["minority"],
            "quantity",
        ),
        (
            "the law would not infringe freedom of speech",
            "The law would violate freedom of speech.",
            ["not"],
            "negation",
        ),
        (
            "homework makes no difference for older students",
            "Homework makes a difference for older students",
            ["no"],
            "negation",
        ),
        ("taxes are higher in cities", "Taxes are lower in cities", ["higher"], "comparative"),
    ],
)
def test_a_turned_argument_names_the_words_that_turn_it(claim, argument, words, kind):
    turns = turned(claim, argument)
    assert [claim[slice(*t.span)] for t in turns] == words and {t.kind for t in turns} == {kind}


@pytest.mark.parametrize(
    "claim, argument",
    [
        ("it does not respect privacy", "It violates privacy"),  # an opposite and a negation cancel
        ("uniforms cut bullying over clothes", "School uniforms reduce bullying over clothing."),
        ("critics say uniforms do not save money", "Uniforms do not save parents money."),
        ("where buses are infrequent", "People have no realistic choice"),  # a negation of something else
    ],
)
def test_a_faithful_statement_turns_nothing(claim, argument):
    assert turned(claim, argument) == []


def test_a_dropped_negation_marks_the_word_it_negated():
    claim = "Women are the future of Africa's economy"
    [turn] = turned(claim, "Women are not the future of Africa's economy.")
    assert claim[slice(*turn.span)] == "future" and turn.kind == "negation"
