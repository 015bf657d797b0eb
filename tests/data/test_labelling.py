"""The labelling moves (marks snap to words, flags follow the marks) and the labels file."""

import pytest

from explorer.data import labelling
from explorer.data.example import Labels, UncoveredArgument
from explorer.data.jsonl import parse_jsonl
from tests.helpers import make_example

RESPONSE = "Taxes cut sugar intake. A 2019 study found 40% fewer cavities."
EXAMPLE = make_example(
    RESPONSE,
    ("pro", ["Taxes cut sugar intake.", "Revenue funds health programs."]),
    ("con", ["Taxes hurt poor families."]),
)


def test_a_selection_snaps_to_whole_words_and_the_flag_follows():
    start = RESPONSE.index("019 st")  # inside "2019" to inside "study"
    labels = labelling.mark_words(EXAMPLE, start, start + 6)
    assert labels.hallucinated_spans == ((RESPONSE.index("2019"), RESPONSE.index("study") + len("study")),)
    assert labels.hallucination is True and labels.coverage_error is False
    assert labelling.snap(RESPONSE, 4, 7) == (0, 9)  # "s c" touches "Taxes" and "cut"
    assert labelling.snap(RESPONSE, 5, 6) is None  # the space between them: no word


def test_marks_that_touch_merge_and_taking_one_back_clears_the_flag():
    first = labelling.mark_words(EXAMPLE, RESPONSE.index("2019"), RESPONSE.index("2019") + 4)
    second = labelling.mark_words(EXAMPLE.replace(labels=first), RESPONSE.index("study"), len(RESPONSE))
    assert second.hallucinated_spans == ((RESPONSE.index("2019"), RESPONSE.index("cavities") + len("cavities")),)
    back = labelling.unmark_words(EXAMPLE.replace(labels=second), RESPONSE.index("found"), RESPONSE.index("found") + 1)
    assert back.hallucinated_spans == () and back.hallucination is False


def test_an_argument_uncovered_whole_or_by_its_lost_words():
    whole = labelling.mark_uncovered(EXAMPLE, 0, 1)
    assert whole.uncovered == (UncoveredArgument(0, 1),) and whole.coverage_error is True
    argument = EXAMPLE.perspectives[0].arguments[1]
    part = labelling.mark_uncovered(EXAMPLE, 0, 1, (argument.index("health"), argument.index("health") + 2))
    assert part.uncovered == (UncoveredArgument(0, 1, ((argument.index("health"), argument.index(" programs")),)),)
    every_word = labelling.mark_uncovered(EXAMPLE, 0, 1, (0, len(argument)))
    assert every_word.uncovered == (UncoveredArgument(0, 1),)  # all of its words lost: the whole argument
    again = labelling.unmark_uncovered(EXAMPLE.replace(labels=part), 0, 1, (argument.index("health"), len(argument)))
    assert again.uncovered == () and again.coverage_error is False
    with pytest.raises(IndexError, match="perspective 1 has no argument 5"):
        labelling.mark_uncovered(EXAMPLE, 1, 5)


def test_no_errors_keeps_the_other_label_fields():
    labelled = EXAMPLE.replace(labels=Labels(kind="organic", hallucinated_spans=((0, 5),), hallucination=True))
    labels = labelling.no_errors(labelled)
    assert labels == Labels(hallucination=False, coverage_error=False, kind="organic")


def test_the_labels_file_is_a_labelled_dataset_matched_by_content(tmp_path):
    labelled = EXAMPLE.replace(labels=labelling.mark_uncovered(EXAMPLE, 1, 0))
    path = tmp_path / "labels.jsonl"
    labelling.write_labels(path, [labelled])
    back = parse_jsonl(path)
    assert back.ok and not back.warnings and back.examples == [labelled]
    store = labelling.by_content(labelling.open_labels_file(path))
    renamed = EXAMPLE.replace(id="other-id")
    edited = EXAMPLE.replace(response=RESPONSE + " More.")
    applied = labelling.apply([renamed, edited], store)
    assert applied[0].labels == labelled.labels  # same text under another id: labelled
    assert applied[1].labels.is_empty()  # another answer: not


def test_a_dataset_named_as_the_labels_file_is_refused_and_left_as_it_was(tmp_path):
    dataset = tmp_path / "answers.jsonl"
    labelling.write_labels(dataset, [EXAMPLE])  # an answer without labels: a dataset
    before = dataset.read_bytes()
    with pytest.raises(
        labelling.NotALabelsFile, match="1 example.s. without both labels.*a dataset, not a labels file"
    ):
        labelling.open_labels_file(dataset)
    assert dataset.read_bytes() == before
    with pytest.raises(labelling.NotALabelsFile, match="a folder"):
        labelling.open_labels_file(tmp_path)
    assert labelling.open_labels_file(tmp_path / "new.jsonl") == []
