"""The frame every page shares: page settings and the sidebar (detectors, language model).

Each page calls `page_frame()` first. Under the router (`app.py`'s `st.navigation`) that is the
usual case; but Streamlit also serves the `pages/` folder as old-style pages until some session
has run `st.navigation`, so on a freshly started server a page's direct URL runs the page
without the router. Calling the frame from the page gives both paths the same frame; the router
does not draw it again.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui import labelling, state

TITLE = "RAG Error Explorer"
ICON = "🔎"
# Streamlit's default top padding (6rem) pushes the verdict off a 800 px high screen.
COMPACT = "<style>[data-testid=stMainBlockContainer] { padding-top: 2.5rem; }</style>"


def page_frame(page: str = "") -> None:
    """`page` names the page in `state.PAGE_BEFORE` for the next run; a page that never asks
    where the user came from may leave it out."""
    st.set_page_config(page_title=TITLE, page_icon=ICON, layout="wide")
    session = st.session_state
    session[state.PAGE_BEFORE], session[state.PAGE_NOW] = session.get(state.PAGE_NOW), page
    st.html(COMPACT)  # only a style: Streamlit applies it without drawing an element
    labelling.use_calibration()  # before anything reads a verdict: the session's own, when it calibrated
    state.sidebar()
    labelling.calibration_note()
