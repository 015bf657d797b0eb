import dataclasses
import hashlib
import inspect
import json

import pytest

from explorer.config import shipped_weights
from explorer.data.example import Labels, Perspective
from explorer.generation.backends import Backend, load_generator
from explorer.generation.npov import GENERATOR, STYLE, GenerationSettings, NpovGenerator, find_adapter
from explorer.models.identity import model_identity
from explorer.models.language_model import default_gguf_path, load_language_model
from explorer.models.trained import TRAINING_FILE, user_trained_dir
from explorer.training import Trainer
from explorer.training import data as training_data
from explorer.training.generator import (
    GeneratorSettings,
    GeneratorTrainer,
    generator_examples,
    one_per_claim,
    sequence,
    stated_inputs,
    train,
    with_arguments,
)
from tests.helpers import make_example

PACKAGED = shipped_weights(GENERATOR) / STYLE

CLEAN = Labels(hallucination=False, coverage_error=False)


def example(example_id, split, labels=CLEAN):
    return make_example(
        "Supporters say uniforms reduce bullying. Critics say they limit self-expression.",
        ("pro", ["Uniforms reduce bullying."]),
        ("con", ["They limit self-expression."]),
        example_id=example_id,
        split=split,
        labels=labels,
        query="Should schools require uniforms?",
    )


def test_trains_on_error_free_responses_of_the_split():
    examples = [
        example("a", "train"),
        example("b", "dev"),
        example("c", "train", Labels(hallucination=True, coverage_error=False)),
    ]
    assert [e.id for e in generator_examples(examples, ["train"])] == ["a"]
    assert [e.id for e in generator_examples(examples, ["train", "dev"])] == ["a", "b"]


def test_the_data_hash_is_of_the_responses_learned_not_of_a_target():
    """A generator learns responses, so its record's data hash is each example's content hash
    (the same hash generator records have always had); a classifier's includes its target."""
    examples = [example("a", "train"), example("b", "train")]
    lines = "".join(f"{e.content_hash()}\n" for e in examples)
    assert training_data.data_digest(examples, "generator") == hashlib.sha256(lines.encode()).hexdigest()
    assert training_data.data_digest(examples, "hallucination") != training_data.data_digest(examples, "generator")


def test_trainer_follows_the_protocol():
    trainer = GeneratorTrainer()
    for detector_name in ("train", "save"):
        assert (
            list(inspect.signature(getattr(trainer, detector_name)).parameters)
            == list(inspect.signature(getattr(Trainer, detector_name)).parameters)[1:]
        )


def test_stated_inputs_give_each_argument_as_its_answer_states_it():
    source = {
        "arguments": [
            {"perspective": 0, "argument": 0, "pid": 1, "stated_pid": 2},
            {"perspective": 1, "argument": 0, "pid": 3, "stated_pid": 4},
        ]
    }
    texts = {1: "Uniforms cut bullying.", 2: "Uniforms reduce bullying.", 3: "x", 4: "They limit self-expression."}
    built = example("a", "train").replace(extra={"perspectrum": source})
    [stated] = stated_inputs([built, example("written", "train")], texts)  # no stated member recorded: left out
    assert [p.arguments for p in stated.perspectives] == [
        ("Uniforms reduce bullying.",),
        ("They limit self-expression.",),
    ]
    assert stated.response == built.response and [p.name for p in stated.perspectives] == ["pro", "con"]
    partial = built.replace(extra={"perspectrum": {"arguments": source["arguments"][:1]}})
    assert stated_inputs([partial], texts) == []  # an argument without its stated member: not guessed


def test_min_arguments_keeps_the_longer_inputs():
    two = example("two", "train")
    three = two.replace(id="three", perspectives=two.perspectives + (Perspective("other", ("A third view.",)),))
    assert [e.id for e in with_arguments([two, three], 3)] == ["three"]
    assert [e.id for e in with_arguments([two, three], 1)] == ["two", "three"]


def test_one_answer_per_claim_in_file_order():
    examples = [example(i, "dev").replace(topic=t) for i, t in [("a", "x"), ("b", "x"), ("c", "y"), ("d", "z")]]
    assert [e.id for e in one_per_claim(examples, 2)] == ["a", "c"]


def test_the_packaged_adapter_matches_its_record():
    record = json.loads((PACKAGED / TRAINING_FILE).read_text())
    weights = (PACKAGED / "adapter_model.safetensors").read_bytes()
    assert hashlib.sha256(weights).hexdigest() == record["weights_sha256"] and len(weights) < 8_000_000
    assert record["model"] == model_identity(default_gguf_path())  # the packaged SmolLM2 it was trained on
    config = json.loads((PACKAGED / "adapter_config.json").read_text())
    assert config["r"] == record["lora"]["r"] == record["settings"]["rank"]
    assert record["kept_step"] in [entry["step"] for entry in record["dev"]]


@pytest.mark.slow
def test_the_generator_uses_the_packaged_adapter_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))  # no adapter of the user's to prefer
    record = json.loads((PACKAGED / TRAINING_FILE).read_text())
    generator = load_generator(Backend())
    assert generator.adapter == PACKAGED
    # With its adapter, the generator decodes under the coverage guard (and says so).
    assert (
        generator.generated_by["model"] == f"{record['model']}+adapter({record['weights_sha256'][:16]})+coverage-guard"
    )
    assert load_generator(Backend(adapter="none")).generated_by["model"] == record["model"]


@pytest.mark.slow
def test_loss_covers_only_the_response_and_its_end_of_turn():
    language_model = load_language_model()
    ids, length = sequence(language_model, example("a", "train"))
    prompt = NpovGenerator(language_model).prompt_ids(example("a", "train"))
    response = language_model.tokenizer(example("a", "train").response, add_special_tokens=False).input_ids
    assert ids[0, : prompt.shape[1]].tolist() == prompt[0].tolist()
    assert ids[0, -length:].tolist() == [*response, language_model.tokenizer.eos_token_id]
    assert ids.shape[1] == prompt.shape[1] + length


@pytest.mark.slow
def test_two_steps_save_reload_and_generate_identically(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    language_model = load_language_model()
    settings = GeneratorSettings(steps=2, batch_size=1, eval_every=1, rank=2, dev_losses=1, dev_answers=0)
    train_set = [example("a", "train"), example("b", "train")]
    model, record = train(language_model, train_set, [example("c", "dev")], settings, tmp_path / "work", log=print)
    assert [entry["step"] for entry in record["dev"]] == [0, 1, 2] and record["kept_step"] in (1, 2)
    assert record["train_data_sha256"] == training_data.data_digest(train_set, "generator")
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in name for name in trainable)
    out = user_trained_dir(GENERATOR, language_model.identity, STYLE)  # where `explorer train` puts it
    GeneratorTrainer().save(model, record, out)
    assert find_adapter(language_model.identity) == out  # the user's own comes before the packaged one
    few = GenerationSettings(max_new_tokens=4)
    trained = NpovGenerator(language_model).generate(example("a", "train"), few)  # the adapter is in the model
    reloaded = NpovGenerator(load_language_model(), out)
    assert reloaded.generate(example("a", "train"), few) == trained
    saved = json.loads((out / TRAINING_FILE).read_text())
    assert saved["weights_sha256"] == reloaded.adapter_digest and reloaded.identity.endswith(
        f"+adapter({reloaded.adapter_digest[:16]})"
    )
    lines = []
    train(
        load_language_model(),
        train_set,
        [],
        dataclasses.replace(settings, steps=3),
        tmp_path / "work",
        log=lines.append,
    )
    assert "resumed at step 2" in lines
    started, still = [], dataclasses.replace(settings, steps=1, learning_rate=0.0)  # a step that changes nothing
    language_model = load_language_model()
    train(language_model, train_set, [], still, tmp_path / "new", init=out, log=started.append)
    assert f"started from the adapter in {out}" in started
    assert NpovGenerator(language_model).generate(example("a", "train"), few) == trained
