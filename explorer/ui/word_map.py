"""A detector's word-to-word map on the Inspect page: heatmap, follow one word, the prompt."""

from __future__ import annotations

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.detectors.ops import word_links
from explorer.models.language_model import load_tokenizer
from explorer.render import figures, highlights
from explorer.text import prompts
from explorer.ui.state import MODEL

FOLLOW_RESPONSE = "a response word: where does it come from?"
FOLLOW_ARGUMENT = "an argument word: where is it used?"


@st.cache_resource(show_spinner=False)
def _tokenizer(model: str):
    return load_tokenizer(model or None)


def _argument_label(example: Example, result: DetectorResult, index: int) -> str:
    word = result.argument_words[index]
    text = example.perspectives[word.perspective].arguments[word.argument][word.start : word.end]
    return f"{text} · {example.perspectives[word.perspective].name} argument {word.argument + 1}"


def _response_label(example: Example, result: DetectorResult, index: int) -> str:
    word = result.response_words[index]
    return f"{example.response[word.start : word.end]} · word {index + 1}"


def show_method_details(result: DetectorResult, *, key: str) -> None:
    """What a salience method adds: integrated gradients' convergence, the argument methods' matrix."""
    convergence = result.details.get("convergence")
    if convergence:
        st.caption(
            f"Integrated gradients, {convergence['steps']} steps from {convergence['baseline']}: the attributions of "
            f"a response token add up to its score's change within {convergence['median_relative_delta']:.0%} "
            f"(median over tokens; worst {convergence['max_relative_delta']:.0%}). A large gap means too few steps."
        )
    matrix = result.details.get("argument_sentence")
    if matrix:
        st.plotly_chart(figures.heatmap_figure(matrix), key=f"{key}.argument_sentence")


def show_word_map(example: Example, name: str, result: DetectorResult, *, key: str) -> None:
    """Follow-a-word highlights and the heatmap, for a result whose details hold a word map."""
    if word_links.word_map(result) is None or not result.argument_words or not result.response_words:
        return
    st.markdown("**Follow a word**")
    direction = st.radio("Pick", (FOLLOW_RESPONSE, FOLLOW_ARGUMENT), horizontal=True, key=f"{key}.direction")
    if direction == FOLLOW_RESPONSE:
        choice = st.selectbox(
            "Response word",
            range(len(result.response_words)),
            format_func=lambda i: _response_label(example, result, i),
            key=f"{key}.response_word",
        )
        linked = word_links.sources_of(result, choice)
    else:
        choice = st.selectbox(
            "Argument word",
            range(len(result.argument_words)),
            format_func=lambda i: _argument_label(example, result, i),
            key=f"{key}.argument_word",
        )
        linked = word_links.uses_of(result, choice)
    meaning = "share of the strongest link (1 = strongest)"
    left, right = st.columns(2)
    with left:
        st.html(highlights.response_html(example, linked, meaning))
    with right:
        st.html(highlights.arguments_html(example, linked, meaning))
    st.caption(
        "Darker = a larger share of the word's salience; shades are relative to the strongest link, "
        "and the chosen word is marked at full strength."
    )
    groups = [f"{w.perspective}.{w.argument}" for w in result.argument_words]
    st.plotly_chart(figures.heatmap_figure(result.details["heatmap"], groups), key=f"{key}.heatmap")
    show_method_details(result, key=key)
    if detectors.spec(name).uses_model:
        with st.expander("The prompt the model read (the response is teacher-forced after it)"):
            try:
                st.code(prompts.npov_prompt(example, _tokenizer(st.session_state.get(MODEL, ""))).text, language=None)
            except Exception as error:  # a bad model path shows as a message, not a traceback
                st.warning(f"cannot build the prompt: {error}")
