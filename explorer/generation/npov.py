"""The NPOV response generator (Chang et al. 2024, §2.1) run in this process: a local causal LM
writes the response to a query from the retrieved perspectives (`explorer.generation.server`
does the same through a model on an OpenAI-compatible server).

The model reads the paper's curly-braces input (`explorer.text.prompts.npov_prompt`: the
instruction, `{query: ...}`, then one `{name: {argument} {argument}}` line per perspective) in
its chat template, and answers in the assistant turn; the paper's responses open with a
sentence that bridges from the query, then verbalize each argument. The paper prompt-tunes a
5-token soft prompt on about 80 hand-written responses; here a LoRA adapter
(`explorer.training.generator`, trained on error-free answers of Perspectrum train claims, last
on answers that restate their input nearly word for word) does that job. The adapter trained
for the chosen model is used by default: the user's own (`explorer train --task generator`)
first, else the packaged one (`resources/generator/npov`, for the packaged SmolLM2;
`docs/generator-eval.md` has its before/after figures).

Decoding is greedy by default, so the same input gives the same response; sampling
(temperature, top-p) is seeded, so it is repeatable for a seed. With an adapter it runs under the
coverage guard (`explorer.generation.coverage_guard`: a side's section stays open until it states
each of that side's arguments) and the restatement rule (`explorer.generation.restatement`: a
yes/no question restated as a statement in a "whether" clause), which the generator's identity
names ("+coverage-guard"). An input that would not fit
the model's context with the tokens asked for is refused with the counts, never truncated.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.config import shipped_weights
from explorer.data.example import Example
from explorer.generation.base import DEFAULT_SETTINGS, GenerationSettings, Generator
from explorer.generation.coverage_guard import CoverageGuard
from explorer.generation.restatement import QuestionRestatement
from explorer.models.language_model import LanguageModel
from explorer.models.loading import merged_adapter
from explorer.models.trained import ADAPTER_FILE, TrainedNotFoundError, find_trained
from explorer.text.prompts import npov_prompt, turn_token_ids

# The weights folder and, under it, the style the adapter writes in (its subfolder): NPOV responses
GENERATOR, STYLE = "generator", "npov"


class ContextTooLongError(ValueError):
    """The prompt and the tokens asked for do not fit the model's context."""

    def __init__(self, prompt_tokens: int, max_new_tokens: int, context_length: int):
        super().__init__(
            f"the prompt is {prompt_tokens} tokens and {max_new_tokens} new tokens were asked for: "
            f"{prompt_tokens + max_new_tokens} in all, more than the model's context of {context_length}; "
            "nothing is truncated: shorten the arguments or ask for fewer new tokens"
        )
        self.prompt_tokens = prompt_tokens
        self.max_new_tokens = max_new_tokens
        self.context_length = context_length


def find_adapter(model_identity: str) -> Path | None:
    """The generator adapter trained for this model (the user's, in the cache, else the packaged one), if any."""
    try:
        return find_trained(GENERATOR, model_identity, STYLE, shipped_weights(GENERATOR))
    except TrainedNotFoundError:
        return None


class NpovGenerator(Generator):
    """A causal LM run in this process, optionally with a trained adapter, that writes NPOV responses.

    With an adapter, PEFT merges it into `language_model.model`'s weights: give the generator a
    language model of its own (`explorer.generation.backends` loads one per generator)."""

    def __init__(self, language_model: LanguageModel, adapter: Path | None = None, *, guard: bool = False):
        self.language_model = language_model
        self.adapter = adapter
        self.guard = guard  # `explorer.generation.coverage_guard`, for a model that restates its input
        self.model = language_model.model
        self.adapter_digest = None
        if adapter is not None:
            self.model = merged_adapter(language_model.model, adapter)
            self.adapter_digest = hashlib.sha256((Path(adapter) / ADAPTER_FILE).read_bytes()).hexdigest()
        self._lock = threading.Lock()  # the global RNG is seeded per call

    @property
    def identity(self) -> str:
        """The model's identity, plus the adapter's digest when one is used."""
        base = self.language_model.identity
        with_adapter = f"{base}+adapter({self.adapter_digest[:16]})" if self.adapter_digest else base
        return f"{with_adapter}+coverage-guard" if self.guard else with_adapter

    @property
    def generated_by(self) -> dict[str, str]:
        return {"model": self.identity}

    def prompt_ids(self, example: Example):
        """Token ids of the NPOV prompt, shape (1, prompt tokens)."""
        text = npov_prompt(example, self.language_model.tokenizer).text
        ids = self.language_model.tokenizer(text, add_special_tokens=False, return_tensors="pt").input_ids
        return ids.to(self.language_model.device)

    def check_fits(self, example: Example, max_new_tokens: int) -> int:
        """The prompt's token count; raises `ContextTooLongError`."""
        tokens = int(self.prompt_ids(example).shape[1])
        if tokens + max_new_tokens > self.language_model.context_length:
            raise ContextTooLongError(tokens, max_new_tokens, self.language_model.context_length)
        return tokens

    def generate(
        self,
        example: Example,
        settings: GenerationSettings = DEFAULT_SETTINGS,
        *,
        on_text: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> str:
        """See `Generator.generate`; an input beyond the model's context raises `ContextTooLongError`."""
        import torch
        from transformers import LogitsProcessorList, StoppingCriteria, StoppingCriteriaList, TextStreamer

        self.check_fits(example, settings.max_new_tokens)
        ids = self.prompt_ids(example)
        tokenizer = self.language_model.tokenizer
        stops = turn_token_ids(tokenizer)

        class Cancel(StoppingCriteria):
            def __call__(self, input_ids, scores, **kwargs):
                return torch.full((input_ids.shape[0],), bool(cancelled and cancelled()), dtype=torch.bool)

        class Stream(TextStreamer):
            def on_finalized_text(self, text: str, stream_end: bool = False):
                if on_text is not None and text:
                    on_text(text)

        options: dict[str, Any] = {"do_sample": settings.sample}
        if settings.sample:
            options.update(temperature=settings.temperature, top_p=settings.top_p, top_k=0)
        else:
            # Greedy: the model's generation config may ask for sampling by default.
            options.update(temperature=None, top_p=None, top_k=None)
        with self._lock, torch.no_grad():
            torch.manual_seed(settings.seed)
            output = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=settings.max_new_tokens,
                stopping_criteria=StoppingCriteriaList([Cancel()]),
                streamer=Stream(tokenizer, skip_prompt=True, skip_special_tokens=True) if on_text else None,
                pad_token_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id,
                eos_token_id=stops,
                logits_processor=LogitsProcessorList(
                    [
                        CoverageGuard(tokenizer, example, ids.shape[1], stops),
                        QuestionRestatement(self.model, tokenizer, example.query, ids.shape[1]),
                    ]
                    if self.guard
                    else []
                ),
                **options,
            )
        return tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True).strip()
