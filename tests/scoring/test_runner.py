"""Scoring many examples: chunks prepared together give the results of one example at a time."""

import json

from explorer import detectors
from explorer.data.samples import load_samples
from explorer.scoring.runner import score_example, score_examples
from explorer.scoring.scores_file import output_record


def lines(scored_examples):
    return {s.example.id: json.dumps(output_record(s)) for s in scored_examples}


def test_semantic_scores_do_not_depend_on_the_other_examples_of_a_chunk_or_their_order():
    chosen = [detectors.create("rouge"), detectors.create("semantic")]
    examples = load_samples()[:30]
    alone = lines(score_example(example, chosen) for example in examples)
    in_chunks = lines(score_examples(examples, chosen, chunk=16))
    reversed_chunks = lines(score_examples(examples[::-1], chosen, chunk=7))
    assert in_chunks == alone
    assert reversed_chunks == alone
    assert [s.example.id for s in score_examples(examples, chosen, chunk=16)] == [e.id for e in examples]
