"""The Examples, Summaries and Export tabs: the examples table, per-topic summaries and downloads."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.evaluation import auc, report, table, trust
from explorer.render import export, figures
from explorer.ui import links, state, verdict
from explorer.ui.dataset.evaluation import SLICE_TITLES
from explorer.ui.dataset.scores import open_in_inspect
from explorer.ui.dataset.thresholds import threshold_for


def display_frame(frame: pd.DataFrame, outcome: pd.Series | None) -> pd.DataFrame:
    """The table as shown: an outcome column first when there is one, failures sorted first."""
    shown = frame.copy()
    if outcome is not None:
        shown.insert(0, "outcome", outcome.reindex(shown.index).astype("string"))
        order = {name: rank for rank, name in enumerate(table.OUTCOMES)}
        shown = shown.iloc[sorted(range(len(shown)), key=lambda i: order.get(shown["outcome"].iloc[i], len(order)))]
    return shown


def show_table(frame: pd.DataFrame, detector_names: Sequence[str]) -> pd.DataFrame:
    """Sort controls and the table; returns the rows in the order shown."""
    sort_options = ["(failures first)", *frame.columns]
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    sort_by = left.selectbox(
        "Sort by",
        sort_options,
        key=state.DATASET_SORT,
        format_func=lambda c: _column_title(c) if c in frame.columns else c,
        bind="query-params",
    )
    descending = right.toggle("Descending", key=state.DATASET_SORT_DESCENDING, bind="query-params")
    if sort_by != "(failures first)":
        frame = frame.sort_values(sort_by, ascending=not descending, na_position="last", kind="stable")
    column_config = {
        table.score_column(m, t): st.column_config.ProgressColumn(
            _column_title(table.score_column(m, t)), min_value=0.0, max_value=1.0, format="%.3f"
        )
        for m in detector_names
        for t in ERROR_TYPES
    }
    thresholds = trust.TrustThresholds()
    trust_help = {
        "query recall": (
            f"share of the query's content words the response repeats; "
            f"a trust trap needs ≥ {thresholds.query_recall:.2f}"
        ),
        "K-F1": "unigram F1 between the response and all arguments (Knowledge-F1)",
        "K-F1++": (
            f"K-F1 after removing the query's words from the response; a trust trap needs < {thresholds.kf1_plus:.2f}"
        ),
    }
    for column in ("query precision", "query recall", "query F1", "K-F1", "K-F1++"):
        column_config[column] = st.column_config.NumberColumn(column, format="%.2f", help=trust_help.get(column))
    column_config[table.TRUST_TRAP] = st.column_config.CheckboxColumn(
        table.TRUST_TRAP, help="aligned with the query, poorly grounded in the arguments"
    )
    column_config["ambiguous_type"] = st.column_config.TextColumn("ambiguous type")
    column_config["coverage_error"] = st.column_config.CheckboxColumn("coverage error")
    column_config["hallucination"] = st.column_config.CheckboxColumn("hallucination")
    st.session_state[state.DATASET_TABLE_ORDER] = list(frame.index)
    st.dataframe(
        frame,
        column_config=column_config,
        key=state.DATASET_TABLE,
        height=420,
        on_select=_select_row,
        selection_mode="single-row",
    )
    return frame


def _select_row() -> None:
    """A row clicked in the table becomes the example to open or export."""
    rows = st.session_state[state.DATASET_TABLE]["selection"]["rows"]
    if rows:
        st.session_state[state.DATASET_CHOSEN_EXAMPLE] = st.session_state[state.DATASET_TABLE_ORDER][rows[0]]


def show_examples(
    source: str,
    dataset_key: str,
    all_examples: Sequence[Example],
    frame: pd.DataFrame,
    examples: Sequence[Example],
    results,
    detector_names: Sequence[str],
    view: tuple[str, str, str],
) -> None:
    """The filtered table with each example's outcome at the failure detector's threshold."""
    error_type, slice_name, detector_name = view
    threshold = threshold_for(dataset_key, examples, results, detector_name, error_type, slice_name)
    outcome = None
    if threshold is not None:
        outcome = table.outcomes(examples, results, detector_name, error_type, slice_name, threshold)
        st.caption(
            f"Outcome: {report.detector_title(detector_name)} at threshold {threshold:.2f} on the "
            f"{SLICE_TITLES[slice_name].lower()} slice ({ERROR_TITLES[error_type].lower()}); "
            "examples outside the slice have none."
        )
    shown = show_table(display_frame(frame, outcome), detector_names)
    example_actions(source, all_examples, list(shown.index), results)


def _column_title(column: str) -> str:
    if "." in column:
        detector_name, error_type = column.rsplit(".", 1)
        return f"{report.detector_title(detector_name)} · {error_type}"
    return column.replace("_", " ")


def example_actions(source: str, examples: Sequence[Example], order: Sequence[str], results) -> None:
    """Open one example in Inspect or download its HTML report."""
    if not order:
        return
    by_id = {e.id: e for e in examples}
    left, middle, right = st.columns([3, 1, 1], vertical_alignment="bottom")
    if st.session_state.get(state.DATASET_CHOSEN_EXAMPLE) not in order:
        st.session_state.pop(state.DATASET_CHOSEN_EXAMPLE, None)
    chosen = left.selectbox("Example (or click a row)", list(order), key=state.DATASET_CHOSEN_EXAMPLE)
    example = by_id[chosen]
    if middle.button("Open in Inspect", key=state.DATASET_OPEN_CHOSEN):
        open_in_inspect(example, source)
    with right:
        verdict.report_button(example, results.get(example.id, {}), key=state.DATASET_EXAMPLE_HTML)


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:80] or "example"


def show_summaries(examples: Sequence[Example], results, detector_names: Sequence[str]) -> None:
    titles = {m: report.detector_title(m) for m in detector_names}
    topics = table.topic_summary(examples, results, detector_names)
    st.markdown("**Per topic**: which topics most often hold hallucinations or coverage errors")
    if topics["labelled"].sum():
        st.plotly_chart(figures.topic_figure(topics), key=state.DATASET_TOPIC_FIGURE)
    st.dataframe(topics, column_config=_rate_columns(topics), key=state.DATASET_TOPICS)
    perspectives = table.perspective_summary(examples, results, detector_names)
    st.markdown("**Per perspective**: whose arguments the responses drop")
    if not perspectives.empty:
        if perspectives["labelled"].sum():
            st.plotly_chart(
                figures.perspective_figure(perspectives, detector_names, titles), key=state.DATASET_PERSP_FIGURE
            )
        st.dataframe(perspectives, column_config=_rate_columns(perspectives), key=state.DATASET_PERSPECTIVES)


def _rate_columns(frame: pd.DataFrame) -> dict:
    config = {}
    for column in frame.columns:
        if column.endswith("rate"):
            config[column] = st.column_config.ProgressColumn(column, min_value=0.0, max_value=1.0, format="percent")
        elif column.startswith("mean "):
            config[column] = st.column_config.NumberColumn(
                f"mean {_column_title(column.removeprefix('mean '))}", format="%.3f"
            )
    return config


def show_export(source: str, frame: pd.DataFrame, examples: Sequence[Example], results, detector_names) -> None:
    """Downloads: the filtered table, the eval report of the filtered examples, one example's report."""
    stem = _safe_name(source.removeprefix(links.UPLOAD_PREFIX).removesuffix(".jsonl"))
    st.markdown(f"**Scores table**: the {len(frame)} filtered example(s), one row each, indexed by id")
    left, right, _ = st.columns([1, 1, 3])
    _download(left, "CSV", lambda: export.table_csv(frame), f"{stem}-scores.csv", "text/csv", "dataset.csv")
    _download(
        right,
        "Parquet",
        lambda: export.table_parquet(frame),
        f"{stem}-scores.parquet",
        "application/vnd.apache.parquet",
        "dataset.parquet",
    )
    st.markdown(
        "**Evaluation report** of the filtered examples: every error type and slice, significance, word level "
        "(1000 bootstrap resamples, as `explorer eval`)"
    )

    def full_report() -> auc.Evaluation:
        return auc.evaluate(examples, results, detector_names)

    description = f"Data: `{source.removeprefix(links.UPLOAD_PREFIX)}`, {len(examples)} filtered example(s)."
    left, right, _ = st.columns([1, 1, 3])
    _download(
        left,
        "Markdown",
        lambda: report.markdown(full_report(), title=f"Evaluation of {stem}", description=description),
        f"{stem}-eval.md",
        "text/markdown",
        "dataset.report_md",
    )
    _download(
        right,
        "JSON",
        lambda: json.dumps(
            report.to_json(full_report(), meta={"data": source, "examples": [e.id for e in examples]}), indent=2
        ),
        f"{stem}-eval.json",
        "application/json",
        "dataset.report_json",
    )
    if examples:
        st.markdown("**One example** as a self-contained HTML page to share (opens offline)")
        pick, button = st.columns([3, 1], vertical_alignment="bottom")
        by_id = {e.id: e for e in examples}
        chosen = pick.selectbox("Example", list(by_id), key=state.DATASET_EXPORT_EXAMPLE)
        with button:
            verdict.report_button(by_id[chosen], results.get(chosen, {}), key=state.DATASET_EXPORT_HTML)


def _download(where, label: str, data, file_name: str, mime: str, key: str, help: str | None = None) -> None:
    """A download button whose data is built only when clicked."""
    where.download_button(
        label,
        data=data,
        file_name=file_name,
        mime=mime,
        key=key,
        on_click="ignore",  # a rerun would replace the other buttons' deferred data mid-download
        icon=":material/download:",
        help=help,
    )
