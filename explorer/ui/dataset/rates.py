"""The Error rates tab: the share of the dataset's answers with a hallucination and with a coverage
error, overall and per group, with 95% intervals (`explorer.evaluation.rates`: the verdict
detector's calibrated scores, adjusted for the calibration set's share of errors, with a bootstrap
over the calibration and the answers). Labels are not read: it is what `explorer rates` reports
for a log, and on a labelled test set it can be held against the labels (the Summaries tab)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES
from explorer.detectors import DetectorResult
from explorer.evaluation import calibration, rates
from explorer.render.rates import rates_figure
from explorer.ui import state
from explorer.ui.dataset.labels import calibration_digest
from explorer.ui.text import literal

NONE = "(no groups)"
PAGE_BOOTSTRAP = 500  # as the Evaluation tab's AUC intervals; `explorer rates` uses 1000


def group_fields(examples: Sequence[Example]) -> list[str]:
    """What the answers can be grouped by: topic and split when some have one, and the other
    fields of the records that hold text or numbers."""
    found = [name for name in ("topic", "split") if any(getattr(e, name) for e in examples)]
    extra = {
        name
        for e in examples
        for name, value in e.extra.items()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool)
    }
    return found + sorted(extra)


@st.cache_data(max_entries=8, show_spinner="Estimating the error rates…")
def _estimate(dataset_key: str, by: str | None, digest: str, scored: int, _scores, _groups, _clusters, _fits):
    return rates.estimate_all(_scores, _groups, _fits, rates.Settings(n_bootstrap=PAGE_BOOTSTRAP), _clusters)


def show_rates(dataset_key: str, examples: Sequence[Example], results: Mapping[str, Mapping[str, DetectorResult]]):
    name = detectors.VERDICT_DETECTOR
    title = detectors.spec(name).title
    scored = [e for e in examples if name in results.get(e.id, {})]
    if not scored:
        st.info(f"The error rates come from {title}'s scores: add it in the sidebar, or wait for it to score.")
        return
    fields = group_fields(examples)
    by = st.selectbox(
        "Group by", [NONE, *fields], key=state.RATES_BY, bind="query-params", help="Any field of the records"
    )
    by = None if by == NONE else by
    judge = results[scored[0].id][name]
    fits = {t: calibration.active().get(judge, t) for t in ("hallucination", "coverage")}
    scores = {t: [results[e.id][name].score(t) for e in scored] for t in fits}
    groups = [rates.group_of(e, by) for e in scored]
    clusters = [calibration.cluster_of(e) for e in scored]
    found, refused = _estimate(dataset_key, by, calibration_digest(), len(scored), scores, groups, clusters, fits)
    st.caption(
        f"{len(scored)} of {len(examples)} answers scored by {literal(title)}, calibrated on "
        f"{literal(calibration.active().data_of(name))}; 95% intervals from {PAGE_BOOTSTRAP} bootstrap rounds over "
        "the calibration's labelled answers and these answers. Labels in the file are not read. How the interval "
        "is computed and what it assumes: docs/guide/labelling.md."
    )
    for error_type, why in refused.items():
        st.warning(f"No {ERROR_TITLES[error_type].lower()} rate: {literal(why)}.")
    if not found:
        return
    st.plotly_chart(rates_figure(found, title=f"by {by}" if by else ""), key="dataset.rates.figure")
    frame = pd.DataFrame(
        [
            {
                "group": r.group,
                "error": ERROR_TITLES[r.error_type],
                "answers": r.answers,
                "rate": r.rate,
                "low": r.low,
                "high": r.high,
                "mean P(error)": r.mean_probability,
            }
            for r in found
        ]
    )
    percent = st.column_config.NumberColumn(format="percent")
    st.dataframe(
        frame,
        hide_index=True,
        column_config={c: percent for c in ("rate", "low", "high", "mean P(error)")},
    )
