"""A detector's word-to-word map on the Inspect page: by sentences first, then by words.

A salience map of a sample example is ~100 argument words x ~150 response words: unreadable as
one heatmap. It opens as argument sentences x response sentences (`word_links.sentence_map`);
a click on a cell picks that pair of sentences, and their words show as buttons: a click on a
response word shades where it comes from in the arguments, a click on an argument word where
the response uses it. The pair's word-by-word block and the prompt sit in expanders.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.detectors.details import ARGUMENT_SENTENCE, CONVERGENCE
from explorer.detectors.ops import word_links
from explorer.models.language_model import load_tokenizer
from explorer.render import figures, highlights
from explorer.text import prompts
from explorer.text.words import shorten
from explorer.ui import state
from explorer.ui.text import literal


@st.cache_resource(show_spinner=False)
def _tokenizer(model: str):
    return load_tokenizer(model or None)


def _row_labels(example: Example, found: word_links.SentenceMap) -> tuple[list[str], list[str]]:
    """Short labels ("pro 2 · Fewer cars in the…") and full texts of the argument sentences."""
    short, full = [], []
    for p, a, start, end in found.rows:
        text = example.perspectives[p].arguments[a][start:end]
        name = f"{example.perspectives[p].name} {a + 1}"
        short.append(f"{shorten(name, 14)} · {shorten(text, 22)}")
        full.append(f"{name}: {text}")
    return short, full


def _chosen_cell(key: str, found: word_links.SentenceMap) -> tuple[int, int]:
    """The clicked (row, column), else the first response sentence and its strongest source."""
    event = st.session_state.get(key)
    points = event.get("selection", {}).get("points", []) if event else []
    for point in points:
        row, column = int(point.get("y", -1)), int(point.get("x", -1))
        if 0 <= row < len(found.rows) and 0 <= column < len(found.columns):
            return row, column
    return int(np.argmax(found.values[:, 0])), 0


def _word_buttons(label: str, texts: Sequence[str], indices: Sequence[int], key: str, other: str) -> int | None:
    """One button per word (pills); a click follows it and clears the other side's choice."""
    if st.session_state.get(key) not in indices:
        st.session_state.pop(key, None)
    return st.pills(
        label,
        list(indices),
        format_func=lambda i: literal(texts[i]),  # labels render markdown
        key=key,
        on_change=lambda: st.session_state.pop(other, None),
        width="stretch",
    )


def show_attribution_details(result: DetectorResult, *, key: str) -> None:
    """What a salience attribution adds: integrated gradients' convergence, the argument attributions' matrix."""
    convergence = CONVERGENCE.of(result)
    if convergence:
        st.caption(
            f"Integrated gradients, {convergence['steps']} steps from {convergence['baseline']}: the attributions of "
            f"a response token add up to its score's change within {convergence['median_relative_delta']:.0%} "
            f"(median over tokens; worst {convergence['max_relative_delta']:.0%}). A large gap means too few steps."
        )
    matrix = ARGUMENT_SENTENCE.of(result)
    if matrix:
        figure = figures.link_map_figure(
            matrix["z"],
            matrix["x"],
            matrix["y"],
            title=matrix["title"],
            measure=(matrix["colorbar"], matrix["colorbar"]),
        )
        st.plotly_chart(figure, key=f"{key}.argument_sentence", config={"displayModeBar": False})


def show_word_map(example: Example, name: str, result: DetectorResult, *, key: str) -> None:
    """The sentence map, clickable words of the chosen pair, what the chosen word links to, the prompt."""
    show_attribution_details(result, key=key)
    found = word_links.sentence_map(result, example)
    if found is None or not found.values.size:
        return
    keys = {part: f"{state.WORD_MAP}.{key}.{part}" for part in state.WORD_MAP_PARTS}
    rows, row_text = _row_labels(example, found)
    columns = [f"S{j + 1}" for j in range(len(found.columns))]
    column_text = [f"S{j + 1}: {shorten(example.response[s:e], 140)}" for j, (s, e) in enumerate(found.columns)]
    st.markdown("**Where each response sentence draws from** · click a cell to see its words")
    overview = figures.link_map_figure(
        found.values, columns, rows, column_text=column_text, row_text=row_text, clickable=True
    )
    st.plotly_chart(
        overview,
        key=keys["cell"],
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    row, column = _chosen_cell(keys["cell"], found)
    p, a, start, end = found.rows[row]
    response_texts = [example.response[w.start : w.end] for w in result.response_words]
    argument_texts = [
        example.perspectives[w.perspective].arguments[w.argument][w.start : w.end] for w in result.argument_words
    ]
    left, right = st.columns(2)
    with left:
        response_word = _word_buttons(
            f"Words of S{column + 1}: where does each come from?",
            response_texts,
            found.column_words[column],
            keys["response_word"],
            keys["argument_word"],
        )
    with right:
        argument_word = _word_buttons(
            f"Words of {literal(rows[row].split(' · ')[0])}: where is each used?",
            argument_texts,
            found.row_words[row],
            keys["argument_word"],
            keys["response_word"],
        )
    if response_word is not None:
        linked = word_links.sources_of(result, response_word)
    elif argument_word is not None:
        linked = word_links.uses_of(result, argument_word)
    else:
        linked = None
        st.caption("Click a word above to follow it.")
    if linked is not None:
        meaning = "share of the strongest link (1 = strongest)"
        shown_left, shown_right = st.columns(2)
        shown_left.html(highlights.response_html(example, linked, meaning))
        shown_right.html(highlights.arguments_html(example, linked, meaning))
        st.caption(
            "Darker = a larger share of the word's salience; shades are relative to the strongest link, "
            "and the chosen word is marked at full strength."
        )
    with st.expander(f"Word by word: {literal(rows[row].split(' · ')[0])} × S{column + 1}"):
        block = word_links.word_map(result)[np.ix_(found.row_words[row], found.column_words[column])]
        st.plotly_chart(
            figures.link_map_figure(
                block,
                [response_texts[i] for i in found.column_words[column]],
                [argument_texts[i] for i in found.row_words[row]],
            ),
            key=keys["block"],
            config={"displayModeBar": False},
        )
        st.caption(f"Argument sentence: {literal(example.perspectives[p].arguments[a][start:end])}")
    if detectors.spec(name).uses_model:
        with st.expander("The prompt the model read (the response is teacher-forced after it)"):
            try:
                tokenizer = _tokenizer(st.session_state.get(state.MODEL, ""))
                st.code(prompts.npov_prompt(example, tokenizer).text, language=None)
            except Exception as error:  # a bad model path shows as a message, not a traceback
                st.warning(f"cannot build the prompt: {error}")
