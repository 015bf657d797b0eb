import json

import pytest

from explorer.cli import main
from explorer.data.example import Labels, Perspective
from explorer.generation.npov import ContextTooLongError, GenerationSettings, NpovGenerator
from explorer.models.language_model import load_language_model
from explorer.text.prompts import NPOV_INSTRUCTION, end_of_turn_id, npov_prompt, turn_token_ids
from tests.helpers import jsonl, make_example

UNIFORMS = make_example(
    "old response",
    ("pro", ["Uniforms reduce bullying.", "They save families money."]),
    ("con", ["They limit self-expression."]),
    query="Should schools require uniforms?",
    labels=Labels(hallucination=True, coverage_error=False),
    extra={"verbalizations": [{"perspective": 0, "argument": 0, "spans": [[0, 3]]}], "note": "kept"},
)


class PlainTokenizer:
    chat_template = None


def test_prompt_is_the_papers_curly_braces_format():
    # Chang et al. 2024 give the generator the query and each perspective's arguments as
    # curly-braces key-value pairs; the instruction line comes first.
    assert npov_prompt(UNIFORMS, PlainTokenizer()).text == (
        f"{NPOV_INSTRUCTION}\n"
        "{query: Should schools require uniforms?}\n"
        "{pro: {Uniforms reduce bullying.} {They save families money.}}\n"
        "{con: {They limit self-expression.}}\n\n"
    )


def test_settings_are_checked():
    with pytest.raises(ValueError, match="max_new_tokens"):
        GenerationSettings(max_new_tokens=0)
    with pytest.raises(ValueError, match="temperature"):
        GenerationSettings(sample=True, temperature=0)
    assert "temperature" not in GenerationSettings().to_dict()


@pytest.fixture(scope="module")
def generator():
    return NpovGenerator(load_language_model())


@pytest.mark.slow
def test_prompt_ends_at_the_assistant_turn(generator):
    text = npov_prompt(UNIFORMS, generator.language_model.tokenizer).text
    assert text.endswith("<|im_start|>assistant\n")
    assert "{con: {They limit self-expression.}}" in text


@pytest.mark.slow
def test_an_answer_ends_at_the_templates_turn_tokens(generator):
    # A generator trained to end on a token the template does not close turns with (a GGUF
    # converter's idea of end of sequence) wrote the next user turn; generation stops at either.
    tokenizer = generator.language_model.tokenizer
    ids = tokenizer.convert_tokens_to_ids(["<|im_start|>", "<|im_end|>"])
    assert end_of_turn_id(tokenizer) == ids[1]
    assert set(ids) <= set(turn_token_ids(tokenizer))
    assert end_of_turn_id(PlainTokenizerWithEnd()) == PlainTokenizerWithEnd.eos_token_id


class PlainTokenizerWithEnd(PlainTokenizer):
    eos_token_id = 7


@pytest.mark.slow
def test_generation_is_deterministic_for_a_seed(generator):
    greedy = GenerationSettings(max_new_tokens=12)
    first = generator.generate(UNIFORMS, greedy)
    assert first and first == generator.generate(UNIFORMS, greedy)
    sampled = GenerationSettings(max_new_tokens=12, sample=True, temperature=1.5, seed=3)
    assert generator.generate(UNIFORMS, sampled) == generator.generate(UNIFORMS, sampled)


@pytest.mark.slow
def test_streams_and_stops_when_cancelled(generator):
    pieces = []
    full = generator.generate(UNIFORMS, GenerationSettings(max_new_tokens=12), on_text=pieces.append)
    assert "".join(pieces).strip() == full
    seen = []
    cut = generator.generate(
        UNIFORMS, GenerationSettings(max_new_tokens=12), on_text=seen.append, cancelled=lambda: bool(seen)
    )
    assert len(cut) < len(full) and full.startswith(cut)


@pytest.mark.slow
def test_refuses_beyond_the_context_with_token_counts(generator):
    context = generator.language_model.context_length
    prompt_tokens = generator.check_fits(UNIFORMS, 10)
    with pytest.raises(ContextTooLongError) as refused:
        generator.generate(UNIFORMS, GenerationSettings(max_new_tokens=context - prompt_tokens + 1))
    assert (refused.value.prompt_tokens, refused.value.context_length) == (prompt_tokens, context)
    assert f"{prompt_tokens} tokens" in str(refused.value) and str(context) in str(refused.value)


@pytest.mark.slow
def test_generated_example_has_the_response_and_no_labels(generator):
    made = generator.generated_example(UNIFORMS, GenerationSettings(max_new_tokens=8))
    assert made.response != "old response" and made.labels.is_empty()
    assert made.extra["generated_by"] == {"model": generator.identity} and made.extra["note"] == "kept"
    assert "verbalizations" not in made.extra and made.extra["generation"] == {
        "max_new_tokens": 8,
        "sample": False,
        "seed": 0,
    }


@pytest.mark.slow
def test_cli_writes_generated_examples_and_reports_refusals(tmp_path, capsys):
    long_argument = " ".join(["Uniforms reduce bullying in every school."] * 1200)  # > 8192 tokens
    source = tmp_path / "in.jsonl"
    source.write_text(
        jsonl(
            UNIFORMS.replace(id="short").to_dict(),
            UNIFORMS.replace(id="long", perspectives=(Perspective("pro", (long_argument,)),)).to_dict(),
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    assert (
        main(["generate", str(source), "--out", str(out), "--max-new-tokens", "6", "--adapter", "none", "--quiet"]) == 1
    )
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in written] == ["short"] and "labels" not in written[0]
    assert "long: refused: the prompt is" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*.partial"))


def test_an_adapter_without_safetensors_is_refused_before_the_model_loads(tmp_path, capsys):
    """Issue 52: a pickled adapter_model.bin went to PEFT, then the run ended in a traceback
    (exit 1) looking for the safetensors file it digests."""
    import torch

    from explorer.config import shipped_weights

    adapter = tmp_path / "adapter"
    adapter.mkdir()
    shipped = shipped_weights("generator") / "npov"
    (adapter / "adapter_config.json").write_bytes((shipped / "adapter_config.json").read_bytes())
    torch.save({"weight": torch.zeros(1)}, adapter / "adapter_model.bin")
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(jsonl(UNIFORMS.to_dict()), encoding="utf-8")
    assert main(["generate", str(source), "--out", str(out), "--adapter", str(adapter), "--quiet"]) == 2
    assert (
        f"explorer: adapter {adapter} holds no adapter_model.safetensors: adapters are read as safetensors only"
        in capsys.readouterr().err
    )
    assert not out.exists()
