"""The MiniLM cross-encoder: units and their gold, scoring on the shipped adapters, a tiny
training run, and inputs too long for the encoder. Real models, no mocks."""

import hashlib
import json

import pytest
from transformers import AutoTokenizer

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.data.labels import ERROR_TYPES
from explorer.data.samples import SAMPLE_DIR, load_samples
from explorer.detectors import DetectorError
from explorer.detectors import cross_encoder as cross_encoder_detector
from explorer.models.trained import ADAPTER_FILE, TRAINING_FILE
from explorer.training import cross_encoder, data
from explorer.training.data import save_peft
from tests.helpers import make_example, recorded_train_set

RESPONSE = "Taxes cut sugar intake. They also fund parks. But the poor pay most."


def example_with(labels: Labels | None = None, response=RESPONSE):
    return make_example(
        response,
        ("pro", ["Taxes reduce sugar consumption.", "Revenue funds health clinics."]),
        ("con", ["Taxes hurt poor families."]),
        labels=labels or Labels(),
        split="train",
    )


def test_units_are_response_sentences_against_the_arguments_and_arguments_against_the_response():
    example = example_with()
    sentences = cross_encoder_detector.units(example, "hallucination")
    assert [u.text for u in sentences] == ["Taxes cut sugar intake.", "They also fund parks.", "But the poor pay most."]
    assert sentences[1].key == ("sentence", 24, 45)
    assert "{pro: {Taxes reduce sugar consumption.} {Revenue funds health clinics.}}" in sentences[0].context
    arguments = cross_encoder_detector.units(example, "coverage")
    assert [u.key for u in arguments] == [("argument", 0, 0), ("argument", 0, 1), ("argument", 1, 0)]
    assert all(u.context == RESPONSE for u in arguments)


def test_unit_gold_comes_from_the_spans_and_uncovered_arguments():
    hallucinated = example_with(Labels(hallucination=True, coverage_error=False, hallucinated_spans=((24, 45),)))
    assert cross_encoder.unit_targets(hallucinated, "hallucination") == [0, 1, 0]
    uncovered = example_with(Labels(hallucination=False, coverage_error=True, uncovered=(UncoveredArgument(0, 1),)))
    assert cross_encoder.unit_targets(uncovered, "coverage") == [0, 1, 0]


def test_shipped_adapters_are_small_and_were_trained_on_the_sample_train_split():
    train_set = data.training_examples(load_samples(SAMPLE_DIR / "synthetic.jsonl"), ["train"])
    for error_type in ERROR_TYPES:
        directory = detectors.weights("cross_encoder").shipped / error_type
        assert (directory / ADAPTER_FILE).stat().st_size < 2_000_000
        record = json.loads((directory / TRAINING_FILE).read_text())
        assert record["task"] == error_type and record["dev_is_held_out"]
        assert record["train_data_sha256"] == data.data_digest(train_set, error_type)


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_the_perspectrum_adapters_match_their_record_and_todays_perspectrum_build(error_type, perspectrum_file):
    directory = detectors.weights("cross_encoder_tuned").shipped / error_type
    weights = (directory / ADAPTER_FILE).read_bytes()
    record = json.loads((directory / TRAINING_FILE).read_text())
    assert len(weights) < 2_000_000 and hashlib.sha256(weights).hexdigest() == record["weights_sha256"]
    assert record["task"] == error_type and record["dev_is_held_out"] and "perspectrum dev" in record["dev_data"]
    assert dict(record["dev_roc_auc"])[record["kept_step"]] == max(auc for _, auc in record["dev_roc_auc"])
    assert record["train_data_sha256"] == data.data_digest(recorded_train_set(record, perspectrum_file), error_type)


@pytest.mark.slow
def test_the_perspectrum_cross_encoder_doubts_an_unprovided_argument_more_than_a_paraphrase():
    example = make_example(
        "Taxes on sugary drinks make people consume less sugar. Soda makers would move their factories abroad.",
        ("pro", ["A sugar tax lowers how much sugar people consume."]),
    )
    words = detectors.create("cross_encoder_tuned").score(example).response_words
    stated, invented = words[0].score, words[-1].score  # a word takes its sentence's P(unsupported)
    assert invented > stated


@pytest.fixture(scope="module")
def detector():
    return detectors.create("cross_encoder")


def test_example_scores_are_the_worst_unit_and_words_carry_their_unit(detector):
    example = next(e for e in load_samples() if e.id == "cashless-shops-coverage")
    result = detector.score(example)
    assert result.hallucination == pytest.approx(max(w.score for w in result.response_words))
    for p, perspective in enumerate(example.perspectives):
        words = [w.score for w in result.argument_words if w.perspective == p]
        assert result.per_perspective[perspective.name] == pytest.approx(max(words))
    assert result.coverage == max(result.per_perspective.values())


def test_scores_do_not_depend_on_what_was_scored_before(detector):
    examples = [e for e in load_samples() if e.split == "test"][:2]
    first = [detector.score(e).to_dict() for e in examples]
    fresh = detectors.create("cross_encoder")
    assert [fresh.score(e).to_dict() for e in reversed(examples)][::-1] == first


def test_a_pair_longer_than_the_encoder_reads_is_an_error_with_its_length(detector):
    long_argument = "Sugar taxes reduce consumption in every town. " * 80
    example = make_example("Taxes cut sugar intake.", ("pro", [long_argument]), ("con", ["Taxes hurt poor families."]))
    with pytest.raises(DetectorError, match=r"are \d+ word pieces together, more than the cross-encoder's 512"):
        detector.score(example)


def test_a_tiny_training_run_lowers_the_loss_and_its_saved_adapter_scores_the_same(tmp_path):
    examples = [
        example_with(Labels(hallucination=False, coverage_error=False, kind="organic", ambiguous=False)),
        example_with(
            Labels(
                hallucination=True,
                coverage_error=False,
                kind="synthetic",
                ambiguous=False,
                hallucinated_spans=((24, 45),),
            )
        ),
    ]
    settings = cross_encoder.TrainingSettings(steps=6, batch_size=6, learning_rate=3e-3, eval_every=100)
    model, record = cross_encoder.train("hallucination", examples, examples, settings, log=lambda line: None)
    losses = [loss for _, loss in record["loss"]]
    assert sum(losses[-2:]) < sum(losses[:2])
    assert record["train_units"] == 6 and record["train_positive_units"] == 1
    units = cross_encoder_detector.units(examples[1], "hallucination")
    tokenizer = AutoTokenizer.from_pretrained(cross_encoder.default_model_path())
    trained = cross_encoder_detector.pair_p_error(
        model, tokenizer, cross_encoder_detector.encode(tokenizer, units, 512)
    )
    save_peft(model, record, tmp_path / "hallucination")
    saved = json.loads((tmp_path / "hallucination" / TRAINING_FILE).read_text())
    weights = (tmp_path / "hallucination" / ADAPTER_FILE).read_bytes()
    assert saved["weights_sha256"] == hashlib.sha256(weights).hexdigest()
    reloaded = cross_encoder_detector.CrossEncoder({"hallucination": tmp_path / "hallucination"})
    assert reloaded.p_error(units, "hallucination") == pytest.approx(trained, abs=1e-6)
