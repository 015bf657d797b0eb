import numpy as np

from explorer.detectors import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.detectors.ops.word_links import sentence_map, sources_of, uses_of, word_map
from explorer.text.words import DEFAULT_SEGMENTER
from tests.helpers import make_example


def result_with_map(z) -> DetectorResult:
    return DetectorResult(
        detector="salience",
        hallucination=0.5,
        coverage=0.5,
        per_perspective={"pro": 0.5},
        response_words=(ResponseWordScore(0, 5, 0.1), ResponseWordScore(6, 9, 0.9)),
        argument_words=(ArgumentWordScore(0, 0, 0, 3, 0.2), ArgumentWordScore(0, 1, 4, 8, 0.7)),
        info={},
        details={"heatmap": {"z": z}},
    )


def test_sources_of_a_response_word_are_its_column_relative_to_the_strongest():
    linked = sources_of(result_with_map([[0.2, 0.0], [0.4, 0.3]]), 0)
    assert [w.score for w in linked.argument_words] == [0.5, 1.0]
    assert [(w.start, w.end, w.score) for w in linked.response_words] == [(0, 5, 1.0)]


def test_uses_of_an_argument_word_are_its_row_and_an_unused_word_shows_nothing():
    result = result_with_map([[0.2, 0.1], [0.0, 0.0]])
    assert [w.score for w in uses_of(result, 0).response_words] == [1.0, 0.5]
    assert [w.score for w in uses_of(result, 1).response_words] == [0.0, 0.0]
    assert [(w.argument, w.score) for w in uses_of(result, 1).argument_words] == [(1, 1.0)]


def test_a_map_of_the_wrong_shape_or_none_gives_no_links():
    assert word_map(result_with_map([[0.1, 0.2]])) is None
    assert word_map(DetectorResult("rouge", 0, 0, {}, (), (), {})) is None


def test_the_sentence_map_takes_the_strongest_word_link_between_two_sentences():
    # Argument "Sun warms. Rain cools." (two sentences), response "Heat rises. Water falls."
    example = make_example("Heat rises. Water falls.", ("pro", ["Sun warms. Rain cools."]))
    words = DEFAULT_SEGMENTER.content_words
    response = tuple(ResponseWordScore(w.start, w.end, 0.5) for w in words(example.response))
    arguments = tuple(ArgumentWordScore(0, 0, w.start, w.end, 0.5) for w in words(example.perspectives[0].arguments[0]))
    assert len(response) == len(arguments) == 4
    z = np.zeros((4, 4))
    z[0, 1] = 0.7  # "Sun" -> "rises": sentence 1 -> sentence 1
    z[3, 2] = 0.4  # "cools" -> "Water": sentence 2 -> sentence 2
    z[2, 0] = 0.1  # "Rain" -> "Heat"
    result = DetectorResult("salience", 0.5, 0.5, {"pro": 0.5}, response, arguments, {}, {"heatmap": {"z": z.tolist()}})
    found = sentence_map(result, example)
    assert found.values.tolist() == [[0.7, 0.0], [0.1, 0.4]]
    assert found.rows == ((0, 0, 0, 10), (0, 0, 11, 22)) and found.columns == ((0, 11), (12, 24))
    assert found.row_words == ((0, 1), (2, 3)) and found.column_words == ((0, 1), (2, 3))
    assert sentence_map(DetectorResult("rouge", 0, 0, {}, (), (), {}), example) is None
