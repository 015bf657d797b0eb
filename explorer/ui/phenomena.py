"""Linguistic phenomena (Chiesurin et al. 2023, §2.2) on the Inspect and dataset pages."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer.data.example import Example
from explorer.evaluation.phenomena import phenomena, phenomena_table
from explorer.ui.text import literal

FORM_HELP = (
    "long: several sentences; short: one sentence with a main-clause finite verb; fragment: one "
    "sentence without (found by rules, not a parser: see explorer.text.syntax)"
)


def show_phenomena(example: Example) -> None:
    """Length, form and subject / object pronouns of the response, under the trust metrics."""
    found = phenomena(example.response)
    words, form, pronouns = st.columns(3)
    words.metric("Words", found.words)
    form.metric("Form", found.form, help=FORM_HELP)
    pronouns.metric(
        "Pronouns (subject / object)",
        f"{found.subject_pronouns} / {found.object_pronouns}",
        help="People trust answers without pronouns more (Chiesurin et al. 2023)",
    )
    if found.pronouns:
        listed = ", ".join(f"{literal(p.text)} ({p.role})" for p in found.pronouns[:12])
        st.caption(listed + (" …" if len(found.pronouns) > 12 else ""))


@st.cache_data(max_entries=16)
def _table(dataset_key: str, _examples: Sequence[Example]) -> pd.DataFrame:
    return phenomena_table(_examples)


def show_phenomena_table(dataset_key: str, examples: Sequence[Example]) -> None:
    """Seed 002's Table 1 per source (model, else label kind), with the trust-trap share."""
    st.markdown("**Per source**: length, form, pronouns and lexical alignment (Chiesurin et al. 2023, Table 1)")
    table = _table(dataset_key, examples)
    percent = {c: st.column_config.NumberColumn(c, format="%.0f%%") for c in table.columns if c.startswith("%")}
    st.dataframe(table.round(3), column_config=percent)
