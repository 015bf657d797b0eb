"""From a token-to-token salience map to word scores and example scores (paper §3.2, App. C.1).

The steps, each a separate function so that they can be chained, tested and swapped:

1. `normalize_columns`: each response token's column of (squared) attributions sums to 1.
2. `merge_to_words`: tokens -> words, the max over a word's sub-tokens on both axes
   (a token overlapping two words counts for both).
3. `word_scores`: contribution a_i of argument word i = its row reduced over response words;
   attribution b_j of response word j = its column reduced over argument words. The paper
   reduces with max; App. C.1 also tries sum and negative entropy (see `REDUCTIONS`).
4. `example_scores`: s_hall = 1 - gmean(b); s_cov = 1 - min over perspectives of gmean(a over
   that perspective's words); word-level error scores 1 - a_i and 1 - b_j.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Span = tuple[int, int]


def normalize_columns(token_map: np.ndarray) -> np.ndarray:
    """[S, T] non-negative map -> each column divided by its sum (all-zero columns stay 0)."""
    totals = token_map.sum(axis=0, keepdims=True)
    return np.divide(token_map, totals, out=np.zeros_like(token_map), where=totals > 0)


def token_groups(token_spans: Sequence[Span], word_spans: Sequence[Span]) -> list[list[int]]:
    """For each word span, the indices of the tokens whose character spans overlap it (tokens
    of no characters overlap nothing)."""
    indices = np.array([i for i, (start, end) in enumerate(token_spans) if start < end], dtype=np.int64)
    spans = np.asarray(token_spans, dtype=np.int64).reshape(-1, 2)[indices]
    order = np.argsort(spans[:, 0], kind="stable")
    indices, starts, ends = indices[order], spans[order, 0], spans[order, 1]
    if np.all(np.diff(ends) >= 0):
        # Sorted by start and by end (a tokenizer's pieces do not nest): a word's tokens are one
        # run, found by bisection. Checking every token against every word took 15 s for the
        # 9,000 words of a response that salience then refused as too long.
        first = np.searchsorted(ends, [start for start, _ in word_spans], side="right")
        last = np.searchsorted(starts, [end for _, end in word_spans], side="left")
        return [sorted(indices[a:b].tolist()) for a, b in zip(first, last)]
    return [sorted(indices[(starts < word_end) & (word_start < ends)].tolist()) for word_start, word_end in word_spans]


def merge_to_words(token_map: np.ndarray, row_groups: Sequence[Sequence[int]], column_groups: Sequence[Sequence[int]]):
    """[S_tokens, T_tokens] -> [len(row_groups), len(column_groups)], max over each group's tokens.

    A word without tokens (which a tokenizer that covers its text never produces) gets 0.
    """
    columns = token_map.shape[1]
    rows_merged = np.stack(
        [token_map[list(rows)].max(axis=0) if rows else np.zeros(columns, token_map.dtype) for rows in row_groups]
        or [np.zeros(columns, token_map.dtype)]
    )[: len(row_groups)]
    merged = np.zeros((len(row_groups), len(column_groups)), dtype=token_map.dtype)
    for j, group in enumerate(column_groups):
        if group:
            merged[:, j] = rows_merged[:, list(group)].max(axis=1)
    return merged


def _concentration(values: np.ndarray, axis: int) -> np.ndarray:
    """Negative entropy rescaled to [0, 1]: 1 when all mass sits on one cell, 0 when spread evenly.

    Our reading of App. C.1's negative-entropy aggregation: a faithfully copied word draws its
    attribution from few source words (low entropy), an invented one from many.
    """
    from scipy.stats import entropy  # scipy.stats takes a second to import: only when salience scores

    size = values.shape[axis]
    if size < 2:
        return (values.sum(axis=axis) > 0).astype(values.dtype)
    totals = values.sum(axis=axis, keepdims=True)
    probabilities = np.divide(values, totals, out=np.full_like(values, 1.0 / size), where=totals > 0)
    return 1.0 - entropy(probabilities, axis=axis) / np.log(size)


REDUCTIONS = {
    "max": lambda values, axis: values.max(axis=axis),
    # A column's restricted sum is the share of the response word's attribution that comes from
    # argument words (<= 1); a row's sum can pass 1, so it is capped to stay a score.
    "sum": lambda values, axis: np.minimum(values.sum(axis=axis), 1.0),
    "neg_entropy": _concentration,
}


def word_scores(word_map: np.ndarray, reduction: str = "max") -> tuple[np.ndarray, np.ndarray]:
    """[A, R] argument-word x response-word map -> (contribution a [A], attribution b [R])."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}; choose from {', '.join(REDUCTIONS)}")
    if word_map.size == 0:
        return np.zeros(word_map.shape[0]), np.zeros(word_map.shape[1])
    reduce = REDUCTIONS[reduction]
    return reduce(word_map, 1), reduce(word_map, 0)


@dataclass(frozen=True)
class SalienceScores:
    hallucination: float
    coverage: float
    per_perspective: dict[int, float]


def example_scores(
    contribution: np.ndarray, row_perspectives: Sequence[int], attribution: np.ndarray, perspectives: int
) -> SalienceScores:
    """The paper's example-level error scores from word scores.

    `row_perspectives[i]` is the perspective of argument word i. A perspective without content
    words has nothing to cover (error 0); a response without content words has nothing to
    attribute (error 0).
    """
    from scipy.stats import gmean  # scipy.stats takes a second to import: only when salience scores

    rows = np.asarray(row_perspectives)
    per_perspective = {}
    for p in range(perspectives):
        values = contribution[rows == p] if len(rows) else np.array([])
        per_perspective[p] = 1.0 - float(gmean(values)) if values.size else 0.0
    hallucination = 1.0 - float(gmean(attribution)) if attribution.size else 0.0
    return SalienceScores(
        hallucination=hallucination,
        coverage=max(per_perspective.values()) if per_perspective else 0.0,
        per_perspective=per_perspective,
    )
