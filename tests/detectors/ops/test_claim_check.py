"""Three-way claim verdicts on the real all-MiniLM-L6-v2 (packaged, loads in a second)."""

import pytest

from explorer.detectors.ops.assessment import CONTRADICTED, SUPPORTED, UNSUPPORTED
from explorer.detectors.ops.claim_check import attributions, check_claims, is_negated, negates
from explorer.models.encoder import shared_encoder
from tests.helpers import make_example

PRO = ("pro", ["School uniforms reduce bullying between students.", "Uniforms save families money on clothes."])
CON = ("con", ["Uniforms limit the self-expression of students."])


@pytest.fixture(scope="module")
def encoder():
    return shared_encoder()


def verdict(encoder, response, claim, sentence=0):
    example = make_example(response, PRO, CON, query="Should schools require uniforms?")
    return check_claims(example, [(claim, sentence)], encoder)[0]


def test_a_copied_argument_is_entailed_with_its_evidence(encoder):
    checked = verdict(
        encoder,
        "Supporters say school uniforms reduce bullying between students.",
        "school uniforms reduce bullying between students",
    )
    assert checked.verdict == SUPPORTED and checked.argument == (0, 0) and checked.attributed_to == 0
    assert checked.evidence == (0, len(PRO[1][0]))


def test_an_invented_argument_is_neutral(encoder):
    checked = verdict(
        encoder, "Supporters say uniforms improve exam grades in maths.", "uniforms improve exam grades in maths"
    )
    assert checked.verdict == UNSUPPORTED and checked.argument is None and checked.evidence is None


def test_the_other_sides_argument_stated_as_this_sides_is_a_contradiction(encoder):
    response = "Supporters say uniforms reduce bullying. They also say uniforms limit the self-expression of students."
    checked = verdict(encoder, response, "uniforms limit the self-expression of students", sentence=1)
    assert checked.attributed_to == 0  # "They also say" continues the supporters' part
    assert checked.verdict == CONTRADICTED and checked.argument == (1, 0)
    assert checked.reason == "states a con argument as pro's"


def test_a_negated_argument_is_a_contradiction(encoder):
    checked = verdict(
        encoder,
        "Critics say uniforms do not limit the self-expression of students.",
        "uniforms do not limit the self-expression of students",
    )
    assert checked.verdict == CONTRADICTED and checked.reason == "negates a con argument"


def test_the_same_argument_voiced_for_its_own_side_is_entailed(encoder):
    checked = verdict(
        encoder,
        "Critics say uniforms limit the self-expression of students.",
        "uniforms limit the self-expression of students",
    )
    assert checked.verdict == SUPPORTED and checked.attributed_to == 1


def test_attribution_follows_cues_and_continues_until_the_next():
    example = make_example(
        "Uniforms are debated. Supporters say they cut costs. They also cut bullying. Critics disagree. "
        "Both supporters and critics agree on one thing.",
        PRO,
        CON,
    )
    assert attributions(example) == [None, 0, 0, 1, None]


def test_a_negation_elsewhere_in_the_argument_is_no_contradiction():
    argument = "Where buses and trains are infrequent, many people have no realistic choice but to drive."
    assert not negates("buses and trains are infrequent", argument)
    assert negates("uniforms do not limit self-expression", "Uniforms limit self-expression.")
    assert negates("Uniforms limit self-expression", "uniforms do not limit self-expression")


def test_negation_parity():
    assert is_negated("Uniforms don't cut costs") and not is_negated("Not only do they not cut costs")
    assert not is_negated("Uniforms cut costs")
