"""The noisy-or join of bench/joins.py (read by bench/judge_swap.py and bench/argument_head.py)."""

import pytest

from bench.joins import rejoined

HEAD = {"intercept": 0.0, "features": [{"feature": "tagger hallucination", "value": 0.5, "push": 0.0}]}


def test_a_score_joins_the_heads_score_by_noisy_or():
    # The head's log-odds are 0: P .5; joined with .8 at weight .5: 1 - .5 x (1 - .4) = .7.
    assert rejoined(HEAD, 0.8, 0.5) == pytest.approx(0.7)
    assert rejoined(HEAD, 0.8, 0.0) == pytest.approx(0.5)


def test_the_floor_stays_under_the_joined_score():
    floored = {**HEAD, "floor": {"misstated": 0.9, "argument": [0, 0], "by": "meaning"}}
    assert rejoined(floored, 0.8, 0.5) == pytest.approx(0.9)


def test_the_doubt_joins_at_its_recorded_weight_unless_another_is_given():
    doubted = {**HEAD, "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25}}
    assert rejoined(doubted, 0.0, 0.5) == pytest.approx(0.6)  # 1 - .5 x (1 - .25 x .8)
    assert rejoined(doubted, 0.0, 0.5, doubt=0.0) == pytest.approx(0.5)
    assert rejoined(doubted, 0.0, 0.5, doubt=0.5) == pytest.approx(0.7)


def test_the_likeliest_dropped_argument_joins_as_recorded_unless_another_weight_is_given():
    argued = {**HEAD, "argument": {"argument": [0, 0], "name": "pro argument 1", "dropped": 0.8, "weight": 0.25}}
    assert rejoined(argued, 0.0, 0.5) == pytest.approx(0.6)
    assert rejoined(argued, 0.0, 0.5, argument=0.0) == pytest.approx(0.5)
