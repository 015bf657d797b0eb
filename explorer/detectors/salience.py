"""Salience detector (Chang et al. 2024, §3.2, App. C): where does each response word come from?

A local causal LM reads the NPOV task prompt (`explorer.text.prompts.npov_prompt`) and is
teacher-forced the response. `explorer.detectors.ops.salience_map.token_salience` gives the token-to-token
gradient x input map; `explorer.detectors.ops.aggregate` turns it into scores:

    map      = salience², each response token's column normalized to sum to 1
    word map = max over sub-tokens -> argument words (rows) x response words (columns)
    a_i      = row max     (how much argument word i is used: contribution)
    b_j      = column max  (how much response word j draws on one argument word: attribution)
    s_hall   = 1 - gmean(b)       s_cov = 1 - min over perspectives of gmean(a in perspective)

Word-level error scores are 1 - a_i and 1 - b_j. Stop words are neither rows nor columns, so
only the response tokens that overlap a content word are attributed (the other columns would
be dropped after merging, and normalization is per column: skipping them is exact).
App. C's variants are settings: `reduction` sum or negative entropy instead of max, and
`attribution`, the attribution method (`explorer.detectors.ops.attribution`): gradient x input (the
paper, default), gradient L2 norm, integrated gradients, or argument-level ablation / Shapley
values through Captum.

Inputs that do not fit the model's context are refused with a `DetectorError` that gives the
token counts: truncating would silently score a different example.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property

import numpy as np

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.ops import aggregate
from explorer.detectors.ops import attribution as attributions
from explorer.detectors.ops.salience_map import used_targets
from explorer.models.identity import model_identity
from explorer.models.language_model import LanguageModel, load_language_model, resolve_spec
from explorer.models.loading import LoadedOnce
from explorer.text import prompts
from explorer.text.words import DEFAULT_SEGMENTER, Segmenter, Word

HEATMAP_DECIMALS = 4


def token_offsets(tokenizer, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """Token ids of `text` (no special tokens added) and each token's character span."""
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    return list(encoded["input_ids"]), [tuple(span) for span in encoded["offset_mapping"]]


def salience_inputs(
    example: Example,
    lm: LanguageModel | None,
    *,
    tokenizer=None,
    segmenter: Segmenter = DEFAULT_SEGMENTER,
    targets: Sequence[int] | None = None,
    **options,
) -> attributions.SalienceInputs:
    """`example` as every attribution method reads it: the NPOV prompt and the response in
    `lm`'s tokens (or `tokenizer`'s), the arguments named as on Inspect ("pro 1"), and the
    response positions to attribute: `targets`, by default those that overlap a content word
    (the only columns the aggregation keeps). `options`: the other `SalienceInputs` fields."""
    tokenizer = tokenizer or lm.tokenizer
    prompt = prompts.npov_prompt(example, tokenizer)
    prompt_ids, prompt_spans = token_offsets(tokenizer, prompt.text)
    response_ids, response_spans = token_offsets(tokenizer, example.response)
    if targets is None:
        words = segmenter.content_words(example.response)
        targets = used_targets(response_spans, [(w.start, w.end) for w in words])
    labels = [f"{example.perspectives[a.perspective].name} {a.argument + 1}" for a in prompt.arguments]
    return attributions.SalienceInputs(
        **{
            "lm": lm,
            "prompt": prompt,
            "prompt_ids": prompt_ids,
            "prompt_spans": prompt_spans,
            "response": example.response,
            "response_ids": response_ids,
            "response_spans": response_spans,
            "targets": targets,
            "argument_labels": labels,
            **options,
        }
    )


class SalienceDetector(Detector):
    name = "salience"
    version = "1"

    def __init__(
        self,
        model: str | None = None,
        *,
        attribution: str = attributions.DEFAULT_ATTRIBUTION,
        reduction: str = "max",
        target: str | None = None,
        chunk: int | None = None,
        segmenter: Segmenter = DEFAULT_SEGMENTER,
        **settings,
    ):
        """`target`: the attributed score, "logit" (the paper) or "log_prob"; default: the
        attribution's first (the perturbation attributions measure log-probabilities only). `settings`:
        the attribution's own (`steps` for integrated gradients, `samples` for Shapley values)."""
        self.attribution = attributions.get_attribution(attribution)
        if reduction not in aggregate.REDUCTIONS:
            raise ValueError(f"reduction must be one of {', '.join(aggregate.REDUCTIONS)}, got {reduction!r}")
        target = target or self.attribution.targets[0]
        if target not in self.attribution.targets:
            raise ValueError(
                f"target of {attribution} must be one of {', '.join(self.attribution.targets)}, got {target!r}"
            )
        unknown = set(settings) - set(self.attribution.settings)
        if unknown:
            known = ", ".join(self.attribution.settings) or "none"
            raise ValueError(f"{attribution} has no setting {', '.join(sorted(unknown))} (its settings: {known})")
        self.settings = {**self.attribution.settings, **{k: v for k, v in settings.items() if v is not None}}
        for name, value in self.settings.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
        self.model_path = resolve_spec(model)
        self.reduction, self.target = reduction, target
        self.chunk = chunk
        self.segmenter = segmenter
        self._language_model = LoadedOnce(lambda: load_language_model(self.model_path))

    def config(self) -> dict:
        # The stored key stays "method" (and "method_version"): the config is part of the cache
        # key, and renaming it would orphan the shipped scores and every user's cached results.
        config = {"method": self.attribution.name, "reduction": self.reduction, "target": self.target, **self.settings}
        # Results computed before attributions had versions (the shipped ones) keep their keys: an
        # attribution's version joins the key once it moves past "1".
        if self.attribution.version != "1":
            config["method_version"] = self.attribution.version
        return config

    @cached_property
    def _identity(self) -> str:
        return model_identity(self.model_path)

    def model_identity(self) -> str:
        return self._identity

    @property
    def language_model(self) -> LanguageModel:
        """The model, loaded at the first use (the cache answers many requests without it)."""
        return self._language_model()

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        model = self.language_model
        inputs = salience_inputs(
            example,
            model,
            segmenter=self.segmenter,
            target=self.target,
            chunk=self.chunk or (64 if model.device != "cpu" else 32),
            progress=progress,
        )
        total = len(inputs.prompt_ids) + len(inputs.response_ids)
        if total > model.context_length:
            raise DetectorError(
                f"too long for the model: prompt {len(inputs.prompt_ids)} + response {len(inputs.response_ids)} = "
                f"{total} tokens, the model reads at most {model.context_length}; salience never truncates, so "
                "shorten the response or the arguments, or choose a model with a longer context"
            )
        output = self.attribution.compute(inputs, **self.settings)
        result = self.result_from_map(
            example, inputs.prompt, inputs.prompt_spans, inputs.response_spans, output.token_map
        )
        return replace(result, details={**result.details, **output.details}) if output.details else result

    def word_map(
        self,
        example: Example,
        prompt: prompts.Prompt,
        prompt_spans: list[tuple[int, int]],
        response_spans: list[tuple[int, int]],
        salience: np.ndarray,
    ) -> tuple[list[tuple[int, int, Word]], tuple[Word, ...], np.ndarray]:
        """The `[argument words, response words]` map from a raw `[P + T, T]` token map, with its
        rows `(perspective, argument, word)` and columns (content words of the response)."""
        rows = []  # (perspective, argument, word) for every content word of every argument
        row_spans = []  # those words' spans in the prompt
        for span in prompt.arguments:
            argument = example.perspectives[span.perspective].arguments[span.argument]
            for word in self.segmenter.content_words(argument):
                rows.append((span.perspective, span.argument, word))
                row_spans.append((span.start + word.start, span.start + word.end))
        response_words = self.segmenter.content_words(example.response)
        normalized = aggregate.normalize_columns(np.square(salience, dtype=np.float64))
        word_map = aggregate.merge_to_words(
            normalized[: len(prompt_spans)],
            aggregate.token_groups(prompt_spans, row_spans),
            aggregate.token_groups(response_spans, [(w.start, w.end) for w in response_words]),
        )
        return rows, response_words, word_map

    def result_from_map(
        self,
        example: Example,
        prompt: prompts.Prompt,
        prompt_spans: list[tuple[int, int]],
        response_spans: list[tuple[int, int]],
        salience: np.ndarray,
    ) -> DetectorResult:
        """Scores from a raw `[P + T, T]` token map (the aggregation steps of the docstring)."""
        rows, response_words, word_map = self.word_map(example, prompt, prompt_spans, response_spans, salience)
        contribution, attribution = aggregate.word_scores(word_map, self.reduction)
        scores = aggregate.example_scores(contribution, [p for p, _, _ in rows], attribution, len(example.perspectives))
        names = [p.name for p in example.perspectives]
        return DetectorResult(
            detector=self.name,
            hallucination=scores.hallucination,
            coverage=scores.coverage,
            per_perspective={names[p]: value for p, value in scores.per_perspective.items()},
            response_words=tuple(
                ResponseWordScore(w.start, w.end, float(1.0 - b)) for w, b in zip(response_words, attribution)
            ),
            argument_words=tuple(
                ArgumentWordScore(p, a, w.start, w.end, float(1.0 - value))
                for (p, a, w), value in zip(rows, contribution)
            ),
            info=self.info(),
            details={
                details.HEATMAP.key: {
                    "z": np.round(word_map, HEATMAP_DECIMALS).tolist(),
                    "x": [w.text for w in response_words],
                    "y": [f"{names[p]} {a + 1}: {w.text}" for p, a, w in rows],
                    "title": "Share of each response word's salience (column) held by each argument word (row)",
                },
                details.TOKENS.key: {"prompt": len(prompt_spans), "response": len(response_spans)},
            },
        )
