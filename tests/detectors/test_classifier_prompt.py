"""The prompt-tuned classifier (§3.3, `classifier_prompt`): training data, prompt, scoring on the shipped prompts,
a tiny training run, and inputs too long for the model. Real models, no mocks."""

import dataclasses
import json

import pytest
import torch
from safetensors.torch import load_file

from explorer import detectors
from explorer.data.example import Labels
from explorer.data.labels import ERROR_TYPES
from explorer.data.samples import SAMPLE_DIR, load_samples
from explorer.detectors import DetectorError
from explorer.detectors import classifier_prompt as classifier
from explorer.models.language_model import load_language_model
from explorer.models.trained import ADAPTER_FILE, TRAINING_FILE, TrainedNotFoundError
from explorer.text.prompts import CLASSIFIER_QUESTIONS, classifier_prompt
from explorer.training import data, soft_prompt
from explorer.training.data import save_peft
from tests.helpers import make_example

CLEAN = Labels(hallucination=False, coverage_error=False, kind="organic", ambiguous=False)
SYNTHETIC_HALLUCINATION = Labels(hallucination=True, coverage_error=False, kind="synthetic", ambiguous=False)
SYNTHETIC_COVERAGE = Labels(hallucination=False, coverage_error=True, kind="synthetic", ambiguous=False)
ORGANIC_HALLUCINATION = Labels(hallucination=True, coverage_error=False, kind="organic", ambiguous=False)


def labelled(example_id, labels, split="train", response="Taxes cut sugar intake."):
    return make_example(
        response,
        ("pro", ["Taxes reduce sugar consumption."]),
        ("con", ["Taxes hurt poor families."]),
        example_id=example_id,
        labels=labels,
        split=split,
    )


def test_training_data_is_error_free_and_synthetic_examples_of_the_chosen_splits():
    examples = [
        labelled("clean", CLEAN),
        labelled("synthetic-h", SYNTHETIC_HALLUCINATION),
        labelled("synthetic-c", SYNTHETIC_COVERAGE),
        labelled("organic-h", ORGANIC_HALLUCINATION),
        labelled("ambiguous", dataclasses.replace(CLEAN, ambiguous=True, ambiguous_type="repetition")),
        labelled("dev-clean", CLEAN, split="dev"),
        labelled("unlabelled", Labels()),
    ]
    chosen = data.training_examples(examples, ["train"])
    assert [e.id for e in chosen] == ["clean", "synthetic-h", "synthetic-c"]
    assert [data.target(e, "hallucination") for e in chosen] == [0, 1, 0]
    assert [data.target(e, "coverage") for e in chosen] == [0, 0, 1]
    assert [e.id for e in data.training_examples(examples, ["train", "dev"])][-1] == "dev-clean"
    assert data.data_digest(chosen, "hallucination") != data.data_digest(chosen, "coverage")


class FakeTokenizer:
    chat_template = None


def test_the_prompt_holds_the_arguments_the_response_and_the_question_last():
    example = labelled("x", CLEAN)
    prompt = classifier_prompt(example, FakeTokenizer(), "coverage")
    assert prompt.text == (
        "{query: Should sugary drinks be taxed?}\n{pro: {Taxes reduce sugar consumption.}}\n"
        "{con: {Taxes hurt poor families.}}\n{response: Taxes cut sugar intake.}\n"
        f"{CLASSIFIER_QUESTIONS['coverage']}\n\n"
    )
    for span in prompt.arguments:
        assert prompt.text[span.start : span.end] == example.perspectives[span.perspective].arguments[span.argument]


def test_a_model_without_trained_prompts_is_named_with_the_command_to_run():
    with pytest.raises(TrainedNotFoundError, match="explorer train --detector classifier_prompt --task coverage"):
        detectors.weights("classifier_prompt").find("other-model@0123", "coverage")


def test_shipped_prompts_are_small_and_were_trained_on_the_sample_train_split():
    train_set = data.training_examples(load_samples(SAMPLE_DIR / "synthetic.jsonl"), ["train"])
    for error_type in ERROR_TYPES:
        directory = detectors.weights("classifier_prompt").shipped / error_type
        assert (directory / ADAPTER_FILE).stat().st_size < 20_000
        record = json.loads((directory / TRAINING_FILE).read_text())
        assert record["task"] == error_type and record["seconds"] > 0
        assert record["train_data_sha256"] == data.data_digest(train_set, error_type)


@pytest.fixture(scope="module")
def detector():
    return detectors.create("classifier_prompt")


@pytest.fixture(scope="module")
def language_model():
    """Loaded once per module: module fixtures share the session cache, where the GGUF
    conversion is kept (each test's own empty cache would convert it again, ~20 s)."""
    return load_language_model()


def manual_p_error(detector, example, error_type) -> float:
    """P("No") from the base model fed the shipped soft prompt's vectors by hand (no PEFT)."""
    language_model = detector.language_model
    soft = load_file(str(detectors.weights("classifier_prompt").shipped / error_type / ADAPTER_FILE))[
        "prompt_embeddings"
    ]
    ids = language_model.tokenizer(
        classifier_prompt(example, language_model.tokenizer, error_type).text,
        add_special_tokens=False,
        return_tensors="pt",
    ).input_ids
    yes, no = (language_model.tokenizer.encode(label, add_special_tokens=False)[0] for label in ("Yes", "No"))
    with torch.no_grad():
        embeddings = torch.cat([soft[None], language_model.model.get_input_embeddings()(ids)], dim=1)
        logits = language_model.model(inputs_embeds=embeddings).logits[0, -1]
    return float(torch.softmax(logits[[yes, no]].double(), 0)[1])


@pytest.mark.slow
def test_scores_are_deterministic_probabilities_matching_a_manual_softmax(detector):
    # A short example: the manual computation is exact whatever the text, and each of the
    # example's nine passes through the model costs its length.
    example = labelled("two-sides", CLEAN, response="Taxes cut sugar intake, but they hurt poor families.")
    result = detector.score(example)
    assert result.to_dict() == detector.score(example).to_dict()
    assert all(0.0 <= v <= 1.0 for v in (result.hallucination, result.coverage, *result.per_perspective.values()))
    assert result.hallucination == pytest.approx(manual_p_error(detector, example, "hallucination"), abs=1e-5)
    assert result.coverage == pytest.approx(manual_p_error(detector, example, "coverage"), abs=1e-5)
    pro_only = example.replace(perspectives=example.perspectives[:1])
    assert result.per_perspective["pro"] == pytest.approx(manual_p_error(detector, pro_only, "coverage"), abs=1e-5)
    assert result.response_words == () and result.argument_words == ()


@pytest.mark.slow
def test_cache_identity_names_the_prompts(detector):
    digests = {t: classifier.prompt_digest(detectors.weights("classifier_prompt").shipped / t) for t in ERROR_TYPES}
    assert detector.config()["prompts"] == digests
    assert digests["hallucination"][:16] in detector.model_identity()


@pytest.mark.slow
def test_an_input_longer_than_the_context_is_an_error_with_token_counts(detector):
    example = labelled("long", CLEAN, response="Taxes cut sugar intake. " * 2000)
    with pytest.raises(
        DetectorError, match=r"is \d+ tokens \(\d+ of text \+ 5 virtual\), more than the model's context of 8192"
    ):
        detector.score(example)


@pytest.mark.slow
def test_a_tiny_training_run_lowers_the_loss_and_its_saved_prompt_scores_the_same(language_model, tmp_path):
    # Two examples, each step on both: every step is a plain gradient step on the same loss.
    examples = [
        labelled("a", CLEAN),
        labelled("b", SYNTHETIC_HALLUCINATION, response="Taxes cut sugar intake and fund new parks."),
    ]
    settings = soft_prompt.TrainingSettings(steps=4, batch_size=2, learning_rate=5e-2, eval_every=100)
    peft_model, record = soft_prompt.train(
        language_model, "hallucination", examples, examples, settings, dev_is_held_out=False, log=lambda line: None
    )
    losses = [loss for _, loss in record["loss"]]
    assert losses[-1] < losses[0]
    assert record["kept_step"] == 4 and record["train_positives"] == 1
    with torch.no_grad():
        trained = [
            float(
                torch.softmax(
                    classifier.label_logits(
                        peft_model,
                        classifier.input_ids(language_model, e, "hallucination"),
                        classifier.label_token_ids(language_model.tokenizer),
                    ).double(),
                    0,
                )[1]
            )
            for e in examples
        ]
    save_peft(peft_model, record, tmp_path / "hallucination")
    reloaded = classifier.SoftPromptClassifier(language_model, {"hallucination": tmp_path / "hallucination"})
    assert [reloaded.p_error(e, "hallucination") for e in examples] == pytest.approx(trained, abs=1e-6)


@pytest.mark.slow
def test_a_model_without_prompts_is_a_detector_error(language_model, tmp_path):
    """A tiny random Llama with SmolLM2's tokenizer: a real model, but not the one the prompts fit."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = language_model.tokenizer
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2
    )
    LlamaForCausalLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    with pytest.raises(DetectorError, match="no hallucination classifier_prompt was trained for the model"):
        detectors.create("classifier_prompt", model=str(tmp_path))


def test_a_time_limit_stops_the_run_at_a_step_that_is_evaluated_and_kept(language_model):
    examples = [
        labelled("a", CLEAN),
        labelled("b", SYNTHETIC_HALLUCINATION, response="Taxes cut sugar intake and fund new parks."),
    ]
    settings = soft_prompt.TrainingSettings(steps=50, batch_size=1, eval_every=100, virtual_tokens=2, minutes=1e-6)
    logged = []
    _, record = soft_prompt.train(language_model, "hallucination", examples, examples, settings, log=logged.append)
    assert "stopped at step 1: the 1e-06-minute limit is reached" in logged
    assert len(record["loss"]) == 1 and [step for step, _ in record["dev_roc_auc"]] == [0, 1]
