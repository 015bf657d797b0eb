"""The salience detector's attribution methods, chosen by name, each giving the `[P + T, T]` map.

Every attribution attributes teacher-forced response tokens to the prompt (and the earlier response)
of one causal LM and returns what `explorer.detectors.ops.aggregate` consumes: a `[P + T, T]`
array whose entry `[s, t]` is input token s's attribution to response token t (0 where `s >=
P + t` and in the columns of response tokens the aggregation drops, which are not computed).

- `grad_x_input` (the paper, §3.2; the default): gradient x input on the embedding layer,
  what Captum's `LayerGradientXActivation` computes, through the exact fast path of
  `explorer.detectors.ops.salience_map` (one forward per chunk of targets instead of one per
  target; the tests check it against Captum to 1e-4).
- `grad_norm` (App. C): the L2 norm of the same gradient, what the norm of Captum's `Saliency`
  on the input embeddings gives; the same fast path (tested against Captum's `Saliency`).
- `integrated_gradients`: Captum's `LayerIntegratedGradients` on the embedding layer, one call
  per response token, from a baseline with the pad token's embedding at the arguments' tokens
  (Sundararajan et al. 2017; why not at every token: `integrated_gradients`). Its completeness
  error (Captum's convergence delta: the attributions' sum minus the change of the target
  score from baseline to input) goes into the details. Costs `steps` forward and backward
  passes per response token: a GPU method.
- `argument_ablation` / `argument_shapley`: Captum's `LLMAttribution` with `FeatureAblation`
  (remove one argument at a time) or `ShapleyValueSampling` over the argument spans, the
  features being whole arguments (a coarse view like ContextCite's, forward passes only). The
  attribution of argument a to response token t is the change of t's log-probability, which is
  what `LLMAttribution` measures. Coarser than a token map: every token of argument a gets the
  value (a, t), every other prompt row 0, and the paper's aggregation runs unchanged on that;
  the details add the argument x response-sentence matrix (each sentence's log-probability
  change: the sum over its tokens).

Each attribution has a `version`, bumped when its output changes; it is part of the detector's
cache key (`SalienceDetector.config`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from explorer.detectors.base import Progress
from explorer.detectors.details import ARGUMENT_SENTENCE, CONVERGENCE
from explorer.detectors.ops import aggregate
from explorer.detectors.ops.salience_map import token_salience
from explorer.models.language_model import LanguageModel
from explorer.text import claims, prompts

Span = tuple[int, int]
DEFAULT_STEPS = 64
CPU_STEP_TOKENS = 2048  # integrated gradients' batch of path points on a CPU, in tokens
DEFAULT_SAMPLES = 4


@dataclass(frozen=True)
class SalienceInputs:
    """One teacher-forced example, tokenized: what every attribution reads.

    `targets` are the response positions to attribute (the ones the aggregation keeps);
    `target` is the attributed score: "logit" (the paper) or "log_prob"; `argument_labels`
    name the prompt's arguments in order (for the perturbation attributions' matrix); `chunk` is
    how many targets share a forward pass on the fast path (speed only, never the result).
    """

    lm: LanguageModel
    prompt: prompts.Prompt
    prompt_ids: Sequence[int]
    prompt_spans: Sequence[Span]
    response: str
    response_ids: Sequence[int]
    response_spans: Sequence[Span]
    targets: Sequence[int]
    target: str = "logit"
    argument_labels: Sequence[str] = ()
    chunk: int = 32
    progress: Progress | None = None

    def empty_map(self) -> np.ndarray:
        rows = len(self.prompt_ids) + len(self.response_ids)
        return np.zeros((rows, len(self.response_ids)), dtype=np.float32)


@dataclass(frozen=True)
class AttributionOutput:
    token_map: np.ndarray  # [P + T, T]
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Attribution:
    """One way to attribute: its name (the salience detector's `attribution` option), what it is, and how it runs."""

    name: str
    title: str
    version: str
    captum: str  # the Captum class it runs (or, for the fast path, is checked against)
    summary: str
    targets: tuple[str, ...]  # the attributed scores it supports; the first is its default
    settings: dict  # its keyword settings and their defaults (part of the cache key)
    compute: Callable[..., AttributionOutput]


def gradient_x_input(inputs: SalienceInputs) -> AttributionOutput:
    return AttributionOutput(_fast_path(inputs, "grad_x_input"))


def gradient_norm(inputs: SalienceInputs) -> AttributionOutput:
    return AttributionOutput(_fast_path(inputs, "grad_norm"))


def _fast_path(inputs: SalienceInputs, reduction: str) -> np.ndarray:
    return token_salience(
        inputs.lm,
        inputs.prompt_ids,
        inputs.response_ids,
        targets=inputs.targets,
        attribution=reduction,
        target=inputs.target,
        chunk=inputs.chunk,
        progress=inputs.progress,
    )


def integrated_gradients(inputs: SalienceInputs, steps: int = DEFAULT_STEPS) -> AttributionOutput:
    """Captum `LayerIntegratedGradients` on the embedding layer, one call per target token.

    The baseline puts the pad token at the arguments' tokens and leaves the rest of the prompt
    and the response as they are. Blanking every position instead (the textbook baseline) made
    the path useless on SmolLM2-135M: along it the target logit jumped by up to 23 between
    points 0.01 apart (total variation 100 for a change of 1.6), and 128 steps still missed the
    change by more than 10x; with the arguments alone blanked the largest jump was 0.65, and 64
    steps came within 1-16% (measured on a short example). So only argument tokens receive
    attribution, and each response token's column is shared among them.
    """
    import torch
    from captum.attr import LayerIntegratedGradients

    lm = inputs.lm
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else lm.tokenizer.eos_token_id
    if pad is None:
        raise ValueError("integrated gradients needs a pad or end-of-sequence token for its baseline")
    ids = torch.tensor([[*inputs.prompt_ids, *inputs.response_ids]], device=lm.device)
    argument_tokens = _argument_token_groups(inputs)
    blanked = ids.clone()
    blanked[0, sorted({i for group in argument_tokens for i in group})] = pad

    def score(input_ids, token: int):
        logits = lm.model(input_ids=input_ids, logits_to_keep=1).logits[:, -1].float()
        return (logits.log_softmax(-1) if inputs.target == "log_prob" else logits)[:, token]

    method = LayerIntegratedGradients(score, lm.model.get_input_embeddings())
    # On a GPU all steps go through the model at once. On a CPU, copies of the input up to
    # CPU_STEP_TOKENS tokens in all: on one thread, 64 steps of an 84-token input took 52 s one
    # at a time, 43 s 16 at a time and 39 s all at once, while memory grows with the tokens.
    on_gpu = lm.device != "cpu"
    token_map, deltas, changes = inputs.empty_map(), [], []
    prompt_length = len(inputs.prompt_ids)
    for done, t in enumerate(inputs.targets, start=1):
        visible = prompt_length + t
        token = int(ids[0, visible])
        batch = steps if on_gpu else min(steps, max(1, CPU_STEP_TOKENS // visible))
        with torch.enable_grad():
            attributions, delta = method.attribute(
                ids[:, :visible],
                baselines=blanked[:, :visible],
                additional_forward_args=(token,),
                n_steps=steps,
                internal_batch_size=batch,
                return_convergence_delta=True,
            )
        with torch.no_grad():
            change = score(ids[:, :visible], token) - score(blanked[:, :visible], token)
        token_map[:visible, t] = attributions[0].sum(-1).float().cpu().numpy()
        deltas.append(abs(float(delta)))
        changes.append(abs(float(change)))
        if inputs.progress is not None:
            inputs.progress(done, len(inputs.targets))
    relative = [d / c for d, c in zip(deltas, changes) if c > 0]
    details = {
        "steps": steps,
        "baseline": f"{lm.tokenizer.convert_ids_to_tokens(pad)} at the arguments' tokens",
        "max_abs_delta": max(deltas, default=0.0),
        "mean_abs_delta": float(np.mean(deltas)) if deltas else 0.0,
        "max_relative_delta": max(relative, default=0.0),
        "median_relative_delta": float(np.median(relative)) if relative else 0.0,
    }
    return AttributionOutput(token_map, {CONVERGENCE.key: details})


def _argument_token_groups(inputs: SalienceInputs) -> list[list[int]]:
    """For each argument of the prompt, the prompt tokens that overlap it."""
    return aggregate.token_groups(inputs.prompt_spans, [(a.start, a.end) for a in inputs.prompt.arguments])


def argument_ablation(inputs: SalienceInputs) -> AttributionOutput:
    from captum.attr import FeatureAblation

    return _perturbation(inputs, FeatureAblation, {}, forwards=len(inputs.prompt.arguments) + 1)


def argument_shapley(inputs: SalienceInputs, samples: int = DEFAULT_SAMPLES) -> AttributionOutput:
    from captum.attr import ShapleyValueSampling

    arguments = len(inputs.prompt.arguments)
    return _perturbation(inputs, ShapleyValueSampling, {"n_samples": samples}, forwards=samples * arguments + 1)


def argument_template(prompt: prompts.Prompt) -> tuple[Callable[..., str], list[str]]:
    """The prompt as a function of its argument texts (Captum's `TextTemplateInput` template)."""
    text, spans = prompt.text, prompt.arguments
    gaps = [text[: spans[0].start] if spans else text]
    gaps += [text[a.end : b.start] for a, b in zip(spans, spans[1:])]
    gaps += [text[spans[-1].end :]] if spans else []

    def fill(*arguments: str) -> str:
        return gaps[0] + "".join(argument + gap for argument, gap in zip(arguments, gaps[1:]))

    return fill, [text[s.start : s.end] for s in spans]


def _perturbation(inputs: SalienceInputs, kind, options: dict, forwards: int) -> AttributionOutput:
    """Captum `LLMAttribution` over whole arguments (removed = replaced by the empty string)."""
    import torch
    from captum.attr import LLMAttribution, TextTemplateInput

    lm, prompt = inputs.lm, inputs.prompt
    template, values = argument_template(prompt)
    if not values:
        return AttributionOutput(inputs.empty_map(), {ARGUMENT_SENTENCE.key: None})
    llm = LLMAttribution(kind(lm.model), lm.tokenizer)
    calls = [0]
    forward = llm.attr_method.forward_func

    def counted(*args, **kwargs):
        calls[0] += 1
        if inputs.progress is not None:
            inputs.progress(min(calls[0], forwards), forwards)
        return forward(*args, **kwargs)

    llm.attr_method.forward_func = counted
    with torch.no_grad():
        result = llm.attribute(
            TextTemplateInput(template, values, baselines=[""] * len(values)),
            target=torch.tensor(list(inputs.response_ids)),
            forward_in_tokens=False,  # one teacher-forced forward per perturbation
            **options,
        )
    per_token = result.token_attr.float().cpu().numpy().T  # [arguments, T]
    token_map = inputs.empty_map()
    for argument, group in enumerate(_argument_token_groups(inputs)):
        token_map[np.ix_(group, list(inputs.targets))] = per_token[argument, list(inputs.targets)]
    sentences = claims.sentence_spans(inputs.response)
    columns = aggregate.token_groups(inputs.response_spans, sentences)
    matrix = np.stack([per_token[:, group].sum(axis=1) for group in columns], axis=1) if columns else None
    details = {
        ARGUMENT_SENTENCE.key: None
        if matrix is None
        else {
            "z": np.round(matrix, 4).tolist(),
            "x": [f"{i + 1}. {_opening(inputs.response[start:end])}" for i, (start, end) in enumerate(sentences)],
            "sentences": [list(span) for span in sentences],
            "y": list(inputs.argument_labels) or [f"argument {i + 1}" for i in range(len(values))],
            "colorbar": "log-prob",
            "title": "Log-probability each response sentence (column) loses when one argument (row) is removed"
            if kind.__name__ == "FeatureAblation"
            else "Shapley value of each argument (row) for each response sentence's log-probability (column)",
        }
    }
    return AttributionOutput(token_map, details)


def _opening(sentence: str, words: int = 6) -> str:
    """A sentence's first words, as a label."""
    split = sentence.split()
    return " ".join(split[:words]) + ("…" if len(split) > words else "")


_ATTRIBUTIONS = (
    Attribution(
        "grad_x_input",
        "Gradient x input (the paper)",
        "1",
        "LayerGradientXActivation",
        "The paper's choice: each response token's gradient on every earlier token's embedding, dotted with "
        "that embedding. Exact and the fastest.",
        ("logit", "log_prob"),
        {},
        gradient_x_input,
    ),
    Attribution(
        "grad_norm",
        "Gradient L2 norm",
        "1",
        "Saliency",
        "App. C's variant: the length of the same gradient, ignoring the embedding's direction. Same cost.",
        ("logit", "log_prob"),
        {},
        gradient_norm,
    ),
    Attribution(
        "integrated_gradients",
        "Integrated gradients",
        "1",
        "LayerIntegratedGradients",
        "Gradients averaged along a path from arguments blanked (pad tokens) to the input; attributions add up to "
        "the score's change (the convergence delta says how closely). `steps` passes per response token: a GPU method.",
        ("logit", "log_prob"),
        {"steps": DEFAULT_STEPS},
        integrated_gradients,
    ),
    Attribution(
        "argument_ablation",
        "Argument ablation",
        "1",
        "LLMAttribution(FeatureAblation)",
        "Remove one argument at a time and measure how much each response token's log-probability drops. "
        "Argument-level (coarse), forward passes only: one per argument.",
        ("log_prob",),
        {},
        argument_ablation,
    ),
    Attribution(
        "argument_shapley",
        "Argument Shapley values",
        "1",
        "LLMAttribution(ShapleyValueSampling)",
        "Shapley values of whole arguments for each response token's log-probability, sampled over `samples` "
        "orders. Argument-level (coarse), forward passes only.",
        ("log_prob",),
        {"samples": DEFAULT_SAMPLES},
        argument_shapley,
    ),
)
ATTRIBUTIONS = {a.name: a for a in _ATTRIBUTIONS}
DEFAULT_ATTRIBUTION = "grad_x_input"


def get_attribution(name: str) -> Attribution:
    if name not in ATTRIBUTIONS:
        raise ValueError(f"unknown attribution {name!r}; choose from {', '.join(ATTRIBUTIONS)}")
    return ATTRIBUTIONS[name]
