"""An example's scores are a function of the example alone: the order of a file, the examples
scored before it, or a resumed run change nothing (issue 14, problem 6: reordering a file moved
the semantic and alignment-classifier scores of 26 of 40 examples by up to 6e-7, and the cache
kept whichever came first)."""

import json

import pytest

from explorer.data.samples import load_samples
from explorer.detectors.alignment_classifier import AlignmentClassifierDetector
from explorer.detectors.semantic import SemanticDetector
from explorer.models.encoder import SentenceEncoder
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_example, score_examples

DETECTORS = {"semantic": SemanticDetector, "alignment_classifier": AlignmentClassifierDetector}


@pytest.fixture(scope="module")
def examples():
    return load_samples()[:8]


def scores(detector_class, examples, cache=None):
    """Every result as JSON text, by a detector with its own encoder (nothing encoded before)."""
    detector = detector_class(encoder=SentenceEncoder())
    return {
        s.example.id: json.dumps(s.results[detector.name].to_dict())
        for s in score_examples(examples, [detector], cache)
    }


@pytest.mark.parametrize("name", DETECTORS)
def test_reversing_the_file_or_scoring_an_example_alone_changes_nothing(examples, name):
    in_order = scores(DETECTORS[name], examples)
    assert scores(DETECTORS[name], examples[::-1]) == in_order
    for example in examples[::4]:
        assert scores(DETECTORS[name], [example]) == {example.id: in_order[example.id]}


def test_a_resumed_run_gives_what_a_clean_run_gives(examples, tmp_path):
    clean = scores(SemanticDetector, examples)
    cache = ResultCache(tmp_path, seeds=[])
    scores(SemanticDetector, examples[1::2], cache)  # the interrupted run scored every other example
    assert scores(SemanticDetector, examples, cache) == clean


def test_chunks_prepared_together_give_what_one_example_at_a_time_gives(examples):
    """`score_examples` has the encoder encode a chunk's texts at once (`Detector.prepare`)."""
    alone = SemanticDetector(encoder=SentenceEncoder())
    one_at_a_time = {e.id: json.dumps(score_example(e, [alone]).results["semantic"].to_dict()) for e in examples}
    chunked = SemanticDetector(encoder=SentenceEncoder())
    scored = score_examples(examples[::-1], [chunked], chunk=3)
    assert {s.example.id: json.dumps(s.results["semantic"].to_dict()) for s in scored} == one_at_a_time
