"""Faithfulness and trust metrics on the Inspect page (after Chiesurin et al. 2023)."""

from __future__ import annotations

import streamlit as st

from explorer.example import Example
from explorer.render_claims import trust_html
from explorer.trust import trust_metrics


def show_trust(example: Example) -> None:
    st.subheader("Faithfulness and trust", anchor=False)
    st.html(trust_html(trust_metrics(example)))
