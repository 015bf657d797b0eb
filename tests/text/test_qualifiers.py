"""Certainty words a claim adds to its argument (explorer.text.qualifiers), worked out by hand."""

import pytest

from explorer.text.qualifiers import ABSOLUTES, strengthened


def added(claim: str, argument: str) -> list[tuple[str, str]]:
    return [(claim[s.span[0] : s.span[1]], s.family) for s in strengthened(claim, argument)]


def test_will_for_may_is_a_dropped_hedge_and_will_in_the_argument_licenses_it():
    assert added("The tax will cut sugar intake.", "The tax may cut sugar intake.") == [("will", "hedge dropped")]
    assert added("The tax will cut sugar intake.", "The tax will cut sugar intake.") == []
    # Still hedged in the claim ("will likely"): nothing dropped.
    assert added("The tax will likely cut sugar intake.", "The tax may cut sugar intake.") == []
    # An unhedged argument: "will" adds nothing to say about hedging.
    assert added("The tax will cut sugar intake.", "The tax cuts sugar intake.") == []


@pytest.mark.parametrize(
    ("claim", "argument", "expected"),
    [
        ("It provides the only reliable benchmark.", "It provides a benchmark.", [("only", "only")]),
        ("It provides the only benchmark.", "It is solely a benchmark.", []),  # same family
        ("D.A.R.E. guarantees good outcomes.", "D.A.R.E. has great goals.", [("guarantees", "guarantee")]),
        ("This proves it fails.", "Falling revenue, proving that it fails.", []),
        ("Trains are far more reliable.", "Trains are reliable.", [("far more", "far")]),
        ("Trains run far from towns.", "Trains run outside towns.", []),
        ("Everyone benefits from it.", "Students benefit from it.", [("Everyone", "every")]),
        ("Smokers always bother others.", "Smoke bothers non-smokers.", [("always", "always")]),
        ("Students benefit from it.", "Students benefit from it.", []),
    ],
)
def test_absolutes_the_argument_does_not_use_are_added(claim, argument, expected):
    assert added(claim, argument) == expected


def test_each_family_matches_whole_words_only():
    assert all(added(f"X is {word}ish.", "X is so.") == [] for word in ("onl", "alway", "guarante"))
    assert set(ABSOLUTES) >= {"always", "never", "only", "every", "guarantee", "prove"}
