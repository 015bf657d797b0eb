"""Follow one word through a detector's argument-word x response-word map.

A detector with a word map puts it in `details["heatmap"]["z"]` with one row per entry of
`result.argument_words` and one column per entry of `result.response_words`, in that order
(salience does). From it:

- `sources_of(result, j)`: where response word j comes from, as argument-word scores;
- `uses_of(result, i)`: where argument word i is used, as response-word scores.

Both return a copy of the result whose word scores are the map's row or column divided by its
largest value, so the existing highlight rendering shows them (the strongest link is darkest).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from explorer.detectors.base import ArgumentWordScore, DetectorResult, ResponseWordScore


def word_map(result: DetectorResult) -> np.ndarray | None:
    """The `[argument words, response words]` map, or None when the detector gives none."""
    heatmap = result.details.get("heatmap")
    if not heatmap:
        return None
    values = np.asarray(heatmap["z"], dtype=float)
    if values.shape != (len(result.argument_words), len(result.response_words)):
        return None
    return values


def _relative(values: np.ndarray) -> np.ndarray:
    top = values.max() if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


def sources_of(result: DetectorResult, response_word: int) -> DetectorResult:
    """Argument words scored by their share of response word `response_word`'s salience."""
    values = _relative(word_map(result)[:, response_word])
    return dataclasses.replace(
        result,
        argument_words=tuple(
            ArgumentWordScore(w.perspective, w.argument, w.start, w.end, float(v))
            for w, v in zip(result.argument_words, values)
        ),
        response_words=(dataclasses.replace(result.response_words[response_word], score=1.0),),
    )


def uses_of(result: DetectorResult, argument_word: int) -> DetectorResult:
    """Response words scored by how much of their salience argument word `argument_word` holds."""
    values = _relative(word_map(result)[argument_word])
    chosen = result.argument_words[argument_word]
    return dataclasses.replace(
        result,
        response_words=tuple(
            ResponseWordScore(w.start, w.end, float(v)) for w, v in zip(result.response_words, values)
        ),
        argument_words=(dataclasses.replace(chosen, score=1.0),),
    )
