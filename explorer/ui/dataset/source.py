"""Choosing the dataset the page shows: a sample file or an upload, and optional precomputed scores."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer.data.example import Example
from explorer.data.jsonl import LoadResult
from explorer.evaluation import trust
from explorer.scoring import scores_file
from explorer.ui import links, state
from explorer.ui.text import literal


def choose_dataset() -> tuple[str, LoadResult] | None:
    """A picker over the sample files and this session's uploads, plus an uploader.

    A link naming an upload this session does not hold (a reload after the server restarted, a
    link sent to someone) says so and waits for a choice, instead of showing another dataset
    under the same address."""
    session = st.session_state
    options = links.sample_datasets() + list(session.get(state.UPLOADS, {}))
    linked = st.query_params.get(links.DATASET_PARAM)
    gone = linked if linked and linked.startswith(links.UPLOAD_PREFIX) and linked not in options else None
    if linked and linked in options and session.get(state.DATASET_LINK_SEEN) != linked:
        session[state.DATASET_LINK_SEEN] = linked
        session[state.DATASET_SOURCE] = linked
    if session.get(state.DATASET_SOURCE) not in options:
        session[state.DATASET_SOURCE] = options[0] if options else None
    if gone:
        session[state.DATASET_SOURCE_WIDGET] = None
    elif session.get(state.DATASET_SOURCE_WIDGET) != session[state.DATASET_SOURCE]:
        session[state.DATASET_SOURCE_WIDGET] = session[
            state.DATASET_SOURCE
        ]  # the widget's own value is dropped on other pages

    def choose(name: str | None) -> None:
        if name is not None:
            session[state.DATASET_SOURCE] = name
            st.query_params[links.DATASET_PARAM] = name  # the link names what is shown now

    def upload() -> None:
        file = session[state.DATASET_UPLOADER]
        if file is not None:
            name = links.add_upload(file.name, file.getvalue())
            session[state.DATASET_SOURCE_WIDGET] = name
            choose(name)

    pick, add = st.columns([2, 1])
    with pick:
        if options:
            st.selectbox(
                "Dataset",
                options,
                key=state.DATASET_SOURCE_WIDGET,
                index=None,
                placeholder="Pick a dataset…",
                format_func=lambda name: (
                    name.removeprefix(links.UPLOAD_PREFIX)
                    + (" (uploaded)" if name.startswith(links.UPLOAD_PREFIX) else "")
                ),
                on_change=lambda: choose(session[state.DATASET_SOURCE_WIDGET]),
            )
    with add:
        st.file_uploader(
            "Upload JSON Lines",
            type=["jsonl", "json", "txt"],
            key=state.DATASET_UPLOADER,
            on_change=upload,
            help="One example per line in the explorer's format (see the README), with labels to evaluate.",
        )
    if gone:
        st.warning(
            f"The link names the uploaded file {literal(gone.removeprefix(links.UPLOAD_PREFIX))}, which is gone: "
            "an upload lasts one browser session. Upload it again on the right, or pick a sample dataset."
        )
        return None
    name = session.get(state.DATASET_SOURCE)
    loaded = links.load_dataset(name) if name else None
    if loaded is None:
        st.info("Choose a sample dataset or upload a JSON Lines file of examples.")
        return None
    st.query_params[links.DATASET_PARAM] = name
    # The page's own link is no link to follow: on the next run it would undo an upload.
    session[state.DATASET_LINK_SEEN] = name
    if loaded.errors:
        with st.expander(f"⚠️ {len(loaded.errors)} problem(s) in the file; the other lines were loaded"):
            st.code("\n".join(str(e) for e in loaded.errors[:200]), language=None)
    if not loaded.examples:
        st.error("The file holds no valid example.")
        return None
    return name, loaded


def given_scores(source: str) -> tuple[dict, dict]:
    """Scores the user uploaded for this dataset (`explorer score` output): results, failures."""
    return st.session_state.get(state.DATASET_GIVEN_SCORES, {}).get(source, ({}, {}))


def scores_uploader(source: str) -> None:
    """Optional precomputed scores, e.g. from a machine with a GPU; they win over computing."""
    key = f"dataset.scores_uploader.{source}"

    def read() -> None:
        file = st.session_state[key]
        given = st.session_state.setdefault(state.DATASET_GIVEN_SCORES, {})
        st.session_state.pop(state.DATASET_SCORES_PROBLEM, None)
        if file is None:
            given.pop(source, None)
            return
        try:
            given[source] = scores_file.read_scores(file.getvalue())
        except (ValueError, UnicodeDecodeError) as error:
            st.session_state[state.DATASET_SCORES_PROBLEM] = f"{file.name}: {error}"

    results, _ = given_scores(source)
    count = len({m for by_detector in results.values() for m in by_detector})
    label = f"Precomputed scores ({count} detector(s) loaded)" if results else "Precomputed scores (optional)"
    with st.expander(label):
        st.file_uploader(
            "Output of `explorer score` for this dataset",
            type=["jsonl", "json", "txt"],
            key=key,
            on_change=read,
            help="Scores in this file are used as they are; its detectors join the ones chosen in the sidebar.",
        )
        if state.DATASET_SCORES_PROBLEM in st.session_state:
            st.error(literal(st.session_state[state.DATASET_SCORES_PROBLEM]))  # names the user's file and fields


@st.cache_data(max_entries=16)
def trust_columns(dataset_key: str, _examples: Sequence[Example]) -> pd.DataFrame:
    """The faithfulness and trust metrics of every example (cheap, computed once per dataset)."""
    return trust.trust_frame(_examples)


def dataset_detectors(source: str, chosen: Sequence[str]) -> list[str]:
    """The sidebar's detectors, then any other detector the uploaded scores hold."""
    results, _ = given_scores(source)
    found = dict.fromkeys(m for by_detector in results.values() for m in by_detector)
    return list(chosen) + [m for m in found if m not in chosen]
