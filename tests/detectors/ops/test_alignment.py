"""Reading an alignment: RefChecker's aggregation rules and the matrix flags, on crafted matrices.

The similarities here are written by hand (no model), so each test pins one rule exactly.
"""

import numpy as np
import pytest

from explorer.detectors.ops.alignment import Alignment, Settings, Unit
from explorer.detectors.ops.assessment import (
    ABSTAIN,
    CONTRADICTED,
    COVERAGE_ERROR,
    FRAMING,
    PERSPECTIVE_CONFUSION,
    REPETITION,
    SUPPORTED,
    UNSUPPORTED,
    UNSUPPORTED_CLAIM,
    aggregate,
    assess,
)
from explorer.text.claims import split_sentences

S, U = SUPPORTED, UNSUPPORTED


@pytest.mark.parametrize(
    "verdicts, strict, major",
    [
        ([S, S, S], S, S),
        ([S, U, S], U, S),
        ([U, U, S], U, U),
        ([S, U], U, S),  # tie: the verdict met first wins, as Counter.most_common in RefChecker
        ([U, S], U, U),
        ([], ABSTAIN, ABSTAIN),
    ],
)
def test_strict_and_major_rules(verdicts, strict, major):
    assert aggregate(verdicts, "strict") == strict
    assert aggregate(verdicts, "major") == major


def test_soft_rule_is_the_share_of_each_verdict():
    assert aggregate([S, U, S, S], "soft") == {S: 0.75, U: 0.25, ABSTAIN: 0.0}
    assert aggregate([], "soft") == {S: 0.0, U: 0.0, ABSTAIN: 1.0}


def test_unknown_rule_and_verdict_are_refused():
    with pytest.raises(ValueError, match="choose one of strict, soft, major"):
        aggregate([S], "lenient")
    with pytest.raises(ValueError, match="must be 'supported' or 'unsupported'"):
        aggregate([S, "maybe"], "strict")
    with pytest.raises(ValueError, match="must be 'supported' or 'unsupported'"):
        aggregate([S, CONTRADICTED], "strict")  # only the three-way claim check contradicts


def test_three_way_rules_follow_refcheckers_aggregator():
    C = CONTRADICTED
    assert aggregate([S, U, C, S], "strict", three_way=True) == C  # any contradiction wins
    assert aggregate([S, U, S], "strict", three_way=True) == U
    assert aggregate([C, S, S], "major", three_way=True) == S
    assert aggregate([S, C, C, U], "soft", three_way=True) == {S: 0.25, U: 0.25, C: 0.5, ABSTAIN: 0.0}
    assert aggregate([], "soft", three_way=True) == {S: 0.0, U: 0.0, C: 0.0, ABSTAIN: 1.0}


def crafted(similarity, *, perspectives=(2, 2), claim_similarity=None, query_similarity=None) -> Alignment:
    """An alignment of one-sentence arguments and claims C1..Cn with the given cosines.

    `similarity` has one row per argument (perspective 0's arguments first) and one column per claim.
    """
    similarity = np.asarray(similarity, dtype=np.float32)
    n_claims = similarity.shape[1]
    response = " ".join(f"Claim number {i + 1}." for i in range(n_claims))
    arguments = tuple((p, a) for p, count in enumerate(perspectives) for a in range(count))
    return Alignment(
        claims=split_sentences(response),
        arguments=arguments,
        perspective_names=tuple(["pro", "con", "third"][: len(perspectives)]),
        units=tuple(Unit(p, a, 0, 10, sentence=0) for p, a in arguments),
        unit_similarity=similarity,
        claim_similarity=np.eye(n_claims, dtype=np.float32)
        if claim_similarity is None
        else np.asarray(claim_similarity),
        query_similarity=np.zeros(n_claims, dtype=np.float32)
        if query_similarity is None
        else np.asarray(query_similarity, dtype=np.float32),
    )


def kinds(assessment) -> list[tuple]:
    return [(f.kind, f.argument, f.claims) for f in assessment.flags()]


SETTINGS = Settings(match=0.7, repetition=0.6)


def test_faithful_answer_has_no_flag_and_every_claim_is_supported():
    alignment = crafted([[0.9, 0.2, 0.1, 0.1], [0.1, 0.8, 0.2, 0.1], [0.2, 0.1, 0.9, 0.3], [0.1, 0.2, 0.1, 0.85]])
    assessment = assess(alignment, SETTINGS)
    assert kinds(assessment) == []
    assert assessment.verdicts() == [S] * 4
    assert assessment.support.tolist() == pytest.approx([0.9, 0.8, 0.9, 0.85])
    assert assessment.coverage.tolist() == pytest.approx([0.9, 0.8, 0.9, 0.85])


def test_an_argument_no_claim_matches_is_a_coverage_error_with_its_closest_claim():
    alignment = crafted([[0.9, 0.2, 0.1], [0.1, 0.5, 0.6], [0.2, 0.8, 0.1], [0.1, 0.2, 0.9]])
    assessment = assess(alignment, SETTINGS)
    assert kinds(assessment) == [(COVERAGE_ERROR, 1, (2,))]
    # Counted: only C1 sits in the pro part (0.1); the closest claim overall is C3 (0.6).
    assert assessment.flags()[0].similarity == pytest.approx(0.1)
    assert assessment.coverage[1] == pytest.approx(0.1)


def test_a_claim_no_argument_matches_is_unsupported():
    alignment = crafted(
        [[0.9, 0.2, 0.1, 0.1, 0.1], [0.1, 0.8, 0.2, 0.1, 0.3], [0.2, 0.1, 0.9, 0.3, 0.4], [0.1, 0.2, 0.1, 0.85, 0.2]]
    )
    assessment = assess(alignment, SETTINGS)
    assert kinds(assessment) == [(UNSUPPORTED_CLAIM, 2, (4,))]
    assert assessment.aggregate("strict") == U and assessment.aggregate("major") == S


def test_an_argument_stated_twice_is_a_repetition_and_the_repeat_is_not_supported_again():
    # C3 restates pro 1 (0.75), which already supports C1 better (0.9).
    alignment = crafted(
        [[0.9, 0.1, 0.75, 0.1, 0.2], [0.1, 0.8, 0.2, 0.1, 0.1], [0.1, 0.1, 0.1, 0.9, 0.2], [0.2, 0.1, 0.1, 0.1, 0.9]]
    )
    assessment = assess(alignment, SETTINGS)
    assert kinds(assessment) == [(REPETITION, 0, (0, 2))]
    assert assessment.verdicts()[2] == U
    without_rule = assess(alignment, Settings(match=0.7, repetition=0.6, exclusive=False))
    assert without_rule.verdicts()[2] == S


def test_a_restatement_in_new_words_is_caught_by_claim_similarity():
    # C3 matches pro 1 only weakly (0.5) but is 0.8 similar to C1, which voices pro 1.
    claim_similarity = np.eye(4, dtype=np.float32)
    claim_similarity[0, 2] = claim_similarity[2, 0] = 0.8
    alignment = crafted(
        [[0.9, 0.1, 0.5, 0.1], [0.1, 0.8, 0.1, 0.1], [0.1, 0.1, 0.1, 0.9], [0.1, 0.2, 0.1, 0.1]],
        perspectives=(3, 1),
        claim_similarity=claim_similarity,
    )
    flags = assess(alignment, SETTINGS).flags()
    assert (REPETITION, 0, (0, 2)) in [(f.kind, f.argument, f.claims) for f in flags]
    assert not any(f.kind == UNSUPPORTED_CLAIM and f.claims == (2,) for f in flags)


def test_a_pro_argument_voiced_in_the_con_part_is_a_perspective_confusion():
    # Claims: pro 1, pro 2 | con 1, [pro 3], con 2. C4 voices pro 3 inside the con part.
    similarity = [
        [0.9, 0.1, 0.1, 0.1, 0.1],
        [0.1, 0.9, 0.1, 0.1, 0.1],
        [0.1, 0.1, 0.1, 0.88, 0.1],
        [0.1, 0.1, 0.9, 0.1, 0.1],
        [0.1, 0.1, 0.1, 0.1, 0.9],
    ]
    assessment = assess(crafted(similarity, perspectives=(3, 2)), SETTINGS)
    assert kinds(assessment) == [(COVERAGE_ERROR, 2, (3,)), (PERSPECTIVE_CONFUSION, 2, (3,))]
    confusion = assessment.flags()[1]
    assert confusion.part == 1 and confusion.similarity == pytest.approx(0.88)
    assert assessment.verdicts()[3] == U  # only con arguments may support a claim in the con part
    assert assessment.parts.tolist() == [0, 0, 1, 1, 1]


def test_an_answer_that_alternates_sides_has_no_parts_and_no_confusion():
    # pro, con, pro, con: point-counterpoint, not a misplaced argument.
    similarity = [[0.9, 0.1, 0.1, 0.1], [0.1, 0.1, 0.9, 0.1], [0.1, 0.9, 0.1, 0.1], [0.1, 0.1, 0.1, 0.9]]
    assessment = assess(crafted(similarity), SETTINGS)
    assert kinds(assessment) == []
    assert assessment.parts.tolist() == [-1] * 4


def test_an_opening_claim_closer_to_the_query_frames_the_answer_and_is_not_checked():
    similarity = [[0.6, 0.9, 0.1, 0.1], [0.1, 0.1, 0.8, 0.1], [0.1, 0.1, 0.1, 0.9], [0.5, 0.9, 0.2, 0.1]]
    query = [0.8, 0.4, 0.3, 0.3]
    assessment = assess(crafted(similarity, query_similarity=query), SETTINGS)
    assert assessment.verdicts() == [FRAMING, S, S, S]
    assert assessment.aggregate("strict") == S
    # C1 voices nothing, so it cannot cover pro 1 even though it resembles it.
    assert assessment.coverage[0] == pytest.approx(0.9)


def test_a_middle_claim_that_echoes_the_query_is_still_checked():
    similarity = [[0.9, 0.3, 0.1], [0.1, 0.3, 0.1], [0.1, 0.1, 0.9], [0.1, 0.1, 0.9]]
    assessment = assess(crafted(similarity, query_similarity=[0.2, 0.8, 0.2]), SETTINGS)
    assert assessment.verdicts()[1] == U


def test_an_answer_that_voices_nothing_is_all_checked():
    similarity = [[0.2, 0.3], [0.1, 0.3], [0.1, 0.1], [0.1, 0.1]]
    assessment = assess(crafted(similarity, query_similarity=[0.9, 0.9]), SETTINGS)
    assert assessment.verdicts() == [U, U]
    assert assessment.aggregate("strict") == U


def test_alignment_round_trips_through_json():
    alignment = crafted([[0.9, 0.2], [0.1, 0.8], [0.3, 0.3], [0.1, 0.1]])
    response = " ".join(c.text for c in alignment.claims)
    again = Alignment.from_dict(alignment.to_dict(), response)
    assert again.claims == alignment.claims and again.units == alignment.units
    assert np.allclose(again.similarity, alignment.similarity) and np.array_equal(again.evidence, alignment.evidence)
