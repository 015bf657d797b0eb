"""Claim-level points and the claim view's reading, chosen on foreign data."""

import pytest

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.detectors.semantic import alignment_of
from explorer.evaluation.claim_level import ClaimPoints, claim_view_assessment, claim_view_choice
from tests.helpers import make_example

ARGUMENTS = [
    "A tax on sugary drinks lowers how much sugar people consume.",
    "Dentists see fewer cavities in children where sugar is taxed.",
    "The revenue can pay for school sports programmes.",
]
STATED = "A sugar tax cuts the amount of sugar people consume."
# In the middle: an opening or closing claim nearer the question than any argument is framing.
INVENTED = "Soft drink makers would move their factories abroad."
STATED_TOO = "Where sugar is taxed, dentists find fewer cavities in children."


@pytest.fixture(scope="module")
def example():
    response = f"{STATED} {INVENTED} {STATED_TOO}"
    start = response.index(INVENTED)
    labels = Labels(
        hallucination=True,
        coverage_error=True,
        hallucinated_spans=((start, start + len(INVENTED)),),
        uncovered=(UncoveredArgument(0, 2, None),),
    )
    return make_example(response, ("pro", ARGUMENTS), labels=labels)


@pytest.mark.slow
def test_points_put_the_hallucinated_claim_and_the_dropped_argument_among_the_positives(example):
    detector = detectors.create("semantic")
    found = ClaimPoints()
    found.add(example, alignment_of(detector.score(example), example))
    assert len(found.hallucinated) == 1 and len(found.other_claims) == 2
    assert len(found.dropped) == 1 and len(found.other_arguments) == 2
    # The invented claim matches no argument as well as the stated ones do; the dropped argument likewise.
    assert found.hallucinated[0] < min(found.other_claims) and found.dropped[0] < min(found.other_arguments)
    cut, mean_j = found.best_cut()
    assert mean_j == 1.0 and found.hallucinated[0] < cut <= min(found.other_claims)
    assert found.roc_aucs() == (1.0, 1.0)


def test_the_shipped_choice_is_the_best_detector_compared_on_a_dev_split():
    choice = claim_view_choice()
    compared = choice.evidence["detectors compared"]
    assert choice.detector in detectors.names() and choice.detector == max(compared, key=compared.get)
    assert "dev split" in choice.data and "test" not in choice.data
    assert 0 < choice.match < 1


@pytest.mark.slow
def test_the_claim_view_reads_the_stacked_results_alignment_with_the_chosen_threshold(example):
    choice = claim_view_choice()
    stacked = detectors.create("stacked").score(example)
    assessment = claim_view_assessment(example, {"rouge": detectors.create("rouge").score(example), "stacked": stacked})
    assert assessment is not None and assessment.settings.match == choice.match
    assert [claim.text for claim in assessment.alignment.claims] == [STATED, INVENTED, STATED_TOO]
    assert assessment.verdicts() == ["supported", "unsupported", "supported"]
    # An alignment from another encoder is not read with a threshold chosen for this one.
    assert claim_view_assessment(example, {"semantic": detectors.create("semantic").score(example)}) is None
