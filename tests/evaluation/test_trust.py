"""Trust metrics (Chiesurin et al. 2023) on cases worked out by hand."""

from collections import Counter

import pytest

from explorer.data import perspectrum
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from explorer.evaluation.trust import TrustThresholds, choose_thresholds, trust_frame, trust_metrics, unigram_overlap
from tests.helpers import make_example

# Content-word stems (stop words dropped, Porter stems):
#   query     "Should sugary drinks be taxed?"                -> sugari drink tax              (3)
#   response  "Sugary drinks should be taxed because taxes cut obesity."
#                                                             -> sugari drink tax tax cut obes (6)
#   arguments "Taxes cut obesity." + "Taxes fund schools."    -> tax cut obes tax fund school  (6)
QUERY = "Should sugary drinks be taxed?"
RESPONSE = "Sugary drinks should be taxed because taxes cut obesity."
EXAMPLE = make_example(RESPONSE, ("pro", ["Taxes cut obesity."]), ("con", ["Taxes fund schools."]), query=QUERY)


def test_query_alignment_is_unigram_precision_recall_f1():
    # Response words found in the query, clipped: sugari, drink, tax (one of the two) -> 3 of 6.
    # Query words repeated: 3 of 3.
    metrics = trust_metrics(EXAMPLE)
    assert metrics.query_alignment.precision == pytest.approx(3 / 6)
    assert metrics.query_alignment.recall == pytest.approx(1.0)
    assert metrics.query_alignment.f1 == pytest.approx(2 * 0.5 * 1.0 / 1.5)


def test_knowledge_f1_against_all_arguments():
    # Overlap with the arguments, clipped: tax x2, cut, obes -> 4. P = 4/6, R = 4/6, F1 = 2/3.
    assert trust_metrics(EXAMPLE).knowledge_f1 == pytest.approx(2 / 3)


def test_knowledge_f1_plus_removes_the_query_words_from_the_response_only():
    # Response minus query stems: cut obes (tax goes too: it is a query word) -> 2 words.
    # Overlap with the arguments: cut, obes -> P = 2/2, R = 2/6, F1 = 2 * 1 * 1/3 / (4/3) = 0.5.
    assert trust_metrics(EXAMPLE).knowledge_f1_plus == pytest.approx(0.5)


def test_a_response_of_only_query_words_has_no_grounded_novel_content():
    example = make_example("Sugary drinks taxed?", ("pro", ["Sugary drinks are taxed."]), query=QUERY)
    metrics = trust_metrics(example)
    assert metrics.knowledge_f1 == pytest.approx(1.0)
    assert metrics.knowledge_f1_plus == 0.0


def test_trust_trap_needs_both_alignment_with_the_query_and_poor_grounding():
    parrot = make_example(
        "Should sugary drinks be taxed? Sugary drinks taxed means happier dentists everywhere.",
        ("pro", ["Taxes cut obesity."]),
        query=QUERY,
    )
    thresholds = TrustThresholds(query_recall=0.8, kf1_plus=0.3)
    assert trust_metrics(parrot, thresholds).trust_trap
    assert not trust_metrics(EXAMPLE, thresholds).trust_trap  # grounded: K-F1++ 0.5
    unaligned = make_example("Dentists would be happier.", ("pro", ["Taxes cut obesity."]), query=QUERY)
    assert not trust_metrics(unaligned, thresholds).trust_trap  # poorly grounded but not aligned


def test_overlap_of_empty_texts_is_zero_not_an_error():
    assert unigram_overlap(Counter(), Counter({"a": 1})).f1 == 0.0
    assert unigram_overlap(Counter({"a": 1}), Counter()).f1 == 0.0


def test_trust_frame_has_one_row_per_example_id():
    other = EXAMPLE.replace(id="other", response="Dentists would be happier.")
    frame = trust_frame([EXAMPLE, other])
    assert list(frame.index) == ["ex", "other"] and frame.index.name == "id"
    assert list(frame.columns) == ["query precision", "query recall", "query F1", "K-F1", "K-F1++", "trust trap"]
    assert frame.loc["ex", "K-F1"] == pytest.approx(2 / 3)
    assert frame["trust trap"].dtype == bool


def test_the_shipped_thresholds_are_those_chosen_on_the_perspectrum_dev_build():
    """Chosen on answers written outside the team (bench/tune_trust.py), not on the sample's own."""
    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    dev = [e for e in perspectrum.build(folder=folder) if e.split == "dev"]
    assert choose_thresholds(dev) == TrustThresholds()
    # At those thresholds few faithful answers are flagged, fewer than hallucinations.
    flagged = trust_frame(dev)["trust trap"]
    faithful = [e.id for e in dev if not e.labels.hallucination and not e.labels.coverage_error]
    hallucinated = [e.id for e in dev if e.labels.hallucination]
    assert flagged[faithful].mean() <= 0.05 < flagged[hallucinated].mean()
