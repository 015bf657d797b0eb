"""The alignment classifier: its features and unit gold, the shipped models, and what it finds
on the sample test split (its head is tested in tests/detectors/ops). Real encoder, no mocks."""

import json

import pytest

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.data.labels import ERROR_TYPES
from explorer.data.samples import SAMPLE_DIR, load_samples
from explorer.detectors import DetectorError, alignment_classifier
from explorer.detectors.ops.alignment import align
from explorer.detectors.ops.logistic_head import MODEL_FILE
from explorer.models.encoder import shared_encoder
from explorer.models.trained import TRAINING_FILE
from explorer.training import data, logistic
from tests.helpers import SAMPLE_MINILM, make_example

pytestmark = SAMPLE_MINILM

ARGUMENTS = (
    ("pro", ["Taxes reduce sugar consumption.", "Revenue funds health clinics."]),
    ("con", ["Taxes hurt poor families."]),
)
RESPONSE = "Taxes reduce sugar consumption. Astronauts prefer blue paint on rockets. Taxes hurt poor families."


@pytest.fixture(scope="module")
def encoder():
    return shared_encoder()  # the process's, whose embeddings the other SAMPLE_MINILM tests reuse


def test_features_tell_a_copied_claim_from_an_invented_one(encoder):
    example = make_example(RESPONSE, *ARGUMENTS)
    alignment = align(example, encoder)
    claims = alignment_classifier.features(example, alignment, "hallucination")
    assert claims.shape == (3, len(alignment_classifier.FEATURES["hallucination"]))
    copied, invented = claims[0], claims[1]
    assert copied[0] == pytest.approx(1.0, abs=1e-4) and invented[0] < 0.3  # best argument similarity
    assert copied[2] == copied[3] == 1.0 and invented[2] == invented[3] == 0.0  # stems found in the arguments
    assert list(claims[:, 5]) == [1.0, 0.0, 1.0]  # opens or closes the response
    arguments = alignment_classifier.features(example, alignment, "coverage")
    assert arguments.shape == (3, len(alignment_classifier.FEATURES["coverage"]))
    stated, dropped = arguments[0], arguments[1]
    assert stated[1] == stated[2] == 1.0 and dropped[1] < 0.5


def test_unit_gold_comes_from_the_spans_and_uncovered_arguments(encoder):
    start = RESPONSE.index("Astronauts")
    labels = Labels(
        hallucination=True,
        coverage_error=True,
        hallucinated_spans=((start, start + 10),),
        uncovered=(UncoveredArgument(0, 1),),
    )
    example = make_example(RESPONSE, *ARGUMENTS, labels=labels)
    alignment = align(example, encoder)
    assert logistic.unit_targets(example, alignment, "hallucination") == [0, 1, 0]
    assert logistic.unit_targets(example, alignment, "coverage") == [0, 1, 0]


def test_a_model_trained_on_other_features_is_refused(tmp_path):
    stale = {"task": "coverage", "features": ["length"], "mean": [0], "scale": [1], "weights": [1], "intercept": 0}
    (tmp_path / MODEL_FILE).write_text(json.dumps(stale))
    with pytest.raises(ValueError, match="trained on other features"):
        alignment_classifier.load(tmp_path)


def test_training_keeps_the_regularization_with_the_best_dev_auc(encoder):
    examples = load_samples(SAMPLE_DIR / "synthetic.jsonl")
    # A sixth of train: the choice of C is checked, not the fit's quality.
    train_set = data.training_examples(examples, ["train"])[::6]
    dev_set = data.training_examples(examples, ["dev"])
    model, record = logistic.train("coverage", train_set, dev_set, encoder, log=lambda line: None)
    aucs = dict((strength, auc) for strength, auc in record["dev_roc_auc"])
    assert set(aucs) == set(logistic.REGULARIZATION)
    assert aucs[record["kept_C"]] == max(aucs.values())
    assert record["train_positive_units"] > 0 and record["train_data_sha256"] == data.data_digest(train_set, "coverage")
    assert model.features == alignment_classifier.FEATURES["coverage"]


def test_shipped_models_were_trained_on_the_sample_train_split():
    train_set = data.training_examples(load_samples(SAMPLE_DIR / "synthetic.jsonl"), ["train"])
    for error_type in ERROR_TYPES:
        directory = detectors.weights("alignment_classifier").shipped / error_type
        assert alignment_classifier.load(directory).error_type == error_type
        record = json.loads((directory / TRAINING_FILE).read_text())
        assert record["dev_is_held_out"]
        assert record["train_data_sha256"] == data.data_digest(train_set, error_type)


@pytest.fixture(scope="module")
def detector(encoder):
    return detectors.create("alignment_classifier", encoder=encoder)


def organic_test_errors(has_gold) -> list:
    """Full (not ambiguous) organic errors of the sample test split with word-level gold."""
    examples = [
        e
        for e in load_samples()
        if e.split == "test" and has_gold(e.labels) and not e.labels.ambiguous and e.labels.kind == "organic"
    ]
    assert examples
    return examples


def test_the_worst_claim_of_each_organic_test_hallucination_is_the_hallucinated_one(detector):
    for example in organic_test_errors(lambda labels: labels.hallucinated_spans):
        worst = max(detector.score(example).response_words, key=lambda word: word.score)
        assert any(start <= worst.start < end for start, end in example.labels.hallucinated_spans), example.id


def test_the_worst_argument_of_each_organic_test_coverage_error_is_an_uncovered_one(detector):
    for example in organic_test_errors(lambda labels: labels.uncovered):
        worst = max(detector.score(example).argument_words, key=lambda word: word.score)
        uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
        assert (worst.perspective, worst.argument) in uncovered, example.id


def test_a_sentence_longer_than_the_encoder_reads_is_an_error_not_a_cut(detector):
    example = make_example("=" * 1000, *ARGUMENTS)
    with pytest.raises(DetectorError, match="256 word pieces"):
        detector.score(example)
