"""The verdict's score read back from its evidence record: the head, the joins, the floor."""

import math

import pytest

from explorer.detectors.ops.explained import (
    at_least,
    doubted_evidence,
    evidence_logit,
    evidence_p,
    explained_p,
    joined,
    unfloored,
)

HEAD = {"intercept": -0.5, "features": [{"feature": "a coverage", "value": 0.9, "push": 0.5}]}  # log-odds 0: P .5


def test_the_head_then_the_doubt_then_the_argument_then_the_floor():
    record = {
        **HEAD,
        "doubt": {"by": "meaning", "doubt": 0.8, "weight": 0.25},
        "argument": {"argument": [0, 1], "name": "pro argument 2", "dropped": 0.5, "weight": 0.4},
    }
    assert evidence_logit(record) == 0 and evidence_p(record) == 0.5
    assert doubted_evidence(record) == pytest.approx(0.6)  # 1 - .5 (1 - .25 x .8)
    assert unfloored(record) == pytest.approx(1 - 0.4 * 0.8)  # and joined with .4 x .5
    assert explained_p(record) == pytest.approx(0.68)
    assert explained_p({**record, "floor": {"misstated": 0.9, "argument": [0, 0], "by": "meaning"}}) == 0.9


def test_a_record_without_joins_is_the_heads_own_and_a_join_never_lowers_a_score():
    assert unfloored(HEAD) == explained_p(HEAD) == 0.5
    assert at_least(0.3, None) == 0.3
    for p in (0.0, 0.2, 0.99):
        assert joined(p, 1.0, 0.35) >= p and joined(p, 0.0, 0.35) == pytest.approx(p)
    assert math.isclose(joined(0.5, 1.0, 1.0), 1.0)
