"""The fine-tuned LM classifier (LoRA): its prompt of one question per sentence and argument, its
targets, the shipped adapter against its training record, what a dropped argument does to its
score, long inputs, and a tiny training run that saves, resumes, reloads and scores identically.
Real models, no mocks."""

import dataclasses
import hashlib
import json

import pytest
import torch

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.data.labels import PAIR_TASK
from explorer.data.samples import load_samples
from explorer.detectors import DetectorError, classifier
from explorer.detectors.classifier_prompt import label_token_ids
from explorer.models.language_model import load_language_model
from explorer.models.trained import TRAINING_FILE
from explorer.text.prompts import CLASSIFIER_UNIT_QUESTIONS, classifier_units_prompt
from explorer.training import classifier as training
from explorer.training.data import data_digest, labelled_train, save_peft
from tests.helpers import make_example

CLEAN = Labels(hallucination=False, coverage_error=False, kind="organic", ambiguous=False)
INVENTED = Labels(hallucination=True, coverage_error=False, kind="synthetic", ambiguous=False)
DROPPED = Labels(hallucination=False, coverage_error=True, kind="synthetic", ambiguous=False)


def labelled(example_id, labels, response="Taxes cut sugar intake, but they hurt poor families."):
    return make_example(
        response,
        ("pro", ["Taxes reduce sugar consumption."]),
        ("con", ["Taxes hurt poor families."]),
        example_id=example_id,
        labels=labels,
        split="train",
    )


class NoTemplate:
    chat_template = None


SENTENCES = ["Taxes cut sugar intake.", "Critics say they hurt poor families."]
RESPONSE = " ".join(SENTENCES)


def test_the_prompt_asks_about_each_sentence_then_each_argument():
    pieces = classifier_units_prompt(labelled("x", CLEAN, RESPONSE), NoTemplate(), SENTENCES)
    ask = CLASSIFIER_UNIT_QUESTIONS
    assert pieces == [
        "{query: Should sugary drinks be taxed?}\n{pro: {Taxes reduce sugar consumption.}}\n"
        f"{{con: {{Taxes hurt poor families.}}}}\n{{response: {RESPONSE}}}\n"
        f"{ask['hallucination'].format(SENTENCES[0])}",
        f"\n{ask['hallucination'].format(SENTENCES[1])}",
        f"\n{ask['coverage'].format('Taxes reduce sugar consumption.')}",
        f"\n{ask['coverage'].format('Taxes hurt poor families.')}\n\n",  # ready for the answer
    ]


@pytest.fixture(scope="module")
def language_model():
    return load_language_model()


def test_labels_are_read_right_after_each_question(language_model):
    item = classifier.unit_input(language_model, labelled("x", CLEAN, RESPONSE))
    tokenizer = language_model.tokenizer
    read = [tokenizer.decode(item.ids[0, : p + 1]) for p in item.positions]
    assert read[0].endswith(CLASSIFIER_UNIT_QUESTIONS["hallucination"].format(SENTENCES[0]))
    assert read[2].endswith(CLASSIFIER_UNIT_QUESTIONS["coverage"].format("Taxes reduce sugar consumption."))
    assert item.positions[-1] == item.ids.shape[1] - 1 and read[-1].endswith("<|im_start|>assistant\n")
    assert [RESPONSE[s:e] for s, e in item.sentences] == SENTENCES and item.arguments == ((0, 0), (1, 0))


def test_a_sentence_with_an_invented_character_and_an_uncovered_argument_are_the_no_targets(language_model):
    invented = RESPONSE.index("poor")
    labels = dataclasses.replace(
        CLEAN, hallucinated_spans=((invented, invented + 4),), uncovered=(UncoveredArgument(0, 0),)
    )
    example = labelled("x", labels, RESPONSE)
    assert classifier.unit_targets(example, classifier.unit_input(language_model, example)).tolist() == [0, 1, 1, 0]


def test_the_shipped_adapter_matches_its_training_record(written_file, perspectrum_file):
    folder = detectors.weights("classifier").shipped / PAIR_TASK
    record = json.loads((folder / TRAINING_FILE).read_text())
    weights = folder / "adapter_model.safetensors"
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == record["weights_sha256"]
    assert weights.stat().st_size < 10_000_000
    assert record["task"] == PAIR_TASK and record["model"] == load_language_model().identity
    train_set = labelled_train([written_file, perspectrum_file])
    assert record["train_examples"] == len(train_set)
    assert record["train_data_sha256"] == data_digest(train_set, PAIR_TASK)
    assert record["kept_step"] in [step for step, _ in record["dev_roc_auc"]]


@pytest.fixture(scope="module")
def detector():
    return detectors.create("classifier")


@pytest.mark.slow
def test_a_dropped_argument_raises_the_coverage_score(detector):
    example = next(e for e in load_samples() if e.id == "congestion-charging-clean")
    pro, *others = example.perspectives
    extra = dataclasses.replace(pro, arguments=(*pro.arguments, "Charges pay for new cycle lanes across the city."))
    dropped = example.replace(perspectives=(extra, *others))
    assert detector.score(dropped).coverage > detector.score(example).coverage


@pytest.mark.slow
def test_scores_match_the_label_logits_computed_by_hand(detector):
    example = labelled("two-sides", CLEAN, RESPONSE)  # exact whatever the text: a short one is quick
    result = detector.score(example)
    item = classifier.unit_input(detector.language_model, example)
    yes, no = label_token_ids(detector.language_model.tokenizer)
    with torch.no_grad():
        logits = detector.peft_model(input_ids=item.ids).logits[0]
    first, second, pro, con = (float(torch.softmax(logits[p, [yes, no]].double(), 0)[1]) for p in item.positions)
    assert result.hallucination == pytest.approx(max(first, second), abs=1e-5)
    assert dict(result.per_perspective) == pytest.approx({"pro": pro, "con": con}, abs=1e-5)
    assert result.coverage == pytest.approx(max(pro, con), abs=1e-5)
    words = {RESPONSE[w.start : w.end]: w.score for w in result.response_words}
    assert words["cut"] == pytest.approx(first, abs=1e-5) and words["Critics"] == pytest.approx(second, abs=1e-5)
    con_words = [w.score for w in result.argument_words if w.perspective == 1]
    assert con_words and con_words == pytest.approx([con] * len(con_words), abs=1e-5)
    assert detector.digest[:16] in detector.model_identity()


@pytest.mark.slow
def test_an_input_longer_than_the_context_is_an_error_with_its_token_count(detector):
    example = labelled("long", CLEAN, response="Taxes cut sugar intake. " * 2000)
    with pytest.raises(DetectorError, match=r"is \d+ tokens, more than the model's context of 8192; it is not truncat"):
        detector.score(example)


@pytest.mark.slow
def test_a_tiny_run_resumes_saves_and_reloads_with_the_same_scores(language_model, tmp_path):
    examples = [
        labelled("a", CLEAN),
        labelled("b", INVENTED, response="Taxes cut sugar intake and fund new parks, a 2019 study found."),
        labelled("c", DROPPED, response="Taxes cut sugar intake."),
        labelled("d", CLEAN, response="Supporters say taxes reduce sugar use; critics say poor families pay."),
    ]
    settings = training.TrainingSettings(steps=2, batch_size=2, learning_rate=1e-3, eval_every=2, save_every=1, rank=2)
    work = tmp_path / "work"
    training.train(examples, examples, settings.__class__(**{**vars(settings), "steps": 1}), work, log=lambda _: None)
    assert json.loads((work / "state.json").read_text())["step"] == 1
    logged = []
    model, record = training.train(examples, examples, settings, work, log=logged.append)
    assert "resumed at step 1" in logged and record["kept_step"] == 2 and len(record["loss"]) == 2
    label_ids = label_token_ids(language_model.tokenizer)

    def scores(peft_model):
        with torch.no_grad():
            inputs = [classifier.unit_input(language_model, e) for e in examples]
            return [torch.softmax(classifier.unit_logits(peft_model, i, label_ids), 1) for i in inputs]

    trained = scores(model)
    save_peft(model, record, tmp_path / "saved")
    from peft import PeftModel

    reloaded = PeftModel.from_pretrained(load_language_model().model, tmp_path / "saved").eval()
    for before, after in zip(trained, scores(reloaded)):
        assert torch.allclose(before, after, atol=1e-6)


def three_lengths():
    """A clean answer, one with an invented clause and one that drops an argument: three lengths."""
    return [
        labelled("a", CLEAN),
        labelled("b", INVENTED, response="Taxes cut sugar intake and fund new parks, a 2019 study found."),
        labelled("c", DROPPED, response="Taxes cut sugar intake."),
    ]


@pytest.mark.slow
def test_a_right_padded_batch_gives_each_input_its_own_logits(language_model):
    examples = three_lengths()
    label_ids = label_token_ids(language_model.tokenizer)
    inputs = [classifier.unit_input(language_model, e) for e in examples]
    assert len({i.ids.shape[1] for i in inputs}) == 3  # padding is exercised
    with torch.no_grad():
        batched = classifier.batch_unit_logits(language_model.model, inputs, label_ids, pad_id=0)
        for item, logits in zip(inputs, batched, strict=True):
            assert torch.allclose(logits, classifier.unit_logits(language_model.model, item, label_ids), atol=1e-4)


@pytest.mark.slow
def test_micro_batches_train_the_same_step_and_a_time_limit_stops_the_session_saved(tmp_path):
    examples = three_lengths()
    settings = training.TrainingSettings(steps=1, batch_size=3, learning_rate=1e-3, eval_every=1, rank=2)
    _, one_by_one = training.train(examples, examples, settings, tmp_path / "a", log=lambda _: None)
    logged = []
    limited = dataclasses.replace(settings, steps=5, micro_batch=2, minutes=1e-6)
    _, batched = training.train(examples, examples, limited, tmp_path / "b", log=logged.append)
    assert "stopped at step 1: the 1e-06-minute limit is reached" in logged
    assert json.loads((tmp_path / "b" / "state.json").read_text())["step"] == 1
    assert batched["loss"][0][1] == pytest.approx(one_by_one["loss"][0][1], abs=1e-4)
    assert batched["dev_roc_auc"][0][0] == 1 and batched["gpu"] is None
