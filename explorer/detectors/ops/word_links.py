"""Follow one word through a detector's argument-word x response-word map.

A detector with a word map puts it in its `details.HEATMAP` (`z`) with one row per entry of
`result.argument_words` and one column per entry of `result.response_words`, in that order
(salience does). From it:

- `sources_of(result, j)`: where response word j comes from, as argument-word scores;
- `uses_of(result, i)`: where argument word i is used, as response-word scores;
- `sentence_map(result, example)`: the map read sentence by sentence, for an overview.

Both return a copy of the result whose word scores are the map's row or column divided by its
largest value, so the existing highlight rendering shows them (the strongest link is darkest).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from explorer.data.example import Example
from explorer.detectors.base import ArgumentWordScore, DetectorResult, ResponseWordScore
from explorer.detectors.details import HEATMAP
from explorer.text.claims import sentence_spans


def word_map(result: DetectorResult) -> np.ndarray | None:
    """The `[argument words, response words]` map, or None when the detector gives none."""
    heatmap = HEATMAP.of(result)
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


@dataclasses.dataclass(frozen=True)
class SentenceMap:
    """The word map read sentence by sentence: argument sentences (rows) x response sentences (columns).

    A cell is the largest word-to-word value between the two sentences (the paper's max
    reduction, one level up), so a bright cell says some word of that response sentence draws
    on some word of that argument sentence. `row_words[i]` / `column_words[j]` are the indices
    into `result.argument_words` / `result.response_words` of the sentence's scored words, for
    drilling down to words; sentences without scored words are left out.
    """

    values: np.ndarray  # (n_argument_sentences, n_response_sentences)
    rows: tuple[tuple[int, int, int, int], ...]  # (perspective, argument, start, end) in the argument
    columns: tuple[tuple[int, int], ...]  # (start, end) in the response
    row_words: tuple[tuple[int, ...], ...]
    column_words: tuple[tuple[int, ...], ...]


def _members(spans, words) -> list[tuple[int, ...]]:
    return [tuple(i for i, (s, e) in enumerate(words) if start <= s and e <= end) for start, end in spans]


def sentence_map(result: DetectorResult, example: Example) -> SentenceMap | None:
    """`result`'s word map aggregated to sentences of `example` (None without a word map)."""
    values = word_map(result)
    if values is None:
        return None
    columns = list(sentence_spans(example.response))
    column_words = _members(columns, [(w.start, w.end) for w in result.response_words])
    rows, row_words = [], []
    for p, a, text in example.arguments():
        spans = sentence_spans(text)
        words = [(w.start, w.end) if (w.perspective, w.argument) == (p, a) else (-1, -1) for w in result.argument_words]
        for (start, end), members in zip(spans, _members(spans, words)):
            rows.append((p, a, start, end))
            row_words.append(members)
    keep_rows = [i for i, members in enumerate(row_words) if members]
    keep_columns = [j for j, members in enumerate(column_words) if members]
    cells = np.array(
        [[values[np.ix_(row_words[i], column_words[j])].max() for j in keep_columns] for i in keep_rows]
    ).reshape(len(keep_rows), len(keep_columns))
    return SentenceMap(
        values=cells,
        rows=tuple(rows[i] for i in keep_rows),
        columns=tuple(columns[j] for j in keep_columns),
        row_words=tuple(row_words[i] for i in keep_rows),
        column_words=tuple(column_words[j] for j in keep_columns),
    )
