import pytest

from explorer.detectors.rouge import RougeDetector
from tests.helpers import make_example

rouge = RougeDetector()


def test_hand_computed_scores(sugar_example):
    # Response content stems (12): sugar tax reduc consumpt critic say tax hurt poor famili rais price.
    # Argument stems: tax x2, reduc, sugar, consumpt, revenu, fund, health, program, hurt, poor, famili.
    # Clipped overlap 8 -> P = 8/12. Pro stems (8) found in the response: tax reduc sugar consumpt -> R = 4/8.
    # Con stems (4) all found -> R = 1.
    result = rouge.score(sugar_example)
    assert result.hallucination == pytest.approx(1 - 8 / 12)
    assert result.per_perspective == {"pro": pytest.approx(0.5), "con": pytest.approx(0.0)}
    assert result.coverage == pytest.approx(0.5)


def test_word_scores_flag_unsupported_response_words_and_dropped_argument_words(sugar_example):
    result = rouge.score(sugar_example)
    flagged = [sugar_example.response[w.start : w.end] for w in result.response_words if w.score == 1.0]
    assert flagged == ["Critics", "say", "raise", "prices"]
    dropped = [
        sugar_example.perspectives[w.perspective].arguments[w.argument][w.start : w.end]
        for w in result.argument_words
        if w.score == 1.0
    ]
    assert dropped == ["Revenue", "funds", "health", "programs"]
    assert all(w.score in (0.0, 1.0) for w in result.response_words + result.argument_words)


def test_counts_are_clipped_like_rouge_score():
    example = make_example("tax tax tax", ("pro", ["tax"]))
    result = rouge.score(example)
    assert result.hallucination == pytest.approx(2 / 3)
    assert result.coverage == pytest.approx(0.0)
    assert [w.score for w in result.response_words] == [0.0, 0.0, 0.0]


def test_faithful_copy_scores_zero_and_unrelated_response_scores_one():
    arguments = ("pro", ["Cycling lanes cut traffic deaths."]), ("con", ["Shops lose passing trade."])
    copy = make_example("Cycling lanes cut traffic deaths. Shops lose passing trade.", *arguments)
    assert (rouge.score(copy).hallucination, rouge.score(copy).coverage) == (0.0, 0.0)
    unrelated = make_example("Bananas are yellow.", *arguments)
    assert (rouge.score(unrelated).hallucination, rouge.score(unrelated).coverage) == (1.0, 1.0)


def test_coverage_is_the_worst_perspective():
    example = make_example(
        "Cycling lanes cut traffic deaths.",
        ("pro", ["Cycling lanes cut traffic deaths."]),
        ("con", ["Shops lose passing trade."]),
    )
    result = rouge.score(example)
    assert result.per_perspective == {"pro": 0.0, "con": 1.0}
    assert result.coverage == 1.0


def test_text_of_stop_words_only_has_nothing_to_flag():
    example = make_example("It is what it is.", ("pro", ["They should have been there."]))
    result = rouge.score(example)
    assert (result.hallucination, result.coverage) == (0.0, 0.0)
    assert result.response_words == () and result.argument_words == ()


def test_stemming_matches_inflections():
    example = make_example("Taxing studies", ("pro", ["taxes study"]))
    assert rouge.score(example).hallucination == 0.0
