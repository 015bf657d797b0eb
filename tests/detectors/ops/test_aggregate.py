import numpy as np
import pytest

from explorer.detectors.ops.aggregate import (
    example_scores,
    merge_to_words,
    normalize_columns,
    token_groups,
    word_scores,
)


def test_columns_sum_to_one_and_zero_columns_stay_zero():
    normalized = normalize_columns(np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 2.0]]))
    assert normalized.sum(axis=0).tolist() == [1.0, 0.0, 1.0]
    assert normalized[:, 0].tolist() == [0.25, 0.75]


def test_token_groups_cover_multi_token_words_and_skip_punctuation_tokens():
    # "taxation." tokenized as "tax" "ation" "." ; words: "taxation" only.
    assert token_groups([(0, 3), (3, 8), (8, 9)], [(0, 8)]) == [[0, 1]]
    # a token spanning two words counts for both
    assert token_groups([(0, 7)], [(0, 3), (4, 7)]) == [[0], [0]]
    # empty (special) tokens belong to no word
    assert token_groups([(0, 0), (0, 3)], [(0, 3)]) == [[1]]


def test_merge_takes_the_max_over_sub_tokens_on_both_axes():
    token_map = np.array(
        [
            [0.1, 0.2, 0.3],
            [0.4, 0.0, 0.1],
            [0.0, 0.9, 0.0],
        ]
    )
    merged = merge_to_words(token_map, row_groups=[[0, 1], [2]], column_groups=[[0], [1, 2]])
    assert merged.tolist() == [[0.4, 0.3], [0.0, 0.9]]


def test_word_scores_reduce_rows_and_columns():
    word_map = np.array([[0.5, 0.1], [0.2, 0.3]])
    contribution, attribution = word_scores(word_map, "max")
    assert contribution.tolist() == [0.5, 0.3] and attribution.tolist() == [0.5, 0.3]
    contribution, attribution = word_scores(word_map, "sum")
    assert contribution == pytest.approx([0.6, 0.5]) and attribution == pytest.approx([0.7, 0.4])


def test_negative_entropy_is_one_when_concentrated_and_zero_when_even():
    word_map = np.array([[1.0, 0.5], [0.0, 0.5]])
    _, attribution = word_scores(word_map, "neg_entropy")
    assert attribution == pytest.approx([1.0, 0.0])


def test_unknown_reduction_names_the_valid_ones():
    with pytest.raises(ValueError, match="max, sum, neg_entropy"):
        word_scores(np.zeros((1, 1)), "mean")


def test_example_scores_follow_the_paper():
    contribution = np.array([0.25, 1.0, 0.5])  # pro words: 0.25, 1.0 ; con word: 0.5
    attribution = np.array([0.5, 0.125])
    scores = example_scores(contribution, [0, 0, 1], attribution, perspectives=2)
    assert scores.per_perspective == {0: pytest.approx(0.5), 1: pytest.approx(0.5)}  # gmean(0.25, 1) = 0.5
    assert scores.coverage == pytest.approx(0.5)
    assert scores.hallucination == pytest.approx(1 - 0.25)  # gmean(0.5, 0.125) = 0.25


def test_perspective_without_words_has_nothing_to_cover():
    scores = example_scores(np.array([1.0]), [0], np.array([]), perspectives=2)
    assert scores.per_perspective == {0: 0.0, 1: 0.0} and scores.hallucination == 0.0
