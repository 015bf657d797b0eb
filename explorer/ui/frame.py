"""The frame every page shares: page settings and the sidebar (detectors, language model).

Each page calls `page_frame()` first; the router (`app.py`'s `st.navigation`) draws nothing
itself. The pages live in `app_pages/`, not `pages/`: Streamlit serves a folder named `pages/`
as old-style pages until some session has run `st.navigation`, so on a fresh server the first
visitor saw the file names ("app / dataset / inspect / lab") in the sidebar for seconds.

A page then draws its title before it imports the modules that load models' libraries (torch,
scikit-learn, plotly: seconds on a fresh server, once per process), inside `loading()`, so the
first visitor sees the page and a spinner instead of a blank screen.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from explorer.ui import state

TITLE = "RAG Error Explorer"
ICON = "🔎"
WHAT_IT_DOES = (
    "Flags **hallucinations** (claims no given argument supports) and **coverage errors** (given arguments "
    "left out) in a chatbot's answer."
)
# Streamlit's default top padding (6rem) pushes the verdict off a 800 px high screen.
COMPACT = "<style>[data-testid=stMainBlockContainer] { padding-top: 2.5rem; }</style>"


def page_frame(page: str = "") -> None:
    """`page` names the page in `state.PAGE_BEFORE` for the next run; a page that never asks
    where the user came from may leave it out."""
    st.set_page_config(page_title=TITLE, page_icon=ICON, layout="wide")
    session = st.session_state
    session[state.PAGE_BEFORE], session[state.PAGE_NOW] = session.get(state.PAGE_NOW), page
    st.html(COMPACT)  # only a style: Streamlit applies it without drawing an element
    state.sidebar()


@contextlib.contextmanager
def loading():
    """A spinner for the page's imports (instant after a process's first visit), then the
    session's own calibration put in force before anything reads a verdict (labelling imports
    the scoring libraries, so it waits here rather than before the title)."""
    with st.spinner("Loading the detectors…", show_time=True):
        from explorer.ui import labelling

        yield
    labelling.use_calibration()
    labelling.calibration_note()
