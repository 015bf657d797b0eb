"""Faithfulness and trust metrics on the Inspect page (after Chiesurin et al. 2023)."""

from __future__ import annotations

import streamlit as st

from explorer.data.example import Example
from explorer.evaluation.trust import trust_metrics
from explorer.render.claims import trust_html


def show_trust(example: Example) -> None:
    st.subheader("Faithfulness and trust", anchor=False)
    st.html(trust_html(trust_metrics(example)))
