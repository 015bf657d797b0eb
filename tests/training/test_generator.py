import hashlib
import inspect
import json

import pytest
import torch

from explorer.data.example import Labels
from explorer.generation.npov import GenerationSettings, NpovGenerator, find_soft_prompt
from explorer.models.language_model import load_language_model
from explorer.models.trained import user_trained_dir
from explorer.training import Trainer
from explorer.training import data as training_data
from explorer.training.generator import GeneratorSettings, GeneratorTrainer, generator_examples, sequence, train
from tests.helpers import make_example

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
    for method in ("train", "save"):
        assert (
            list(inspect.signature(getattr(trainer, method)).parameters)
            == list(inspect.signature(getattr(Trainer, method)).parameters)[1:]
        )


@pytest.mark.slow
def test_loss_covers_only_the_response_tokens():
    language_model = load_language_model()
    ids, labels = sequence(language_model, example("a", "train"))
    prompt = NpovGenerator(language_model).prompt_ids(example("a", "train")).shape[1]
    assert (labels[0, :prompt] == -100).all() and (labels[0, prompt:] == ids[0, prompt:]).all()
    assert ids[0, -1] == language_model.tokenizer.eos_token_id


@pytest.mark.slow
def test_a_few_steps_train_only_the_soft_prompt_and_it_reloads(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    language_model = load_language_model()
    before = {name: p.detach().clone() for name, p in language_model.model.named_parameters()}
    lines = []
    model, record = train(
        language_model,
        [example("a", "train")],
        [example("b", "dev")],
        GeneratorSettings(steps=2, batch_size=1, learning_rate=0.05, eval_every=1),
        log=lines.append,
    )
    assert [step for step, _ in record["dev_loss"]] == [0, 1, 2] and "dev_roc_auc" not in record
    assert record["train_data_sha256"] == training_data.data_digest([example("a", "train")], "generator")
    assert all(loss > 0 for _, loss in record["dev_loss"])
    # The same response in train and dev: two steps on it lower the dev loss.
    assert record["dev_loss"][-1][1] < record["dev_loss"][0][1] and record["kept_step"] == 2
    assert all(torch.equal(before[name], p) for name, p in language_model.model.named_parameters())
    assert find_soft_prompt(language_model.identity) is None
    out = user_trained_dir("generator", language_model.identity, "npov")  # where `explorer train` puts it
    GeneratorTrainer().save(model, record, out)
    assert json.loads((out / "training.json").read_text())["model"] == language_model.identity
    generator = NpovGenerator(load_language_model(), out)
    assert generator.identity.startswith(language_model.identity + "+prompt(")
    settings = GenerationSettings(max_new_tokens=5)
    assert generator.generate(example("a", "train"), settings) == generator.generate(example("a", "train"), settings)
    assert find_soft_prompt(language_model.identity) == out  # `explorer generate` uses it by default
