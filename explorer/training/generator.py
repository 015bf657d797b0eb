"""`explorer train --task generator`: prompt-tune the NPOV response generator (Chang et al. 2024, §2.1).

The paper prompt-tunes a 5-token soft prompt on about 80 hand-written responses. Here PEFT
prompt tuning (Lester et al. 2021) learns 5 virtual tokens in front of the NPOV prompt
(`explorer.text.prompts.npov_prompt`) with the usual next-token loss on the response tokens
only (the prompt's positions and the virtual tokens are masked out), on the error-free
responses of the train split; the dev split's error-free responses give the dev loss (mean
negative log-likelihood per response token), every `eval_every` steps. The kept prompt is the
one with the lowest dev loss (model selection on dev), or the last when dev is trained on.

A batch averages per-example gradients (no padding), as `explorer.training.soft_prompt` does.
The virtual tokens start as the embeddings of " the of and to a" (PEFT's TEXT init done by hand:
a GGUF-loaded model has no tokenizer name for PEFT to reload).

No soft prompt ships. Measured on the shared 2-core CPU, 20 steps of batch 2 took 17 minutes
and lowered the dev loss from 2.504 to 2.395; whether that makes responses with fewer errors
needs many responses generated and scored, which a CPU session cannot afford.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.data.example import Example
from explorer.data.labels import is_error_free
from explorer.generation.npov import NUM_VIRTUAL_TOKENS, NpovGenerator
from explorer.models.language_model import LanguageModel, ModelNotFoundError, load_language_model
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training.data import save_peft, torch_training, training_record
from explorer.training.soft_prompt import optimize_soft_prompt

INIT_TEXT = " the of and to a"


@dataclass(frozen=True)
class GeneratorSettings:
    steps: int = 30
    batch_size: int = 4
    learning_rate: float = 3e-2
    eval_every: int = 10
    seed: int = 0


def generator_examples(examples: Sequence[Example], splits: Sequence[str]) -> list[Example]:
    """The error-free responses of the given splits: what the generator should write."""
    return [e for e in examples if e.split in splits and is_error_free(e.labels) and e.response.strip()]


def sequence(language_model: LanguageModel, example: Example):
    """(input ids, labels) of prompt + response + end-of-turn, labels -100 over the prompt; shape (1, n)."""
    import torch

    generator = NpovGenerator(language_model)
    prompt = generator.prompt_ids(example)
    tokenizer = language_model.tokenizer
    response = tokenizer(example.response, add_special_tokens=False, return_tensors="pt").input_ids
    end = [tokenizer.eos_token_id] if tokenizer.eos_token_id is not None else []
    response = torch.cat([response, torch.tensor([end], dtype=response.dtype)], dim=1).to(prompt.device)
    total = prompt.shape[1] + response.shape[1] + NUM_VIRTUAL_TOKENS
    if total > language_model.context_length:
        raise TrainingInputError(
            f"{example.id}: the prompt ({prompt.shape[1] + NUM_VIRTUAL_TOKENS} tokens with the virtual ones) and the "
            f"response ({response.shape[1]}) are more than the model's context of {language_model.context_length}"
        )
    ids = torch.cat([prompt, response], dim=1)
    labels = ids.clone()
    labels[:, : prompt.shape[1]] = -100
    return ids, labels


def new_generator_prompt(language_model: LanguageModel):
    import torch
    from peft import PromptTuningConfig, PromptTuningInit, TaskType, get_peft_model

    config = PromptTuningConfig(
        task_type=TaskType.CAUSAL_LM, num_virtual_tokens=NUM_VIRTUAL_TOKENS, prompt_tuning_init=PromptTuningInit.RANDOM
    )
    peft_model = get_peft_model(language_model.model, config)
    init_ids = language_model.tokenizer.encode(INIT_TEXT, add_special_tokens=False)
    if len(init_ids) != NUM_VIRTUAL_TOKENS:
        raise TrainingInputError(
            f"{INIT_TEXT!r} is {len(init_ids)} tokens for this tokenizer, not {NUM_VIRTUAL_TOKENS}"
        )
    with torch.no_grad():
        words = language_model.model.get_input_embeddings()(torch.tensor(init_ids, device=language_model.device))
        peft_model.prompt_encoder["default"].embedding.weight.copy_(words)
    return peft_model


def dev_loss(peft_model, dev: Sequence[tuple[Any, Any]]) -> float | None:
    """Mean negative log-likelihood per response token over the dev responses."""
    import torch

    if not dev:
        return None
    peft_model.eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for ids, labels in dev:
            count = int((labels[:, 1:] != -100).sum())
            total += float(peft_model(input_ids=ids, labels=labels).loss) * count
            tokens += count
    return total / tokens


def train(
    language_model: LanguageModel,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: GeneratorSettings,
    *,
    dev_is_held_out: bool = True,
    log: Callable[[str], None] = print,
) -> tuple[Any, dict[str, Any]]:
    """Train the generator's soft prompt; returns the PEFT model (holding the kept prompt) and its record."""
    import torch

    started = time.monotonic()
    if not train_set:
        raise TrainingInputError("no error-free responses to train the generator on")
    torch.manual_seed(settings.seed)
    encoded = [sequence(language_model, e) for e in train_set]
    dev = [sequence(language_model, e) for e in dev_set]
    peft_model = new_generator_prompt(language_model)
    weight = peft_model.prompt_encoder["default"].embedding.weight
    dev_losses: list[tuple[int, float | None]] = []
    best: tuple[float, int, Any] | None = None

    def evaluate(step: int) -> None:
        nonlocal best
        loss = dev_loss(peft_model, dev)
        dev_losses.append((step, loss))
        log(f"step {step}: dev loss {'n/a' if loss is None else f'{loss:.4f}'} ({len(dev)} responses)")
        if loss is not None and (best is None or loss <= best[0]):
            best = (loss, step, weight.detach().clone())

    def loss_of(item: tuple[Any, Any]):
        ids, labels = item
        return peft_model(input_ids=ids, labels=labels).loss

    losses = optimize_soft_prompt(peft_model, encoded, loss_of, settings, evaluate, log, started)
    kept_step = settings.steps
    if dev_is_held_out and best is not None:
        _, kept_step, kept = best
        with torch.no_grad():
            weight.copy_(kept)
    peft_model.eval()
    record = training_record(
        "generator",
        language_model.identity,
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        started=started,
        dev_loss=dev_losses,
        num_virtual_tokens=NUM_VIRTUAL_TOKENS,
        init=f"embeddings of the tokens of {INIT_TEXT!r}",
        **torch_training(settings, losses, kept_step),
    )
    return peft_model, record


class GeneratorTrainer:
    """`explorer train --task generator`: the generator's 5-token soft prompt (§2.1)."""

    no_step_options = None

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        try:
            model = load_language_model(request.model)
        except ModelNotFoundError as error:
            raise TrainingInputError(str(error)) from error
        return train(
            model,
            request.train_set,
            request.dev_set,
            GeneratorSettings(seed=request.seed, **request.steps),
            dev_is_held_out=request.dev_is_held_out,
            log=request.log,
        )

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)
